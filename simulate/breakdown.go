package simulate

// This file implements the breakdown of a simulated run: its makespan
// split into named causes that add up to it, and each task's facts (the
// peak it is bound by, the fraction of that peak it reaches, whether it
// sits on the critical path).
//
// Note on the attribution. The makespan runs from the first host work to
// the end of the outputs' return. The run-level host work before the
// first node and after the last kernel (binding inputs, returning
// outputs) is framework overhead. In between, the timeline is cut at
// every kernel start and end; each piece with kernels running is shared
// equally among them, and each kernel's share splits in the proportions
// of its own device time: its fixed per-kernel time is launch and host
// overhead, the rest is compute-bound or memory-bound kernel time by
// which of its compute and memory times is longer. A piece with no kernel
// running is launch and host overhead when the host is still issuing the
// kernel that ends it (or issuing at all), else a wait on dependencies.
// The pieces tile the makespan, so the causes sum to it up to rounding.

import (
	"math"
	"sort"

	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// Cause keys: stable names of the parts of a prediction's time (JSON
// "cause"). A single-device run has the first five; the cluster and LLM
// reports add the others.
const (
	CauseCompute    = "compute"          // compute-bound kernel time
	CauseMemory     = "memory"           // memory-bound kernel time
	CauseLaunch     = "launch_host"      // kernel launch, dispatch and fixed kernel time not hidden
	CauseDependency = "dependency_wait"  // device idle waiting on dependencies
	CauseFramework  = "framework"        // per-run runtime work outside the nodes
	CauseComm       = "communication"    // exposed communication (Detail names collective and link)
	CauseBubble     = "pipeline_bubble"  // pipeline fill and drain
	CauseRecompute  = "recompute"        // activation recomputation
	CauseOther      = "other"            // the rest of a planner's step it does not split
	CauseUnknownOps = "unknown_cost_ops" // reserved: launch-only nodes of unknown cost are counted as launch_host
)

// CauseLabels are the causes in words, for tables and the HTML page.
var CauseLabels = map[string]string{
	CauseCompute:    "compute-bound kernels",
	CauseMemory:     "memory-bound kernels",
	CauseLaunch:     "launch and host overhead",
	CauseDependency: "waits on dependencies",
	CauseFramework:  "framework overhead",
	CauseComm:       "exposed communication",
	CauseBubble:     "pipeline bubble",
	CauseRecompute:  "recompute",
	CauseOther:      "other",
}

// Part is one cause's share of a prediction's time.
type Part struct {
	Cause  string
	Detail string // for communication: the collective and link
	S      float64
}

// TaskFacts are one task's roofline facts.
type TaskFacts struct {
	// Bound is the peak the task is held by: compute, memory, overhead,
	// free or unknown (the estimate's).
	Bound string
	// Intensity is FLOPs (2 x multiply-adds) per byte moved.
	Intensity float64
	// Achieved is the fraction of the peak of its bound it reaches over
	// its device time: FLOP/s over the peak of the math it runs in when
	// compute-bound, bytes/s over the memory bandwidth when memory-bound
	// (0 for overhead-bound, free and unknown tasks). The memory peak is
	// the cache bandwidth for the part of each call's traffic that fits in
	// the last-level cache; a kernel whose traffic the cost model places
	// in cache more finely (staging passes, fused members) can exceed that
	// bound, and is shown at 1.
	Achieved float64
	// PeakFLOPS is the peak of the math the task runs in, FLOP/s (0: no
	// kernel).
	PeakFLOPS float64
	// Critical: the task lies on the longest dependency chain of device
	// time (Result.CriticalPathS).
	Critical bool
}

// Breakdown splits r's makespan into causes (in the order of the Cause
// constants, zero parts left out) that sum to r.TotalS.
func (r *Result) Breakdown() []Part {
	acc := map[string]float64{}
	before, after := r.runHostS()
	acc[CauseFramework] += before + after
	if r.Options.Streams <= 1 {
		r.oneStream(acc, before, r.TotalS-after)
		return partsOf(acc)
	}
	type event struct {
		t     float64
		start bool
		i     int
	}
	var ev []event
	for i := range r.Tasks {
		t := &r.Tasks[i]
		if t.Stream < 0 || t.End <= t.Start {
			continue
		}
		ev = append(ev, event{t.Start, true, i}, event{t.End, false, i})
	}
	sort.Slice(ev, func(a, b int) bool {
		if ev[a].t != ev[b].t {
			return ev[a].t < ev[b].t
		}
		return !ev[a].start && ev[b].start // ends first
	})
	// running sums, over the kernels running, of the fractions of their
	// device time that are compute, memory and fixed overhead
	var active int
	var fc, fm, fo float64
	cur := before
	end := r.TotalS - after
	for _, e := range ev {
		if e.t > cur {
			dt := math.Min(e.t, end) - cur
			if dt > 0 {
				if active > 0 {
					n := float64(active)
					acc[CauseCompute] += dt * fc / n
					acc[CauseMemory] += dt * fm / n
					acc[CauseLaunch] += dt * fo / n
				} else {
					acc[r.idleCause(e.i)] += dt
				}
			}
			cur = e.t
		}
		c, m, o := splitTask(r.Tasks[e.i].Est)
		if e.start {
			active++
			fc, fm, fo = fc+c, fm+m, fo+o
		} else {
			active--
			fc, fm, fo = fc-c, fm-m, fo-o
			if active == 0 {
				fc, fm, fo = 0, 0, 0 // no drift from the running sums
			}
		}
	}
	if end > cur {
		acc[CauseLaunch] += end - cur // the host issuing after the last kernel
	}
	return partsOf(acc)
}

// oneStream is Breakdown's walk for one stream, whose kernels run one at
// a time in task order: no events to sort.
func (r *Result) oneStream(acc map[string]float64, cur, end float64) {
	var fc, fm, fo float64 // kernel time by cause
	for i := range r.Tasks {
		t := &r.Tasks[i]
		if t.Stream < 0 || t.End <= t.Start {
			continue
		}
		if gap := math.Min(t.Start, end) - cur; gap > 0 {
			acc[r.idleCause(i)] += gap
		}
		d := math.Min(t.End, end) - math.Max(t.Start, cur)
		if d > 0 {
			c, m, o := splitTask(t.Est)
			fc, fm, fo = fc+d*c, fm+d*m, fo+d*o
		}
		cur = math.Max(cur, t.End)
	}
	acc[CauseCompute] += fc
	acc[CauseMemory] += fm
	acc[CauseLaunch] += fo
	if end > cur {
		acc[CauseLaunch] += end - cur // the host issuing after the last kernel
	}
}

// partsOf lists acc's causes in the order of the Cause constants, zero
// parts left out.
func partsOf(acc map[string]float64) []Part {
	var out []Part
	for _, c := range []string{CauseCompute, CauseMemory, CauseLaunch, CauseDependency, CauseFramework} {
		if acc[c] > 0 {
			out = append(out, Part{Cause: c, S: acc[c]})
		}
	}
	return out
}

// idleCause is the cause of a piece of the timeline with no kernel
// running that ends at task i's start: the host, when i was issued no
// earlier than that (the device waited for the launch), else its
// dependencies.
func (r *Result) idleCause(i int) string {
	t := &r.Tasks[i]
	if t.IssueEnd >= t.Start-gapEps {
		return CauseLaunch
	}
	return CauseDependency
}

// splitTask returns the fractions of a task's device time that are
// compute-bound, memory-bound and fixed overhead.
func splitTask(e *cost.Estimate) (c, m, o float64) {
	if e.DeviceS <= 0 {
		return 0, 0, 0
	}
	o = math.Min(1, math.Max(0, e.OverheadS/e.DeviceS))
	if e.ComputeS >= e.MemoryS && e.ComputeS > 0 {
		return 1 - o, 0, o
	}
	if e.MemoryS > 0 {
		return 0, 1 - o, o
	}
	return 0, 0, 1 // nothing but fixed time (unknown cost: launch only)
}

// runHostS is the host time of the run outside its nodes (before the
// first issue, after the last kernel), as the engine charged it.
func (r *Result) runHostS() (before, after float64) {
	if len(r.Tasks) == 0 {
		return 0, r.TotalS
	}
	before = r.Tasks[0].IssueStart
	last := 0.0
	for i := range r.Tasks {
		last = math.Max(last, math.Max(r.Tasks[i].End, r.Tasks[i].IssueEnd))
	}
	after = math.Max(0, r.TotalS-last)
	return before, after
}

// Facts returns each task's roofline facts, by task index.
func (r *Result) Facts() []TaskFacts {
	h := r.Hardware
	out := make([]TaskFacts, len(r.Tasks))
	crit := r.criticalTasks()
	for i := range r.Tasks {
		e := r.Tasks[i].Est
		f := &out[i]
		f.Bound = string(e.Bound)
		if e.Bytes > 0 {
			f.Intensity = e.FLOPs / e.Bytes
		}
		f.PeakFLOPS = mathPeak(h, e.Math)
		f.Critical = crit[i]
		if e.DeviceS <= 0 {
			continue
		}
		switch e.Bound {
		case cost.BoundCompute:
			if f.PeakFLOPS > 0 {
				f.Achieved = e.FLOPs / e.DeviceS / f.PeakFLOPS
			}
		case cost.BoundMemory:
			f.Achieved = idealMemS(h, e.Bytes, float64(e.Kernels)*math.Max(1, float64(e.Steps))) / e.DeviceS
		}
		f.Achieved = math.Min(1, f.Achieved)
	}
	return out
}

// idealMemS is the time to move bytes in kernels kernels at the peak
// bandwidths: the part of each kernel's traffic that fits in the
// last-level cache at cache bandwidth (when the hardware gives one), the
// rest at memory bandwidth (the cost model's traffic rule at full
// efficiency).
func idealMemS(h *hw.Hardware, bytes, kernels float64) float64 {
	dram := h.MemoryBandwidthGBs * 1e9
	if bytes <= 0 || dram <= 0 {
		return 0
	}
	k := math.Max(1, kernels)
	per := bytes / k
	if h.CacheBandwidthGBs <= 0 || h.L2MB <= 0 {
		return bytes / dram
	}
	in := math.Min(per, h.L2MB*1e6)
	return k * (in/(h.CacheBandwidthGBs*1e9) + (per-in)/dram)
}

// mathPeak is the peak FLOP/s of the math an estimate names (Estimate.Math).
func mathPeak(h *hw.Hardware, math string) float64 {
	p := h.PeakTFLOPS
	v := map[string]float64{"fp64": p.FP64, "fp32": p.FP32, "tf32": p.TF32, "fp16": p.FP16, "bf16": p.BF16,
		"fp8": p.FP8, "int8": p.INT8, "fp16 (CUDA cores)": p.FP16Vector}[math]
	return v * 1e12
}

// criticalTasks marks the tasks on the longest dependency chain of device
// time, the chain Result.CriticalPathS measures (ties: the first).
func (r *Result) criticalTasks() []bool {
	n := len(r.Tasks)
	out := make([]bool, n)
	if n == 0 {
		return out
	}
	cp := make([]float64, n)
	prev := make([]int32, n)
	best := -1
	for i := range r.Tasks {
		t := &r.Tasks[i]
		prev[i] = -1
		for _, d := range r.depsOf(t) {
			if cp[d] > cp[i] || prev[i] < 0 && cp[d] == cp[i] {
				cp[i], prev[i] = cp[d], d
			}
		}
		if t.Stream >= 0 {
			cp[i] += t.Est.DeviceS
		}
		if best < 0 || cp[i] > cp[best] {
			best = i
		}
	}
	for i := int32(best); i >= 0; i = prev[i] {
		out[i] = true
	}
	return out
}

// Why is what a run says about its total without its timeline: the
// breakdown and the device time per op class (for the error band), small
// enough to keep while the run itself is dropped.
type Why struct {
	TotalS float64
	Parts  []Part
	ClassS map[string]float64 // device seconds per cost class
}

// Why returns r's breakdown and device time per class.
func (r *Result) Why() *Why {
	w := &Why{TotalS: r.TotalS, Parts: r.Breakdown(), ClassS: map[string]float64{}}
	for i := range r.Tasks {
		w.ClassS[string(r.Tasks[i].Est.Class)] += r.Tasks[i].Est.DeviceS
	}
	return w
}
