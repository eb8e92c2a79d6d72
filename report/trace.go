package report

// This file implements the Chrome-trace / Perfetto timeline writer: the
// JSON Object Format of the Trace Event Format (traceEvents with "X"
// complete events and "M" metadata naming the tracks), which
// ui.perfetto.dev and chrome://tracing open. One track for the host thread
// issuing kernels, one per device stream.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/wolong-dev/wolong/simulate"
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
		e := &t.Est
		if t.Stream < 0 {
			continue // free: no kernel
		}
		if t.IssueEnd > t.IssueStart {
			ev(TraceEvent{Name: t.Name, Cat: "issue", Ph: "X", Ts: us(t.IssueStart), Dur: us(t.IssueEnd - t.IssueStart), Pid: 0, Tid: HostTid,
				Args: map[string]any{"op": t.Op, "kernels": e.Kernels}})
		}
		args := map[string]any{"op": t.Op, "phase": string(t.Phase), "flops": e.FLOPs, "bytes": e.Bytes,
			"kernels": e.Kernels, "bound": string(e.Bound)}
		if e.Unknown {
			args["unknown"] = e.Why
		}
		ev(TraceEvent{Name: t.Name, Cat: string(e.Class), Ph: "X", Ts: us(t.Start), Dur: us(t.End - t.Start), Pid: 0, Tid: t.Stream + 1, Args: args})
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
