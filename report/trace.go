package report

// This file implements the Chrome-trace / Perfetto timeline writer: the
// JSON Object Format of the Trace Event Format (traceEvents with "X"
// complete events and "M" metadata naming the tracks), which
// ui.perfetto.dev and chrome://tracing open. One track for the host thread
// issuing kernels, one per device stream; for a cluster step, one process
// per machine with one track per GPU stream and one per NIC.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
)

// TraceEvent is one Trace Event Format event. Times are microseconds.
type TraceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// Trace is the JSON Object Format document.
type Trace struct {
	TraceEvents     []TraceEvent      `json:"traceEvents"`
	DisplayTimeUnit string            `json:"displayTimeUnit"`
	OtherData       map[string]string `json:"otherData"`
}

// HostTid is the track of the host thread; stream k is track k+1.
const HostTid = 0

// NewTrace builds the timeline of a simulation.
func NewTrace(model string, r *simulate.Result) *Trace {
	tr := &Trace{DisplayTimeUnit: "ms", OtherData: map[string]string{
		"model":    model,
		"hardware": r.Hardware.Name,
		"mode":     string(r.Options.Mode),
		"total_ms": fmt.Sprintf("%.6f", r.TotalS*1e3),
		"producer": "wolong profile (predicted, not measured)",
	}}
	ev := func(e TraceEvent) { tr.TraceEvents = append(tr.TraceEvents, e) }
	ev(TraceEvent{Name: "process_name", Ph: "M", Pid: 0, Tid: HostTid, Args: map[string]any{"name": r.Hardware.Name + " (predicted)"}})
	ev(TraceEvent{Name: "thread_name", Ph: "M", Pid: 0, Tid: HostTid, Args: map[string]any{"name": "host: launch + dispatch"}})
	for s := range r.Streams {
		ev(TraceEvent{Name: "thread_name", Ph: "M", Pid: 0, Tid: s + 1, Args: map[string]any{"name": fmt.Sprintf("stream %d", s)}})
	}
	us := func(s float64) float64 { return s * 1e6 }
	for _, t := range r.Tasks {
		e := t.Est
		if t.Stream < 0 {
			continue // free: no kernel
		}
		if t.IssueEnd > t.IssueStart {
			ev(TraceEvent{Name: t.Name(), Cat: "issue", Ph: "X", Ts: us(t.IssueStart), Dur: us(t.IssueEnd - t.IssueStart), Pid: 0, Tid: HostTid,
				Args: map[string]any{"op": t.Op(), "kernels": e.Kernels}})
		}
		args := map[string]any{"op": t.Op(), "phase": t.Phase.String(), "flops": e.FLOPs, "bytes": e.Bytes,
			"kernels": e.Kernels, "bound": string(e.Bound)}
		if e.Unknown {
			args["unknown"] = e.Why
		}
		ev(TraceEvent{Name: t.Name(), Cat: string(e.Class), Ph: "X", Ts: us(t.Start), Dur: us(t.End - t.Start), Pid: 0, Tid: t.Stream + 1, Args: args})
	}
	return tr
}

// WriteTrace writes the timeline of r as Chrome-trace JSON.
func WriteTrace(w io.Writer, model string, r *simulate.Result) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(NewTrace(model, r)); err != nil {
		return err
	}
	return bw.Flush()
}

// NewClusterTrace builds the timeline of a cluster step: one process per
// machine drawn, one track per GPU stream ("gpu0 stream 0": the cluster
// model runs a GPU's compute in order on one stream) and one per NIC.
// Times are the step's, from 0; the result's timeline is bounded to the
// first few GPUs (cluster.Options.TraceGPUs) and their machines' NICs.
func NewClusterTrace(model string, r *cluster.Result) *Trace {
	tr := &Trace{DisplayTimeUnit: "ms", OtherData: map[string]string{
		"model":     model,
		"cluster":   r.Cluster,
		"gpu":       r.GPU,
		"network":   r.Network,
		"strategy":  string(r.Strategy),
		"transport": string(r.Transport),
		"mode":      string(r.Mode),
		"step_ms":   fmt.Sprintf("%.6f", r.StepMs),
		"producer":  "wolong profile --cluster (predicted, not measured)",
	}}
	type key struct {
		machine, gpu int // gpu -1: the NIC
		name         string
	}
	parse := func(track string) key {
		var m, g int
		if n, _ := fmt.Sscanf(track, "m%d/gpu%d", &m, &g); n == 2 {
			return key{m, g, track}
		}
		if n, _ := fmt.Sscanf(track, "m%d/nic", &m); n == 1 {
			return key{m, -1, track}
		}
		return key{-1, 0, track}
	}
	seen := map[string]key{}
	var keys []key
	for _, s := range r.Timeline {
		if _, ok := seen[s.Track]; !ok {
			k := parse(s.Track)
			seen[s.Track] = k
			keys = append(keys, k)
		}
	}
	// machines in order; in a machine, GPUs in order, then the NIC
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.machine != b.machine {
			return a.machine < b.machine
		}
		if (a.gpu < 0) != (b.gpu < 0) {
			return b.gpu < 0
		}
		if a.gpu != b.gpu {
			return a.gpu < b.gpu
		}
		return a.name < b.name
	})
	ids := map[string][2]int{} // track -> pid, tid
	ev := func(e TraceEvent) { tr.TraceEvents = append(tr.TraceEvents, e) }
	named := map[int]bool{}
	for _, k := range keys {
		pid := k.machine + 1 // pid 0: tracks without a machine
		if !named[pid] {
			named[pid] = true
			name := "other (predicted)"
			if k.machine >= 0 {
				name = fmt.Sprintf("machine %d (predicted)", k.machine)
			}
			ev(TraceEvent{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": name}})
			ev(TraceEvent{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": pid}})
		}
		tid, name := k.gpu+1, ""
		switch {
		case k.machine < 0:
			tid, name = len(ids)+1, k.name
		case k.gpu < 0:
			tid, name = ClusterNICTid, fmt.Sprintf("nic (%s)", r.Network)
		default:
			name = fmt.Sprintf("gpu%d stream 0", k.gpu)
		}
		ids[k.name] = [2]int{pid, tid}
		ev(TraceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": name}})
		ev(TraceEvent{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"sort_index": tid}})
	}
	for _, s := range r.Timeline {
		id := ids[s.Track]
		ev(TraceEvent{Name: s.Name, Cat: s.Cat, Ph: "X", Ts: s.StartMs * 1e3, Dur: (s.EndMs - s.StartMs) * 1e3, Pid: id[0], Tid: id[1],
			Args: map[string]any{"track": s.Track}})
	}
	return tr
}

// ClusterNICTid is the thread id of a machine's NIC track in a cluster
// trace (GPU k of the machine is track k+1).
const ClusterNICTid = 1 << 20

// WriteClusterTrace writes the timeline of a cluster step as Chrome-trace
// JSON.
func WriteClusterTrace(w io.Writer, model string, r *cluster.Result) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(NewClusterTrace(model, r)); err != nil {
		return err
	}
	return bw.Flush()
}
