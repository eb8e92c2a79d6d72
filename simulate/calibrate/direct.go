package calibrate

// This file implements the direct fit of a CPU hardware file to unprofiled
// end-to-end runs: what a user measures, and the only timing that does not
// carry a profiler's own cost.
//
// A run's time is the runtime's host costs (per run, per view node, per MB
// of outputs returned) plus its kernels' times. Given the host costs, what
// is left of a run's measured time is its kernel time; it is shared among
// the run's kernels in proportion to their profiled times when a profile
// gives them (the profiler's cost then largely cancels: it is a split, not
// a time), else to their predicted times. Each op type is then fitted on its
// own (fixed time per call, compute and memory fraction of peak) against
// the kernel times it got in every run, pulled toward its class; each
// class takes the median of its ops (for ops no run measured); and the host
// costs are refitted to the runs. A few rounds of the two steps settle.
//
// With one-op chains at several sizes, each op's parameters are set by its
// own runs alone, so a noisy run moves one op, not the whole file.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// DirectRun is one measured run for FitDirect.
type DirectRun struct {
	Label string
	Model *ir.Model
	Us    float64      // measured end-to-end time, unprofiled, µs
	Opt   cost.Options // how the runtime ran it (NoFold: every node)
	// Split, when set, gives the profiled time of the run's kernel nodes
	// (µs, the profiler's own cost taken off): how the run's kernel time
	// is shared among them. Nodes it lacks are split by predicted time.
	Split map[*ir.Node]float64
	// HeldOut runs are only predicted, not fitted on.
	HeldOut bool
	// ProfiledUs is the run's profiled median when measured (µs; 0:
	// none): with Split, what the profiler cost it (Coverage).
	ProfiledUs float64
	// NoisePct is how well Us is known: the half-width of its 95%
	// confidence interval, % (0: well). A run known less well than
	// noiseFloorPct weighs less in the fit (runWeight).
	NoisePct float64
}

// DirectOptions steer FitDirect.
type DirectOptions struct {
	Name string
	// Rounds of attribution and fit (default 12: by then a fit has
	// settled to within a fraction of a percent).
	Rounds int
	// Prior is the pull of an op's parameters toward base's entry for it
	// (else its class's), in squared log units per unit of run weight
	// (default DefaultPrior; negative: none).
	Prior float64
	// FixHost keeps base's host parameters (for runs that cannot set
	// them, such as a suite part without the host models).
	FixHost bool
	// HostPrior is the pull of each host parameter toward base's, in
	// squared log units against the runs' weighted mean squared log error
	// (default 1e-4: a parameter the runs pin does not move for it; one
	// they do not stays at base's). Negative: none.
	HostPrior float64
}

// DefaultPrior is DirectOptions.Prior's default: an op's parameters are
// held to base's as if by a fifth of a run that measured them exactly
// (squared log units of time; the compute fraction's in the log of the
// fraction, priorGap). Chosen on the calibration suite alone: two
// calibrate --host measurements of the same quiet VM (2026-12-06), refit
// with 0.05, 0.2 and 0.8, predict the suite models each fit held back to
// 14.2/13.7%, 13.6/13.1% and 13.7/12.6% MAPE. A stronger pull makes two
// fits agree more closely and moves both toward the preset's error on
// real models (docs/calibration-protocol.md has the trade, measured).
const DefaultPrior = 0.2

// DirectResult is a direct fit.
type DirectResult struct {
	HW      *hw.Hardware
	Ops     []OpFit // ops fitted on their own, sorted; N: runs they were measured in
	Classes []ClassFit
	Host    []HostFit
}

// directParam is one host parameter fitDirectHost fits, in log space.
type directParam struct {
	name  string
	field func(*hw.Hardware) *float64
	probe float64 // the least value the fit starts from (see fitDirectHost)
	max   float64 // the largest value it may take (0: none)
	zero  float64 // where a parameter at 0 (not set) starts and is anchored (0: probe)
}

// maxUsPerMB bounds the host costs per MB (returning outputs, binding
// inputs, the first touch of node outputs): 500 us a MB is 2 GB/s, below
// a page fault per 4 KiB page at 2 us or a one-core copy on any server of
// the last decade; fits of the suite set 3-75 us/MB (AMD EPYC VM,
// 2026-12-07). A fit whose runs barely pin one (the profile route on a
// fold without large outputs) could otherwise leave it anywhere: 2,305
// us/MB once, which made a model with a 0.5 MB output 7x too slow.
const maxUsPerMB = 500

// directHost are the host parameters FitDirect fits (and the cache and
// memory bandwidths, whose ratio sets how much faster a tensor in cache
// streams than one in memory for every op: fitted together, so the ratio
// moves, not only the cache side; their common scale is shared with the
// ops' memory fractions and held by the prior) and the share of the
// cache the model's weights keep (cache_working_fraction: the suite's
// one-row GEMM chains of 0.6-0.95 of a 2 MiB L2 set it); dispatch per node
// and launch are folded into the ops' fixed times and set to zero.
var directHost = []directParam{
	// the per-MB host costs stop at maxUsPerMB
	{"run_overhead_us", func(h *hw.Hardware) *float64 { return &h.RunOverheadUs }, 0.5, 0, 0},
	{"free_node_us", func(h *hw.Hardware) *float64 { return &h.FreeNodeUs }, 0.05, 0, 0},
	{"output_us_per_mb", func(h *hw.Hardware) *float64 { return &h.OutputUsPerMB }, 1, maxUsPerMB, 0},
	{"alloc_us_per_mb", func(h *hw.Hardware) *float64 { return &h.AllocUsPerMB }, 1, maxUsPerMB, 0},
	{"subgraph_us", func(h *hw.Hardware) *float64 { return &h.SubgraphUs }, 0.05, 0, 0},
	{"input_us", func(h *hw.Hardware) *float64 { return &h.InputUs }, 0.05, 0, 0},
	{"output_us", func(h *hw.Hardware) *float64 { return &h.OutputUs }, 0.05, 0, 0},
	{"input_us_per_mb", func(h *hw.Hardware) *float64 { return &h.InputUsPerMB }, 1, maxUsPerMB, 0},
	{"shape_node_us", func(h *hw.Hardware) *float64 { return &h.ShapeNodeUs }, 0.05, 0, 0},
	// not set, it starts at (and is anchored to) 0.0093 us, ONNX
	// Runtime's broadcast loop per span on the AMD Zen 5 VM; the suite's
	// channels-last scale chains (32768 spans of 3, 8192 of 16) set it
	// (16.2 and 13.9 ns measured on a Zen 3 VM)
	{"broadcast_span_us", func(h *hw.Hardware) *float64 { return &h.BroadcastSpanUs }, 0.001, 0, 0.0093},
	{"cache_bandwidth_gbs", func(h *hw.Hardware) *float64 { return &h.CacheBandwidthGBs }, 10, 0, 0},
	{"memory_bandwidth_gbs", func(h *hw.Hardware) *float64 { return &h.MemoryBandwidthGBs }, 10, 0, 0},
	// not set, it starts at (and, where no run pins it, stays near) three
	// quarters of the cache: at 1 the share is a step that moves no
	// prediction, so a fit could not leave it
	{"cache_working_fraction", func(h *hw.Hardware) *float64 { return &h.CacheWorkingFraction }, 0.05, 1, 0.75},
	// not set, it starts at two rows (a GEMM of 2 rows at 1/2 of a large
	// one's speed); the suite's GEMM chains of 1-512 rows set it
	{"gemm_half_rows", func(h *hw.Hardware) *float64 { return &h.GEMMHalfRows }, 0.05, 0, 2},
	// not set, it starts at (and is anchored to) 0.3: the share of a
	// 2048x2048 GEMM's weight streaming past the L2 that 8-64 rows did not
	// hide (ORT 1.30, Intel Xeon VM, 2026-12-07); the suite's GEMM chains
	// of 1-128 rows with weights past the cache set it
	{"weight_stream_stall", func(h *hw.Hardware) *float64 { return &h.WeightStreamStall }, 0.01, 1, 0.3},
	// not set, it starts at (and is anchored to) 25 GB/s, a one-thread
	// server core's DRAM stream; the suite's one-row GEMM chains of 101
	// and 134 MB (past any 2-vCPU VM's L3 share) set it. Without l3_mb it
	// (and dram_stream_stall) moves no prediction and calibrate --host
	// drops it.
	{"dram_bandwidth_gbs", func(h *hw.Hardware) *float64 { return &h.DRAMBandwidthGBs }, 1, 0, 25},
	// not set, it starts at (and is anchored to) 1: a GEMM's packing
	// reads its weights from DRAM as fast as a stream, then multiplies;
	// the suite's 16-row chain of 134 MB sets it (ORT 1.30, one thread,
	// AMD EPYC VM: 1.0-1.2)
	{"dram_stream_stall", func(h *hw.Hardware) *float64 { return &h.DRAMStreamStall }, 0.05, 3, 1},
}

// FitDirect fits base (a CPU preset) to runs. base is not changed.
func FitDirect(base *hw.Hardware, runs []DirectRun, opt DirectOptions) (*DirectResult, error) {
	if base.Kind != "cpu" {
		return nil, fmt.Errorf("the direct fit is for CPU hardware")
	}
	if opt.Rounds <= 0 {
		opt.Rounds = 12
	}
	if opt.Prior == 0 {
		opt.Prior = DefaultPrior
	}
	opt.Prior = math.Max(opt.Prior, 0)
	if opt.HostPrior == 0 {
		opt.HostPrior = 1e-4
	}
	opt.HostPrior = math.Max(opt.HostPrior, 0)
	var fit []DirectRun
	for _, r := range runs {
		if !(r.Us > 0) || math.IsInf(r.Us, 0) {
			return nil, fmt.Errorf("%s: bad measured time %v", r.Label, r.Us)
		}
		if !r.HeldOut {
			fit = append(fit, r)
		}
	}
	if len(fit) == 0 {
		return nil, fmt.Errorf("no runs to fit")
	}
	h := base.Clone()
	if opt.Name != "" {
		h.Name = opt.Name
	}
	if !opt.FixHost {
		h.DispatchUs, h.LaunchUs, h.KernelOverheadUs = 0, 0, 0
	}
	if h.AllocMinMB == 0 {
		h.AllocMinMB = 1
	}
	if h.AllocUsPerMB == 0 {
		h.AllocUsPerMB = 10
	}
	if h.SubgraphUs == 0 {
		h.SubgraphUs = 1
	}
	if h.InputUs == 0 {
		h.InputUs = 1
	}
	if h.OutputUs == 0 {
		h.OutputUs = 1
	}
	if h.InputUsPerMB == 0 {
		h.InputUsPerMB = 1
	}
	if h.ShapeNodeUs == 0 {
		h.ShapeNodeUs = math.Max(h.FreeNodeUs, 0.1)
	}
	if h.Efficiency.Ops == nil { // ops no run measures keep base's
		h.Efficiency.Ops = map[string]hw.ClassEfficiency{}
	}
	res := &DirectResult{HW: h}
	before := make([]float64, len(directHost))
	for i, p := range directHost {
		before[i] = *p.field(base)
	}
	var counts map[string]int
	opClass := map[string]string{} // each op's class, as the cost model gives it
	fitHost := func() {
		if !opt.FixHost {
			fitDirectHost(h, base, fit, opt.HostPrior)
		}
	}
	for round := 0; round < opt.Rounds; round++ {
		fitHost()
		obs := attribute(h, fit, opClass)
		var weights map[string]float64
		var timed map[string]timedSpeeds
		counts, weights, timed = fitDirectOps(h, base, obs, opClass, opt.Prior)
		classMedians(h, base, opClass, weights)
		moveUnfitted(h, base, opClass, weights, timed)
	}
	fitHost()
	normalizeMemory(h)
	h.MemoryBandwidthGBs, h.CacheBandwidthGBs = round4(h.MemoryBandwidthGBs), round4(h.CacheBandwidthGBs)
	for i, p := range directHost {
		*p.field(h) = round4(*p.field(h))
		res.Host = append(res.Host, HostFit{Name: p.name, Before: before[i], After: *p.field(h)})
	}
	ops := make([]string, 0, len(h.Efficiency.Ops))
	for op := range h.Efficiency.Ops {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		e := h.Efficiency.Ops[op]
		e.Compute, e.Memory, e.OverheadUs, e.StepUs = round4(e.Compute), round4(e.Memory), round4(e.OverheadUs), round4(e.StepUs)
		h.Efficiency.Ops[op] = e
		res.Ops = append(res.Ops, OpFit{Op: op, Class: opClass[op], N: counts[op], After: e})
	}
	for _, c := range h.Efficiency.Classes() {
		res.Classes = append(res.Classes, ClassFit{Class: c.Name, Before: base.Efficiency.Class(c.Name), After: c.Eff})
	}
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("fitted hardware is invalid: %v", err)
	}
	return res, nil
}

// directObs is one kernel's share of a run's kernel time.
type directObs struct {
	cost   cost.Cost
	us     float64 // the kernel's time, µs
	weight float64 // its share of its run's kernel time
	run    int
	// the run's model and options: the kernel is timed in its model, as
	// the end-to-end prediction times it (whether the model's weights fit
	// in the cache together decides where the kernel reads its weights
	// from, hw cache_working_set)
	model *ir.Model
	opt   cost.Options
}

// PredictRun predicts r's end-to-end time on h, µs.
func PredictRun(h *hw.Hardware, r DirectRun) float64 {
	return predictRun(h, Run{Model: r.Model, Opt: r.Opt})
}

// attribute shares each run's measured kernel time (its time less the
// host costs and the nodes that are not kernels of one op) among its
// kernel nodes.
func attribute(h *hw.Hardware, runs []DirectRun, opClass map[string]string) map[string][]directObs {
	obs := map[string][]directObs{}
	for i, r := range runs {
		cm := cost.New(h, r.Model, r.Opt)
		type kn struct {
			n     *ir.Node
			e     cost.Estimate
			share float64
		}
		var ks []kn
		var kernelPred, splitSum float64
		for _, n := range r.Model.Graph.Nodes {
			e := cm.Node(n)
			if !usable(e) || e.Cost.Op == "" {
				continue
			}
			// the broadcast loop's time per span is a runtime cost the
			// host fit sets (broadcast_span_us), not the op's: it stays in
			// rest, out of the kernel's share
			span := spanUs(h, e.Cost)
			w := e.DeviceS*1e6 - span
			if s, ok := r.Split[n]; ok && s > 0 {
				w = math.Max(s-span, 0.01*s)
			}
			ks = append(ks, kn{n, e, w})
			kernelPred += e.DeviceS*1e6 - span // its host time (allocation) stays in rest
			splitSum += w
		}
		if len(ks) == 0 || splitSum <= 0 {
			continue
		}
		rest := predictRun(h, Run{Model: r.Model, Opt: r.Opt}) - kernelPred
		kernel := r.Us - rest
		if kernel <= 0.05*r.Us {
			continue // the host costs already account for the run
		}
		// what is attributed to the kernels is the run less the host
		// costs: its relative error is the run's times run/kernel, so a
		// run that is mostly host time says little of its kernels
		// (weight (kernel/run)^2), and a noisy run less (runWeight)
		trust := runWeight(r) * math.Pow(math.Min(1, kernel/r.Us), 2)
		for _, k := range ks {
			share := k.share / splitSum
			opClass[k.e.Cost.Op] = string(k.e.Cost.Class)
			obs[k.e.Cost.Op] = append(obs[k.e.Cost.Op], directObs{cost: k.e.Cost, us: kernel * share, weight: share * trust, run: i, model: r.Model, opt: r.Opt})
		}
	}
	return obs
}

// spanUs is the time of c's broadcast spans on h (cost.Cost.Spans, hw
// broadcast_span_us), µs: part of the kernel's estimate that the host fit
// sets, not the op's fit.
func spanUs(h *hw.Hardware, c cost.Cost) float64 {
	if c.Spans <= 1 {
		return 0
	}
	return c.Spans * h.BroadcastSpanUs
}

// fitDirectOps fits every op with observations to them, pulled toward
// base's entry for it or its class; it returns how many runs measured each
// op, the evidence for each (minOpWeight) and which of the fitted ops'
// speeds the runs timed.
func fitDirectOps(h, base *hw.Hardware, obs map[string][]directObs, opClass map[string]string, prior float64) (map[string]int, map[string]float64, map[string]timedSpeeds) {
	counts := map[string]int{}
	weights := map[string]float64{}
	timed := map[string]timedSpeeds{}
	ops := make([]string, 0, len(obs))
	for op := range obs {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		obsOp := obs[op]
		runs := map[int]bool{}
		var w float64
		for _, o := range obsOp {
			runs[o.run] = true
			w += o.weight
		}
		counts[op] = len(runs)
		weights[op] = w
		if w < minOpWeight {
			continue // never more than a fifth of a run: its class serves
		}
		class := opClass[op]
		start, ok := h.Efficiency.Ops[op]
		if !ok {
			start = h.Efficiency.Class(class)
		}
		// pulled toward what base knows of the op (a file fitted before),
		// else toward its class
		anchor, known := base.Efficiency.Ops[op]
		if !known {
			anchor = h.Efficiency.Class(class)
		}
		h.Efficiency.Ops[op], timed[op] = fitDirectOp(h, op, anchor, start, obsOp, prior)
	}
	return counts, weights, timed
}

// timedSpeeds says which of an op's speeds its runs timed: a run where
// the op's arithmetic (compute) or its memory traffic (memory) took at
// least minTimedShare of the kernel's time, as fitted. A speed no run timed
// is its anchor's, held by the prior, not this machine's.
type timedSpeeds struct{ compute, memory bool }

// minTimedShare is the share of a kernel's time its arithmetic or its
// memory traffic must take for a run to time that speed: below it the
// speed moves the run by less than half as much as it changes, and trades
// against the fixed time.
const minTimedShare = 0.5

// moveUnfitted moves the speeds of base's ops the runs did not fit (too
// little evidence, minOpWeight, or not in any run) as the fitted ops moved
// from base: each speed by the median ratio, fitted over base, of the
// ops whose runs timed it, in the op's class (else in all classes). The
// calibration suite times some ops only on tiny tensors or not at all
// (LeakyRelu, HardSigmoid, Clip, Tanh on feature maps): base's speeds for
// them were measured on base's machine, and on a CPU with half the vector
// width they would stay twice too fast while every op the suite times
// slowed down (cpu-1t's AMD Zen 5 fit calibrated on a Zen 3 VM,
// 2026-12-07: GEMM and transcendental ops 0.4-0.85x, 17 op entries left
// at Zen 5's).
func moveUnfitted(h, base *hw.Hardware, opClass map[string]string, weights map[string]float64, timed map[string]timedSpeeds) {
	type ratio struct{ compute, memory []float64 }
	byClass := map[string]*ratio{}
	all := &ratio{}
	for op, t := range timed {
		was, ok := base.Efficiency.Ops[op]
		if !ok {
			was = base.Efficiency.Class(opClass[op])
		}
		now := h.Efficiency.Ops[op]
		r := byClass[opClass[op]]
		if r == nil {
			r = &ratio{}
			byClass[opClass[op]] = r
		}
		if t.compute && was.Compute > 0 {
			r.compute = append(r.compute, now.Compute/was.Compute)
			all.compute = append(all.compute, now.Compute/was.Compute)
		}
		if t.memory && was.Memory > 0 {
			r.memory = append(r.memory, now.Memory/was.Memory)
			all.memory = append(all.memory, now.Memory/was.Memory)
		}
	}
	pick := func(class []float64, all []float64) float64 {
		if len(class) > 0 {
			return Median(class)
		}
		if len(all) > 0 {
			return Median(all)
		}
		return 1
	}
	for op, e := range base.Efficiency.Ops {
		if weights[op] >= minOpWeight {
			continue // fitted
		}
		class := opClass[op]
		if class == "" {
			class = opKeyClass(op)
		}
		r := byClass[class]
		if r == nil {
			r = &ratio{}
		}
		e.Compute = math.Min(1, e.Compute*pick(r.compute, all.compute))
		e.Memory = math.Min(maxMemoryFraction, e.Memory*pick(r.memory, all.memory))
		h.Efficiency.Ops[op] = e
	}
}

// opKeyClass is the cost model's class of an op key (hw efficiency.ops:
// "domain:Op/variant"), for an op no run ran.
func opKeyClass(key string) string {
	domain, op := "", key
	if i := strings.LastIndex(op, ":"); i >= 0 {
		domain, op = op[:i], op[i+1:]
	}
	if i := strings.Index(op, "/"); i >= 0 {
		if op[i+1:] == "depthwise" {
			return string(cost.Depthwise)
		}
		op = op[:i]
	}
	return string(cost.ClassOf(domain, op))
}

// encodeEff maps an efficiency to the fit's unbounded space: compute,
// memory, fixed time per call and, for ops that loop inside a call, fixed
// time per further step (a step time of 0 is the call's).
func encodeEff(e hw.ClassEfficiency) []float64 {
	step := e.StepUs
	if step <= 0 {
		step = e.OverheadUs
	}
	return []float64{logit(e.Compute), math.Log(math.Max(e.Memory, 1e-4)), math.Log(math.Max(e.OverheadUs, minOverheadUs)), math.Log(math.Max(step, minOverheadUs))}
}

// decodeEff is encodeEff's inverse. The memory fraction may exceed 1 in
// the fit (tensors in cache stream faster than the preset's bandwidth);
// normalizeMemory brings it back into (0, 1]. The step time is kept only
// when stepped (the op loops inside its calls).
func decodeEff(x []float64, stepped bool) hw.ClassEfficiency {
	e := hw.ClassEfficiency{Compute: logistic(x[0]), Memory: math.Min(maxMemoryFraction, math.Exp(x[1])), OverheadUs: math.Exp(x[2])}
	if stepped && len(x) > 3 {
		e.StepUs = math.Exp(x[3])
	}
	return e
}

// priorGap is how far parameter i of x lies from the anchor's xa, in the
// unit the runs' residuals use (the log of a time): the log of the
// compute fraction, not its logit. In logit units a fraction near 1 is
// held far harder than the prior's stated strength (at 0.97 one unit of
// log time is 33 logit units, so the pull of a fifth of a run weighed as
// some 200 runs): the fit kept a compute fraction its GEMM runs put 15%
// lower (docs/calibration-protocol.md, "The prior's unit").
func priorGap(x, xa []float64, i int) float64 {
	if i == 0 {
		return logLogistic(x[0]) - logLogistic(xa[0])
	}
	return x[i] - xa[i]
}

// logLogistic is log(logistic(u)), without underflow for very negative u.
func logLogistic(u float64) float64 {
	if u < -30 {
		return u
	}
	return -math.Log1p(math.Exp(-u))
}

// maxMemoryFraction bounds a memory fraction during the fit.
const maxMemoryFraction = 16

// normalizeMemory raises the bandwidths by the largest memory fraction
// and divides every fraction by it: the same predictions, fractions in
// (0, 1].
func normalizeMemory(h *hw.Hardware) {
	scale := 1.0
	for _, c := range h.Efficiency.Classes() {
		scale = math.Max(scale, c.Eff.Memory)
	}
	for _, e := range h.Efficiency.Ops {
		scale = math.Max(scale, e.Memory)
	}
	if scale <= 1 {
		return
	}
	h.MemoryBandwidthGBs *= scale
	h.CacheBandwidthGBs *= scale
	for _, c := range h.Efficiency.Classes() {
		e := c.Eff
		e.Memory /= scale
		setClass(&h.Efficiency, c.Name, e)
	}
	for op, e := range h.Efficiency.Ops {
		e.Memory /= scale
		h.Efficiency.Ops[op] = e
	}
}

// fitDirectOp fits one op: weighted log ratios of predicted to attributed
// kernel times, and a pull of every parameter toward anchor's.
func fitDirectOp(h *hw.Hardware, op string, anchor, start hw.ClassEfficiency, os []directObs, prior float64) (hw.ClassEfficiency, timedSpeeds) {
	t := h.Clone()
	stepped := false // the op loops inside its calls in some run (an RNN on a CPU)
	for _, o := range os {
		stepped = stepped || o.cost.Steps > 1
	}
	xa := encodeEff(anchor)
	if !stepped {
		xa = xa[:3]
	}
	// one estimator per run model, fresh at each evaluation (t changed):
	// reset rather than allocated anew
	cms := map[*ir.Model]*cost.Model{}
	fresh := map[*ir.Model]bool{}
	resid := func(x, r []float64) []float64 {
		r = r[:0]
		t.Efficiency.Ops[op] = decodeEff(x, stepped)
		clear(fresh)
		for _, o := range os {
			cm := cms[o.model]
			switch {
			case cm == nil:
				cm = cost.New(t, o.model, o.opt)
				cms[o.model] = cm
			case !fresh[o.model]:
				cm.Reset(t, o.model, o.opt)
			}
			fresh[o.model] = true
			p := cm.Time(o.cost).DeviceS*1e6 - spanUs(t, o.cost)
			r = append(r, math.Sqrt(o.weight)*(math.Log(math.Max(p, 0.01))-math.Log(math.Max(o.us, 0.01))))
		}
		for i := range x {
			r = append(r, math.Sqrt(prior)*priorGap(x, xa, i))
		}
		if len(x) > 3 {
			// a step costs what a call costs unless the runs say otherwise
			// (the two trade off wherever an op is seen at one length): a
			// quarter of the anchor's pull, enough to keep two fits of the
			// same machine together (TestFitDirectStable) without holding
			// the host costs off (TestFitDirectRecovers)
			r = append(r, math.Sqrt(prior/4)*(x[3]-x[2]))
		}
		return r
	}
	// the max() of compute and memory time makes the loss piecewise: start
	// from the current value and a fixed grid, keep the best
	trim := func(x []float64) []float64 { return x[:len(xa)] }
	starts := [][]float64{trim(encodeEff(start)), xa}
	for _, c := range []float64{0.05, 0.3, 0.8} {
		for _, m := range []float64{0.1, 0.5} {
			for _, o := range []float64{0.3, 3} {
				starts = append(starts, trim(encodeEff(hw.ClassEfficiency{Compute: c, Memory: m, OverheadUs: o})))
			}
		}
	}
	best := bestOfStarts(resid, starts)
	fitted := decodeEff(best, stepped)
	var timed timedSpeeds
	t.Efficiency.Ops[op] = fitted
	clear(fresh)
	for _, o := range os {
		cm := cms[o.model]
		if !fresh[o.model] {
			cm.Reset(t, o.model, o.opt)
			fresh[o.model] = true
		}
		e := cm.Time(o.cost)
		timed.compute = timed.compute || e.ComputeS >= minTimedShare*e.DeviceS && e.DeviceS > 0
		timed.memory = timed.memory || e.MemoryS >= minTimedShare*e.DeviceS && e.DeviceS > 0
	}
	return fitted, timed
}

// classMedians sets each class with fitted ops to the weighted median of
// their parameters (in the fit's space; each op weighs the share of run
// time it was measured in, so a class's common op outweighs a rare one):
// what an op no run measured gets.
func classMedians(h, base *hw.Hardware, opClass map[string]string, weights map[string]float64) {
	type wx struct {
		x []float64
		w float64
	}
	byClass := map[string][]wx{}
	for op, e := range h.Efficiency.Ops {
		c := opClass[op]
		byClass[c] = append(byClass[c], wx{encodeEff(e), weights[op]})
	}
	for _, c := range base.Efficiency.Classes() {
		xs := byClass[c.Name]
		if len(xs) == 0 {
			setClass(&h.Efficiency, c.Name, c.Eff)
			continue
		}
		m := make([]float64, 4)
		for i := range m {
			col := append([]wx(nil), xs...)
			sort.Slice(col, func(a, b int) bool { return col[a].x[i] < col[b].x[i] })
			var total, acc float64
			for _, v := range col {
				total += v.w
			}
			for _, v := range col {
				acc += v.w
				if acc >= total/2 {
					m[i] = v.x[i]
					break
				}
			}
		}
		e := decodeEff(m, false)
		if c.Name == "rnn" { // the class of ops that loop inside a call
			e = decodeEff(m, true)
		}
		setClass(&h.Efficiency, c.Name, e)
	}
}

// fitDirectHost fits the host parameters to the runs' relative errors, the
// ops held fixed. Each run weighs runWeight (its measured noise); each
// parameter is pulled toward base's value (the preset the fit starts from)
// with strength prior, in log units: a parameter the runs barely pin (a
// term few runs exercise, or runs too noisy to agree) stays near the
// preset instead of drifting with the noise. A parameter starts, and is
// anchored, no lower than its probe (a size at which it moves a run by a
// measurable amount): from a value of 0.01 µs/MB, a log-space fit cannot
// climb to 20.
func fitDirectHost(h, base *hw.Hardware, runs []DirectRun, prior float64) {
	n := len(directHost)
	x0 := make([]float64, n)
	xa := make([]float64, n)
	start := func(p directParam, h *hw.Hardware) float64 {
		if v := *p.field(h); v == 0 && p.zero > 0 {
			return math.Log(p.zero)
		}
		return math.Log(math.Max(*p.field(h), p.probe))
	}
	for i, p := range directHost {
		x0[i] = start(p, h)
		xa[i] = start(p, base)
	}
	set := func(x []float64) {
		for i, p := range directHost {
			v := math.Exp(x[i])
			if p.max > 0 {
				v = math.Min(v, p.max)
			}
			*p.field(h) = v
		}
	}
	var wsum float64
	for _, run := range runs {
		wsum += runWeight(run)
	}
	resid := func(x, r []float64) []float64 {
		set(x)
		r = r[:0]
		for _, run := range runs {
			p := predictRun(h, Run{Model: run.Model, Opt: run.Opt})
			r = append(r, math.Sqrt(runWeight(run)/wsum)*(math.Log(math.Max(p, 0.01))-math.Log(run.Us)))
		}
		for i := range x {
			r = append(r, math.Sqrt(prior)*priorGap(x, xa, i))
		}
		return r
	}
	set(levmar(resid, x0))
}

// runWeight is how much a run counts in the fit: 1 for a run measured to
// within its noise floor (NoisePct <= noiseFloorPct), falling as the
// square of its noise beyond (a run whose median is known to +-9% weighs
// a tenth of one known to +-3%).
func runWeight(r DirectRun) float64 {
	if r.NoisePct <= noiseFloorPct {
		return 1
	}
	q := r.NoisePct / noiseFloorPct
	return 1 / (q * q)
}

// noiseFloorPct is the measurement noise (95% half-width of a run's
// median, %) below which runs count alike: the target calibrate --host
// measures every run to.
const noiseFloorPct = 3

// minOpWeight is the least evidence (the shares of run time an op was
// measured in, each weighed by how far its run can be trusted) for which
// an op gets parameters of its own; below it, its class's serve.
const minOpWeight = 0.2
