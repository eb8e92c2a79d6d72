package report

// This file implements the `wolong profile` report: the summary of a
// simulated run, top-N tables by node or by op type, and its JSON form.

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// ProfileNode is one node (or training task) of the timeline.
type ProfileNode struct {
	Name      string  `json:"name"`
	Op        string  `json:"op"`
	Phase     string  `json:"phase"`
	Class     string  `json:"class"`
	FLOPs     float64 `json:"flops"`
	Bytes     float64 `json:"bytes"`
	Intensity float64 `json:"intensity"` // FLOPs per byte
	Kernels   int64   `json:"kernels"`
	TimeMs    float64 `json:"time_ms"` // device time
	HostMs    float64 `json:"host_ms"` // host issue time (launch + dispatch)
	StartMs   float64 `json:"start_ms"`
	Stream    int     `json:"stream"` // -1: no kernel
	Bound     string  `json:"bound"`  // compute, memory, overhead, free, unknown
	Share     float64 `json:"share"`  // of device busy time
	Note      string  `json:"note,omitempty"`
	// AchievedFraction is the fraction of the peak of its bound the node
	// reaches (FLOP/s of its math's peak when compute-bound, bandwidth
	// when memory-bound; 0 otherwise); CriticalPath: it lies on the
	// longest dependency chain of device time (critical_path_ms).
	AchievedFraction float64 `json:"achieved_fraction"`
	CriticalPath     bool    `json:"critical_path"`
}

// ProfileOp aggregates the nodes of one op type.
type ProfileOp struct {
	Op        string  `json:"op"`
	Count     int     `json:"count"`
	FLOPs     float64 `json:"flops"`
	Bytes     float64 `json:"bytes"`
	Intensity float64 `json:"intensity"`
	Kernels   int64   `json:"kernels"`
	TimeMs    float64 `json:"time_ms"`
	Bound     string  `json:"bound"` // the bound holding most of the op's time
	Share     float64 `json:"share"`
}

// GapJSON is an idle interval on a stream.
type GapJSON struct {
	Stream  int     `json:"stream"`
	StartMs float64 `json:"start_ms"`
	Ms      float64 `json:"ms"`
	Cause   string  `json:"cause"`
}

// StreamJSON summarizes one device stream.
type StreamJSON struct {
	BusyMs     float64 `json:"busy_ms"`
	IdleMs     float64 `json:"idle_ms"`
	HostWaitMs float64 `json:"host_wait_ms"`
	Kernels    int64   `json:"kernels"`
	Gaps       int     `json:"gaps"`
}

// Profile is what `wolong profile` prints.
type Profile struct {
	Model               string `json:"model"`
	Hardware            string `json:"hardware"`
	HardwareDescription string `json:"hardware_description"`
	Mode                string `json:"mode"`
	Batch               int64  `json:"batch"` // 0: as the model gives it
	// PeakAs says what the hardware runs DType's matrix math as when it
	// has no units of it ("bfloat16 runs as float32 on v100 ..."); the
	// peak is that unit's.
	PeakAs string `json:"peak_as,omitempty"`
	// BatchUsed is the batch the prediction is at: Batch, else dim 0 of
	// the batch inputs as inferred (0: unknown).
	BatchUsed         int64              `json:"batch_used"`
	Streams           int                `json:"streams"`
	DType             string             `json:"dtype"` // the dtype most FLOPs run in
	TotalMs           float64            `json:"total_ms"`
	DeviceBusyMs      float64            `json:"device_busy_ms"`
	HostBusyMs        float64            `json:"host_busy_ms"`
	CriticalPathMs    float64            `json:"critical_path_ms"`
	FLOPs             float64            `json:"flops"`
	Bytes             float64            `json:"bytes"`
	Kernels           int64              `json:"kernels"`
	AchievedTFLOPS    float64            `json:"achieved_tflops"`
	PeakTFLOPS        float64            `json:"peak_tflops"` // dense peak for DType's matrix math
	PeakMemoryBytes   float64            `json:"peak_memory_bytes"`
	WeightBytes       float64            `json:"weight_bytes"`
	OptimizerBytes    float64            `json:"optimizer_bytes"`
	DeviceMemoryBytes float64            `json:"device_memory_bytes"`
	UnknownNodes      int                `json:"unknown_nodes"`
	UnknownSizes      int                `json:"unknown_sizes"`
	TimeByBound       map[string]float64 `json:"time_by_bound_ms"`
	StreamStats       []StreamJSON       `json:"stream_stats"`
	LargestGaps       []GapJSON          `json:"largest_gaps"`
	// ExpectedError is how far TotalMs is expected to be off, when the
	// hardware file is a calibrated one that records it (nil otherwise).
	ExpectedError *ExpectedError `json:"expected_error,omitempty"`
	// BranchRange is the range of TotalMs over the branches of the If
	// nodes whose inputs decide them (nil when there are none).
	BranchRange *BranchRange `json:"branch_range,omitempty"`
	ProfileWhy
	Caveats
	Nodes []ProfileNode `json:"nodes"`
	Ops   []ProfileOp   `json:"ops"`
}

func intensity(f, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return f / b
}

// ExpectedError is a prediction's expected error from its calibrated
// hardware file (hw.ErrorBand for the prediction's size class), with the
// range it gives the prediction.
type ExpectedError struct {
	Pct    float64 `json:"pct"`     // mean |error|, % of the measured time
	P90Pct float64 `json:"p90_pct"` // 90th percentile |error|, %
	LowMs  float64 `json:"low_ms"`  // TotalMs / (1 + Pct/100)
	HighMs float64 `json:"high_ms"` // TotalMs / (1 - Pct/100); 0: no upper bound (Pct >= 100)
	Class  string  `json:"size_class"`
	Models int     `json:"models"` // held-out models the figure is over
	Source string  `json:"source"`
}

// expectedError is h's expected error for a prediction of ms, nil when h
// records none.
func expectedError(h *hw.Hardware, ms float64) *ExpectedError {
	b, ok := h.ExpectedError(ms)
	if !ok {
		return nil
	}
	e := &ExpectedError{Pct: b.Pct, P90Pct: b.P90Pct, LowMs: ms / (1 + b.Pct/100), Class: b.Class, Models: b.Models, Source: b.Source}
	if b.Pct < 100 {
		e.HighMs = ms / (1 - b.Pct/100)
	}
	return e
}

// BranchRange is how far a prediction moves with the branches its If
// nodes take where the inputs decide them: each costed as the mean of its
// branches (or, with --if-branch max, the costlier), a run takes one.
type BranchRange struct {
	Nodes  int     `json:"nodes"`   // nodes that hold such an If (the If, or a loop around one)
	LowMs  float64 `json:"low_ms"`  // every such If on its cheaper branch
	HighMs float64 `json:"high_ms"` // every one on its costlier branch
	Rule   string  `json:"rule"`    // how the prediction costs them: mean or max (cost.Branch)
}

// branchRange sums r's tasks' branch spreads around totalMs (an upper
// bound of the move with several streams, where some overlaps); nil when
// no task has one.
func branchRange(r *simulate.Result, totalMs float64) *BranchRange {
	var b BranchRange
	var less, more float64
	for i := range r.Tasks {
		e := r.Tasks[i].Est
		if e.BranchLessS > 0 || e.BranchMoreS > 0 {
			b.Nodes++
			less += e.BranchLessS
			more += e.BranchMoreS
		}
	}
	if b.Nodes == 0 {
		return nil
	}
	b.LowMs, b.HighMs = math.Max(0, totalMs-less*1e3), totalMs+more*1e3
	b.Rule = string(r.Options.Cost.Branch)
	if b.Rule == "" {
		b.Rule = string(cost.BranchAuto)
	}
	return &b
}

// NewProfile summarizes a simulation. warnings are the import and
// inference messages that came before it.
func NewProfile(model string, r *simulate.Result, warnings []string) *Profile {
	h := r.Hardware
	p := &Profile{
		Model: model, Hardware: h.Name, HardwareDescription: h.Description,
		Mode: string(r.Options.Mode), Batch: r.Options.Batch, BatchUsed: r.UsedBatch, Streams: r.Options.Streams,
		TotalMs: r.TotalS * 1e3, DeviceBusyMs: r.BusyS * 1e3, HostBusyMs: r.HostBusyS * 1e3,
		CriticalPathMs: r.CriticalPathS * 1e3, FLOPs: r.FLOPs, Bytes: r.Bytes, Kernels: r.Kernels,
		PeakMemoryBytes: r.PeakMemoryBytes, WeightBytes: r.WeightBytes, OptimizerBytes: r.OptimizerBytes,
		DeviceMemoryBytes: h.MemoryGB * 1e9, UnknownNodes: r.UnknownNodes, UnknownSizes: r.UnknownSizes,
		TimeByBound: map[string]float64{},
		Caveats: Caveats{
			Assumptions: append([]string{}, r.Assumptions...),
			Warnings:    append(append([]string{}, warnings...), r.Warnings...),
		},
		Nodes: make([]ProfileNode, 0, len(r.Tasks)),
	}
	p.Breakdown, p.ErrorBand = RunWhy(r)
	facts := r.Facts()
	flopsBy := map[ir.DType]float64{}
	for i, t := range r.Tasks {
		e := t.Est
		n := ProfileNode{
			Name: t.Name(), Op: t.Op(), Phase: t.Phase.String(), Class: string(e.Class),
			FLOPs: e.FLOPs, Bytes: e.Bytes, Intensity: intensity(e.FLOPs, e.Bytes), Kernels: e.Kernels,
			TimeMs: e.DeviceS * 1e3, HostMs: e.HostS * 1e3, StartMs: t.Start * 1e3, Stream: t.Stream,
			Bound: string(e.Bound), Note: e.Note,
			AchievedFraction: facts[i].Achieved, CriticalPath: facts[i].Critical,
		}
		if e.Unknown {
			n.Note = "unknown cost: " + e.Why
		}
		if r.BusyS > 0 {
			n.Share = e.DeviceS / r.BusyS
		}
		p.TimeByBound[n.Bound] += n.TimeMs
		if e.DType != ir.Undefined {
			flopsBy[e.DType] += e.FLOPs
		}
		p.Nodes = append(p.Nodes, n)
	}
	dt, best := ir.Float32, -1.0
	for d, f := range flopsBy {
		if f > best || (f == best && d < dt) {
			dt, best = d, f
		}
	}
	p.DType = dt.String()
	peak, _, _ := h.PeakFLOPS(dt, hw.Tensor, r.Options.Cost.TF32)
	p.PeakTFLOPS = peak / 1e12
	p.PeakAs = h.RunsAs(dt, r.Options.Cost.TF32)
	if r.TotalS > 0 {
		p.AchievedTFLOPS = r.FLOPs / r.TotalS / 1e12
	}
	p.Ops = aggregateOps(p.Nodes, r.BusyS*1e3)
	p.ExpectedError = expectedError(h, p.TotalMs)
	p.BranchRange = branchRange(r, p.TotalMs)
	for _, s := range r.Streams {
		p.StreamStats = append(p.StreamStats, StreamJSON{BusyMs: s.BusyS * 1e3, IdleMs: s.IdleS * 1e3,
			HostWaitMs: s.HostWaitS * 1e3, Kernels: s.Kernels, Gaps: s.Gaps})
	}
	for _, g := range r.LargestGaps {
		p.LargestGaps = append(p.LargestGaps, GapJSON{Stream: g.Stream, StartMs: g.Start * 1e3, Ms: (g.End - g.Start) * 1e3, Cause: g.Cause})
	}
	return p
}

func aggregateOps(nodes []ProfileNode, busyMs float64) []ProfileOp {
	idx := map[string]int{}
	var ops []ProfileOp
	bounds := []map[string]float64{}
	for _, n := range nodes {
		i, ok := idx[n.Op]
		if !ok {
			i = len(ops)
			idx[n.Op] = i
			ops = append(ops, ProfileOp{Op: n.Op})
			bounds = append(bounds, map[string]float64{})
		}
		o := &ops[i]
		o.Count++
		o.FLOPs += n.FLOPs
		o.Bytes += n.Bytes
		o.Kernels += n.Kernels
		o.TimeMs += n.TimeMs
		bounds[i][n.Bound] += math.Max(n.TimeMs, 1e-300)
	}
	for i := range ops {
		o := &ops[i]
		o.Intensity = intensity(o.FLOPs, o.Bytes)
		if busyMs > 0 {
			o.Share = o.TimeMs / busyMs
		}
		o.Bound = "free"
		best := 0.0
		for _, b := range []string{"compute", "memory", "overhead", "unknown"} {
			if bounds[i][b] > best {
				best, o.Bound = bounds[i][b], b
			}
		}
	}
	sort.SliceStable(ops, func(i, j int) bool {
		if ops[i].TimeMs != ops[j].TimeMs {
			return ops[i].TimeMs > ops[j].TimeMs
		}
		return ops[i].Op < ops[j].Op
	})
	return ops
}

// WriteText prints the summary, the top rows by node or by op ("node" or
// "op"), the largest idle gaps and the assumptions (not the warnings: the
// command writes them on stderr).
func (p *Profile) WriteText(w io.Writer, by string, top int) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Model: %s\n", p.Model)
	fmt.Fprintf(ew, "Hardware: %s (%s)\n", p.Hardware, p.HardwareDescription)
	fmt.Fprintf(ew, "Mode: %s, batch: %s, streams: %d, dtype: %s\n\n", p.Mode, batchText(p.Batch, p.BatchUsed), p.Streams, p.DType)
	lb := ""
	if p.UnknownNodes > 0 {
		lb = fmt.Sprintf(" (lower bound: %d node(s) of unknown cost)", p.UnknownNodes)
	}
	fmt.Fprintf(ew, "Predicted step time: %s %s%s\n", Millis(p.TotalMs/1e3), p.ErrorBand, lb)
	if e := p.ExpectedError; e != nil {
		high := "no upper bound"
		if e.HighMs > 0 {
			high = Millis(e.HighMs / 1e3)
		}
		fmt.Fprintf(ew, "  expected error +-%.0f%% (%s to %s; 90%% of models within %.0f%%): %s of %s predicted time, from %s\n",
			e.Pct, Millis(e.LowMs/1e3), high, e.P90Pct, Count(e.Models, "model"), e.Class, e.Source)
	}
	if b := p.BranchRange; b != nil {
		how := "the mean of its branches"
		switch b.Rule {
		case string(cost.BranchMax):
			how = "its costlier branch"
		case string(cost.BranchAuto):
			how = "a gate's pass-through branch, any other If the mean of its branches"
		}
		fmt.Fprintf(ew, "  input-dependent branches: %s to %s as the If in %s takes its cheaper or its costlier branch (predicted: %s)\n",
			Millis(b.LowMs/1e3), Millis(b.HighMs/1e3), Count(b.Nodes, "node"), how)
	}
	fmt.Fprintf(ew, "  device busy %s, host issuing %s, critical path %s\n", Millis(p.DeviceBusyMs/1e3), Millis(p.HostBusyMs/1e3), Millis(p.CriticalPathMs/1e3))
	if p.PeakAs != "" {
		fmt.Fprintf(ew, "Achieved: %.3g TFLOP/s of %g TFLOP/s peak (%s) (%s)\n", p.AchievedTFLOPS, p.PeakTFLOPS, Pct(p.AchievedTFLOPS/p.PeakTFLOPS), p.PeakAs)
	} else {
		fmt.Fprintf(ew, "Achieved: %.3g TFLOP/s of %g TFLOP/s %s peak (%s)\n", p.AchievedTFLOPS, p.PeakTFLOPS, p.DType, Pct(p.AchievedTFLOPS/p.PeakTFLOPS))
	}
	fmt.Fprintf(ew, "Work: %sFLOP, %sB moved, %s launched\n", SI(p.FLOPs), SI(p.Bytes), Count(p.Kernels, "kernel"))
	fmt.Fprintf(ew, "Memory peak: %s (weights %s", Bytes(int64(p.PeakMemoryBytes)), Bytes(int64(p.WeightBytes)))
	if p.OptimizerBytes > 0 {
		fmt.Fprintf(ew, ", optimizer state %s", Bytes(int64(p.OptimizerBytes)))
	}
	fmt.Fprintf(ew, ") of %s device memory", SI(p.DeviceMemoryBytes)+"B")
	if p.PeakMemoryBytes > p.DeviceMemoryBytes {
		fmt.Fprint(ew, ": DOES NOT FIT")
	}
	fmt.Fprintln(ew)
	if p.UnknownSizes > 0 {
		fmt.Fprintf(ew, "  (%d tensor(s) of unknown size left out of the peak)\n", p.UnknownSizes)
	}
	var parts []string
	for _, b := range []string{"compute", "memory", "overhead", "unknown"} {
		if v := p.TimeByBound[b]; v > 0 && p.DeviceBusyMs > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", b, Pct(v/p.DeviceBusyMs)))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(ew, "Device time by bound: %s\n", joinComma(parts))
	}
	if len(p.Breakdown) > 0 {
		fmt.Fprintf(ew, "Step time by cause: %s\n", causeLine(p.Breakdown))
	}
	for i, s := range p.StreamStats {
		if s.HostWaitMs > 0.5*p.TotalMs {
			fmt.Fprintf(ew, "Stream %d waits for the host %s of the time: launch/dispatch-bound (fewer, larger kernels help)\n", i, Pct(s.HostWaitMs/p.TotalMs))
		}
	}
	if top <= 0 {
		top = 20
	}
	if by == "op" {
		fmt.Fprintf(ew, "\nTop %s by device time:\n", Count(min(top, len(p.Ops)), "op type"))
		var rows [][]string
		for i, o := range p.Ops {
			if i == top {
				break
			}
			rows = append(rows, []string{fmt.Sprint(i + 1), o.Op, fmt.Sprint(o.Count), fmt.Sprint(o.Kernels), SI(o.FLOPs), SI(o.Bytes) + "B",
				Ratio(o.Intensity), o.Bound, Millis(o.TimeMs / 1e3), Pct(o.Share)})
		}
		ew.check(TextTable{Header: []string{"#", "op", "nodes", "kernels", "FLOPs", "bytes", "FLOP/B", "bound", "time", "share"}, Rows: rows, Drop: []int{6, 5, 3, 0}}.Write(ew))
	} else {
		order := make([]int, len(p.Nodes))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return p.Nodes[order[a]].TimeMs > p.Nodes[order[b]].TimeMs })
		fmt.Fprintf(ew, "\nTop %s by device time:\n", Count(min(top, len(p.Nodes)), "node"))
		var rows [][]string
		for i, k := range order {
			if i == top {
				break
			}
			n := p.Nodes[k]
			name := n.Name
			if n.Phase != "forward" {
				name += " [" + n.Phase + "]"
			}
			rows = append(rows, []string{fmt.Sprint(i + 1), name, n.Op, SI(n.FLOPs), SI(n.Bytes) + "B",
				Ratio(n.Intensity), n.Bound, Millis(n.TimeMs / 1e3), Pct(n.Share)})
		}
		ew.check(TextTable{Header: []string{"#", "node", "op", "FLOPs", "bytes", "FLOP/B", "bound", "time", "share"}, Rows: rows, Drop: []int{5, 4, 0, 6}}.Write(ew))
	}
	if len(p.LargestGaps) > 0 {
		fmt.Fprintln(ew, "\nLargest idle gaps:")
		var rows [][]string
		for _, g := range p.LargestGaps {
			rows = append(rows, []string{fmt.Sprint(g.Stream), Millis(g.StartMs / 1e3), Millis(g.Ms / 1e3), g.Cause})
		}
		ew.check(WriteTable(ew, []string{"stream", "at", "idle", "waiting for"}, rows))
	}
	fmt.Fprintln(ew, "\nAssumptions:")
	if p.ErrorBand != nil {
		fmt.Fprintf(ew, "  - %s\n", bandNote(p.ErrorBand))
	}
	for _, a := range p.Assumptions {
		fmt.Fprintf(ew, "  - %s\n", a)
	}
	return ew.err
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// batchText states the batch a prediction is at: the one set (--batch),
// else the inputs' dim 0 as the shapes gave it.
func batchText(set, used int64) string {
	switch {
	case set > 0:
		return fmt.Sprint(set)
	case used > 0:
		return fmt.Sprintf("%d (dim 0 of the inputs, as their shapes give it)", used)
	}
	return "unknown (the inputs have no common dim 0)"
}
