package calibrate

// This file implements the fit of a hardware file's efficiency parameters.

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// Obs is one measured kernel with its hardware-independent cost.
type Obs struct {
	Label string // node name or op signature, for messages
	Op    string
	Cost  cost.Cost
	Us    float64 // measured, µs
	// RunUs is the measured end-to-end time of the run the kernel belongs
	// to (0: a kernel measured on its own). A kernel's error then counts
	// as a share of its run's time, so every run weighs the same in the
	// fit, however long it is, and a kernel weighs what it adds to its run.
	RunUs float64
}

// Run is one measured end-to-end run of a model.
type Run struct {
	Label string
	Model *ir.Model
	Us    float64      // measured, µs
	Opt   cost.Options // how the measured runtime ran it (NoFold: every node)
	// Weight is how much the run counts in the fit of the host times and
	// the joint refinement, relative to the others (0: 1).
	Weight float64
}

// runWeights are the runs' weights normalized to mean 1.
func runWeights(runs []Run) []float64 {
	w := make([]float64, len(runs))
	var sum float64
	for i, r := range runs {
		w[i] = r.Weight
		if w[i] <= 0 {
			w[i] = 1
		}
		sum += w[i]
	}
	for i := range w {
		w[i] *= float64(len(w)) / sum
	}
	return w
}

// Observations turns matched pairs into fit observations: nodes whose cost
// is known and that launch a kernel of one op class (not control flow, free
// or fused nodes).
// runUs is the measured end-to-end time of the run (0 if unknown).
func Observations(base *hw.Hardware, m *ir.Model, pairs []Pair, opt cost.Options, runUs float64) []Obs {
	cm := cost.New(base, m, opt)
	var obs []Obs
	for _, p := range pairs {
		e := cm.Node(p.Node)
		if usable(e) {
			obs = append(obs, Obs{Label: ir.NodeLabel(p.Node), Op: p.Node.Op, Cost: e.Cost, Us: p.Sample.Us, RunUs: runUs})
		}
	}
	return obs
}

// SampleObs costs samples measured without a model (table and trace rows)
// on one-node models. Rows whose cost is unknown are returned as skipped
// (one line each).
func SampleObs(base *hw.Hardware, samples []Sample) (obs []Obs, skipped []string) {
	for i := range samples {
		s := &samples[i]
		m, n, err := NodeModel(s)
		label := s.Name
		if label == "" {
			attrs, _ := FormatAttrs(s.Attrs)
			label = fmt.Sprintf("%s %s %s %s", s.Op, s.DType, FormatInputs(s.Inputs, s.DType), attrs)
		}
		if err != nil {
			skipped = append(skipped, label+": "+err.Error())
			continue
		}
		if cost.IsView(n) {
			// its one-node model hands the view out as the model's
			// output, a copy; in the model it was timed in it is free
			skipped = append(skipped, label+": a view (no kernel inside a model)")
			continue
		}
		e := cost.New(base, m, cost.Options{}).Node(n)
		if !usable(e) {
			why := e.Why
			if why == "" {
				why = "no kernel (class " + string(e.Class) + ")"
			}
			skipped = append(skipped, label+": "+why)
			continue
		}
		obs = append(obs, Obs{Label: label, Op: s.Op, Cost: e.Cost, Us: s.Us})
	}
	return obs, skipped
}

func usable(e cost.Estimate) bool {
	switch e.Class {
	case cost.Free, cost.Control, cost.Fused, "":
		return false
	}
	return !e.Unknown && e.Kernels > 0
}

// MinClassKernels is the fewest measured kernels a class is fitted on.
const MinClassKernels = 5

// MinOpKernels is the fewest measured kernels, from at least two runs, an
// op type gets an efficiency of its own from.
const MinOpKernels = 3

// OpFit is the fit of one op type's own efficiency.
type OpFit struct {
	Op, Class string
	N         int
	After     hw.ClassEfficiency
	MAPEAfter float64
}

func distinctRuns(os []Obs) int {
	seen := map[float64]bool{}
	for _, o := range os {
		seen[o.RunUs] = true
	}
	return len(seen)
}

func byOpOf(obs []Obs, op string) []Obs {
	var out []Obs
	for _, o := range obs {
		if o.Cost.Op == op {
			out = append(out, o)
		}
	}
	return out
}

// ClassFit is the fit of one op class.
type ClassFit struct {
	Class         string
	N             int
	Kept          bool // too few kernels (< MinClassKernels): base parameters kept
	Before, After hw.ClassEfficiency
	// Error of the class's kernels: mean absolute % per kernel, and the
	// % error of the class's summed time, before and after.
	MAPEBefore, MAPEAfter     float64
	SumErrBefore, SumErrAfter float64
}

// Result is a calibration.
type Result struct {
	HW      *hw.Hardware
	Classes []ClassFit // classes with observations, schema order
	Ops     []OpFit    // op types fitted on their own, sorted
	// Host parameters fitted to end-to-end runs (Runs == 0: not fitted).
	Runs                        int
	Host                        []HostFit
	RunMAPEBefore, RunMAPEAfter float64
	// Joint: the parameters were refined together against the runs.
	Joint bool
}

// HostFit is one fitted host-side parameter (hw JSON name, µs).
type HostFit struct {
	Name          string
	Before, After float64
}

// Options steer a fit.
type Options struct {
	// Name of the fitted hardware (default: base name + "-calibrated").
	Name string
	// Prior is the weight of the pull toward the base parameters (default 0.001).
	Prior float64
	// FixHost keeps the base's host times; the runs then inform only the
	// joint refinement of the kernel parameters and bandwidths.
	FixHost bool
	// NoJoint skips the joint refinement of a CPU fit (every parameter
	// at once against the end-to-end runs, kernels as a light pull).
	NoJoint bool
	// NoPerOp keeps every op on its class's efficiency (no hw
	// efficiency.ops entries).
	NoPerOp bool
	// JointPrior is the pull of the joint refinement toward the staged fit
	// (default Prior / 100).
	JointPrior float64
}

// Fit fits base's per-class efficiencies to obs and, when runs are given,
// its per-node dispatch time to their end-to-end times. base is not changed.
func Fit(base *hw.Hardware, obs []Obs, runs []Run, opt Options) (*Result, error) {
	if len(obs) == 0 {
		return nil, fmt.Errorf("no measured kernels to fit (every sample was free, unknown or unmatched)")
	}
	if opt.Prior <= 0 {
		opt.Prior = 0.001
	}
	h := base.Clone()
	h.Name = opt.Name
	if h.Name == "" {
		h.Name = base.Name + "-calibrated"
	}
	res := &Result{HW: h}
	byClass := map[string][]Obs{}
	for _, o := range obs {
		if !(o.Us >= 0) || math.IsInf(o.Us, 0) {
			return nil, fmt.Errorf("%s: bad measured time %v", o.Label, o.Us)
		}
		byClass[string(o.Cost.Class)] = append(byClass[string(o.Cost.Class)], o)
	}
	for _, nc := range base.Efficiency.Classes() {
		os := byClass[nc.Name]
		if len(os) == 0 {
			continue
		}
		if len(os) < MinClassKernels {
			// too few kernels to set three parameters: keep the base ones
			cf := ClassFit{Class: nc.Name, N: len(os), Before: nc.Eff, After: nc.Eff, Kept: true}
			cf.MAPEBefore, cf.SumErrBefore = classError(base, os)
			cf.MAPEAfter, cf.SumErrAfter = cf.MAPEBefore, cf.SumErrBefore
			res.Classes = append(res.Classes, cf)
			continue
		}
		after := fitClass(base, nc.Name, os, opt.Prior)
		setClass(&h.Efficiency, nc.Name, after)
		cf := ClassFit{Class: nc.Name, N: len(os), Before: nc.Eff, After: after}
		cf.MAPEBefore, cf.SumErrBefore = classError(base, os)
		cf.MAPEAfter, cf.SumErrAfter = classError(h, os)
		res.Classes = append(res.Classes, cf)
	}
	if !opt.NoPerOp {
		res.Ops = fitOps(h, obs, 10*opt.Prior)
	}
	// Memory efficiencies are fitted unbounded above (exp): a class whose
	// tensors stay in cache sustains more than the preset's DRAM bandwidth.
	// The bandwidth is raised to the largest, and every class's fraction
	// divided by the same factor: the same predictions, fractions in (0, 1].
	scale := 1.0
	for _, c := range h.Efficiency.Classes() {
		scale = math.Max(scale, c.Eff.Memory)
	}
	for _, e := range h.Efficiency.Ops {
		scale = math.Max(scale, e.Memory)
	}
	if scale > 1 {
		h.MemoryBandwidthGBs = round4(base.MemoryBandwidthGBs * scale)
		scale = h.MemoryBandwidthGBs / base.MemoryBandwidthGBs
		h.CacheBandwidthGBs = base.CacheBandwidthGBs * scale
		h.Assumptions = append(append([]string(nil), base.Assumptions...), fmt.Sprintf("memory_bandwidth_gbs raised from %.4g to %.4g by calibration: measured kernels sustained more than the preset's bandwidth (cache-resident tensors); class memory fractions are relative to the raised figure", base.MemoryBandwidthGBs, h.MemoryBandwidthGBs))
	}
	for _, c := range h.Efficiency.Classes() {
		e := c.Eff
		e.Memory = math.Min(1, round4(e.Memory/scale))
		setClass(&h.Efficiency, c.Name, e)
	}
	for op, e := range h.Efficiency.Ops {
		e.Memory = math.Min(1, round4(e.Memory/scale))
		h.Efficiency.Ops[op] = e
	}
	res.refreshAfter(obs, byClass)
	// Runs whose prediction rests on an assumed loop trip count, or has
	// nodes of unknown cost, cannot inform the dispatch time.
	var usableRuns []Run
	for _, r := range runs {
		if reliableRun(h, r) {
			usableRuns = append(usableRuns, r)
		}
	}
	runs = usableRuns
	if len(runs) > 0 {
		res.Runs = len(runs)
		res.RunMAPEBefore = runError(h, runs)
		if !opt.FixHost {
			res.Host = fitHost(h, runs, opt.Prior)
		}
		if h.Kind == "cpu" && !opt.NoJoint {
			var classes, ops []string
			for _, c := range res.Classes {
				if !c.Kept {
					classes = append(classes, c.Class)
				}
			}
			for _, o := range res.Ops {
				ops = append(ops, o.Op)
			}
			jp := opt.JointPrior
			if jp <= 0 {
				jp = opt.Prior * 0.01
			}
			refineJoint(h, obs, runs, classes, ops, jp, !opt.FixHost)
			res.Joint = true
			for i := range res.Host {
				res.Host[i].After = *hostParams[i].field(h)
			}
			res.refreshAfter(obs, byClass)
		}
		res.RunMAPEAfter = runError(h, runs)
	}
	h.Sources = append(append([]string(nil), base.Sources...), fmt.Sprintf("wolong calibrate: efficiencies fitted to %d measured kernels%s, starting from preset %s", len(obs), runsText(len(runs)), base.Name))
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("fitted hardware is invalid: %v", err)
	}
	return res, nil
}

// fitOps gives each op measured at least MinOpKernels times in two or
// more runs an efficiency of its own (in h.Efficiency.Ops), fitted from
// its class's with the given prior pull, and returns the fits by op name.
func fitOps(h *hw.Hardware, obs []Obs, prior float64) []OpFit {
	byOp := map[string][]Obs{}
	for _, o := range obs {
		if o.Cost.Op != "" {
			byOp[o.Cost.Op] = append(byOp[o.Cost.Op], o)
		}
	}
	ops := make([]string, 0, len(byOp))
	for op, os := range byOp {
		if len(os) >= MinOpKernels && distinctRuns(os) >= 2 {
			ops = append(ops, op)
		}
	}
	sort.Strings(ops)
	var fits []OpFit
	for _, op := range ops {
		os := byOp[op]
		class := string(os[0].Cost.Class)
		start := h.Efficiency.Class(class)
		after := fitOp(h, op, start, os, prior)
		if h.Efficiency.Ops == nil {
			h.Efficiency.Ops = map[string]hw.ClassEfficiency{}
		}
		h.Efficiency.Ops[op] = after
		fits = append(fits, OpFit{Op: op, Class: class, N: len(os), After: after})
	}
	return fits
}

// refreshAfter sets every class's and op's After efficiency and error
// from the fitted hardware res.HW.
func (res *Result) refreshAfter(obs []Obs, byClass map[string][]Obs) {
	h := res.HW
	for i := range res.Ops {
		res.Ops[i].After = h.Efficiency.Ops[res.Ops[i].Op]
		res.Ops[i].MAPEAfter, _ = classError(h, byOpOf(obs, res.Ops[i].Op))
	}
	for i := range res.Classes {
		res.Classes[i].After = h.Efficiency.Class(res.Classes[i].Class)
		res.Classes[i].MAPEAfter, res.Classes[i].SumErrAfter = classError(h, byClass[res.Classes[i].Class])
	}
}

func runsText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" and host times (dispatch per node, per run, per MB allocated) to %d end-to-end runs", n)
}

func setClass(e *hw.Efficiency, name string, c hw.ClassEfficiency) {
	p := map[string]*hw.ClassEfficiency{
		"matmul": &e.MatMul, "conv": &e.Conv, "depthwise": &e.Depthwise, "attention": &e.Attention, "rnn": &e.RNN,
		"elementwise": &e.Elementwise, "reduction": &e.Reduction, "normalization": &e.Normalization,
		"data_movement": &e.DataMovement, "other": &e.Other,
	}[name]
	if p != nil {
		*p = c
	}
}

// Parametrisation: fractions through the logistic function, overheads
// through exp, so no fitted value leaves its range.
func logistic(u float64) float64 { return 1 / (1 + math.Exp(-u)) }
func logit(f float64) float64 {
	f = math.Min(math.Max(f, 1e-4), 1-1e-4)
	return math.Log(f / (1 - f))
}

const minOverheadUs = 0.01

// weight of one observation in the fit: heavier kernels count more (they
// dominate a model's time), but not linearly (noise on one large kernel
// should not decide a class).
func weight(us float64) float64 { return math.Sqrt(math.Max(us, 0.5)) }

func fitClass(base *hw.Hardware, class string, os []Obs, prior float64) hw.ClassEfficiency {
	return fitEff(base, base.Efficiency.Class(class), func(e *hw.Efficiency, c hw.ClassEfficiency) { setClass(e, class, c) }, os, prior)
}

// fitOp fits op's own efficiency, starting from (and pulled toward) start,
// its class's fitted values.
func fitOp(base *hw.Hardware, op string, start hw.ClassEfficiency, os []Obs, prior float64) hw.ClassEfficiency {
	return fitEff(base, start, func(e *hw.Efficiency, c hw.ClassEfficiency) {
		if e.Ops == nil {
			e.Ops = map[string]hw.ClassEfficiency{}
		}
		e.Ops[op] = c
	}, os, prior)
}

// fitEff fits one efficiency triple (set writes it into a hardware
// copy) to os, from start.
func fitEff(base *hw.Hardware, start hw.ClassEfficiency, set func(*hw.Efficiency, hw.ClassEfficiency), os []Obs, prior float64) hw.ClassEfficiency {
	x0 := []float64{logit(start.Compute), math.Log(math.Max(start.Memory, 1e-4)), math.Log(math.Max(start.OverheadUs, 0.5))}
	h := base.Clone()
	var wsum float64
	runs := map[float64]bool{}
	for _, o := range os {
		wsum += weight(o.Us)
		if o.RunUs > 0 {
			runs[o.RunUs] = true
		}
	}
	nRuns := math.Max(1, float64(len(runs)))
	decode := func(x []float64) hw.ClassEfficiency {
		return hw.ClassEfficiency{Compute: logistic(x[0]), Memory: math.Exp(x[1]), OverheadUs: math.Exp(x[2])}
	}
	// residuals: weighted log ratios, then the prior's pull
	resid := func(x []float64, r []float64) []float64 {
		r = r[:0]
		set(&h.Efficiency, decode(x))
		cm := cost.New(h, nil, cost.Options{})
		for _, o := range os {
			p := cm.Time(o.Cost).DeviceS * 1e6
			d := math.Log(math.Max(p, 0.05)) - math.Log(math.Max(o.Us, 0.5))
			if o.RunUs > 0 {
				// the error as a share of the run, plus a light pull on
				// the kernel's own ratio
				r = append(r, (p-o.Us)/o.RunUs/math.Sqrt(nRuns), 0.1*math.Sqrt(weight(o.Us)/wsum)*d)
				continue
			}
			r = append(r, math.Sqrt(weight(o.Us)/wsum)*d)
		}
		for i := 0; i < 2; i++ { // fractions only: an overhead the data do not set stays put
			r = append(r, math.Sqrt(prior)*(x[i]-x0[i]))
		}
		return r
	}
	// Multi-start: the max() of compute and memory time makes the loss
	// piecewise, so LM from the preset alone can stop in a poor basin. Start
	// from the preset and from a fixed grid (deterministic), keep the best.
	starts := [][]float64{x0}
	for _, c := range []float64{0.05, 0.2, 0.6} {
		for _, m := range []float64{0.05, 0.2, 0.8} {
			for _, o := range []float64{0.5, 5} {
				starts = append(starts, []float64{logit(c), math.Log(m), math.Log(o)})
			}
		}
	}
	best := bestOfStarts(resid, starts)
	c := decode(best)
	c.Compute, c.OverheadUs = round4(c.Compute), round4(c.OverheadUs)
	if c.OverheadUs < 2*minOverheadUs {
		c.OverheadUs = 0
	}
	return c
}

// round4 rounds to 4 significant digits, so tiny numerical differences do
// not change the written file.
func round4(v float64) float64 {
	if v == 0 {
		return 0
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return f
}

func classError(h *hw.Hardware, os []Obs) (mape, sumErr float64) {
	cm := cost.New(h, nil, cost.Options{})
	var sp, sm float64
	for _, o := range os {
		p := cm.Time(o.Cost).DeviceS * 1e6
		m := math.Max(o.Us, 0.5)
		mape += math.Abs(p-m) / m
		sp += p
		sm += m
	}
	return 100 * mape / float64(len(os)), 100 * (sp - sm) / sm
}

// reliableRun reports whether r's prediction rests only on known costs and
// static trip counts.
func reliableRun(h *hw.Hardware, r Run) bool {
	cm := cost.New(h, r.Model, r.Opt)
	for _, n := range r.Model.Graph.Nodes {
		if cm.Node(n).Unknown {
			return false
		}
	}
	for _, note := range cm.Notes() {
		if strings.Contains(note, "not static, assumed") {
			return false
		}
	}
	return true
}

// predictRun is the predicted end-to-end time of r on h, µs: the run's
// host overhead, then the nodes one after another (a CPU runtime's
// sequential executor).
func predictRun(h *hw.Hardware, r Run) float64 {
	cm, _ := models.Get().(*cost.Model)
	if cm == nil {
		cm = cost.New(h, r.Model, r.Opt)
	} else {
		cm.Reset(h, r.Model, r.Opt)
	}
	defer models.Put(cm)
	before, after := cm.RunS(r.Model.Graph)
	t := (before + after) * 1e6
	for _, n := range r.Model.Graph.Nodes {
		e := cm.Node(n)
		t += (e.DeviceS + e.HostS) * 1e6
	}
	return t
}

// models keeps the estimators predictRun reuses (a fit calls it for every
// run at every step).
var models sync.Pool

func runError(h *hw.Hardware, runs []Run) float64 {
	var s float64
	for _, r := range runs {
		m := math.Max(r.Us, 0.5)
		s += math.Abs(predictRun(h, r)-m) / m
	}
	return 100 * s / float64(len(runs))
}

// hostParams are the host-side parameters a run fit sets, with the floor a
// start value gets (a zero start could not move in log space).
var hostParams = []struct {
	name  string
	field func(*hw.Hardware) *float64
	floor float64
}{
	{"dispatch_us", func(h *hw.Hardware) *float64 { return &h.DispatchUs }, 0.1},
	{"run_overhead_us", func(h *hw.Hardware) *float64 { return &h.RunOverheadUs }, 1},
	{"alloc_us_per_mb", func(h *hw.Hardware) *float64 { return &h.AllocUsPerMB }, 0.1},
	{"free_node_us", func(h *hw.Hardware) *float64 { return &h.FreeNodeUs }, 0.1},
	{"output_us_per_mb", func(h *hw.Hardware) *float64 { return &h.OutputUsPerMB }, 0.1},
}

// fitHost fits h's host parameters (dispatch per node, overhead per run,
// time per MB allocated) to the end-to-end runs and sets them in h: least
// squares of log ratios, each parameter exp(x) so none goes negative, with
// a weak pull toward the start values. The predicted time is linear in the
// parameters, so each run is costed once per parameter.
func fitHost(h *hw.Hardware, runs []Run, prior float64) []HostFit {
	np := len(hostParams)
	start := make([]float64, np)
	for i, p := range hostParams {
		start[i] = *p.field(h)
	}
	type lin struct {
		a, m float64
		k    []float64
	}
	ls := make([]lin, len(runs))
	rw := runWeights(runs)
	for i, r := range runs {
		for _, p := range hostParams {
			*p.field(h) = 0
		}
		a := predictRun(h, r)
		l := lin{a: a, m: math.Max(r.Us, 0.5), k: make([]float64, np)}
		for j, p := range hostParams {
			*p.field(h) = 1
			l.k[j] = predictRun(h, r) - a
			*p.field(h) = 0
		}
		ls[i] = l
	}
	x0 := make([]float64, np)
	for i, p := range hostParams {
		x0[i] = math.Log(math.Max(start[i], p.floor))
	}
	resid := func(x []float64, r []float64) []float64 {
		r = r[:0]
		for i, l := range ls {
			p := l.a
			for j := range x {
				p += l.k[j] * math.Exp(x[j])
			}
			r = append(r, math.Sqrt(rw[i])*(p-l.m)/l.m/math.Sqrt(float64(len(ls))))
		}
		for j := range x {
			r = append(r, math.Sqrt(prior)*(x[j]-x0[j]))
		}
		return r
	}
	x := levmar(resid, x0)
	out := make([]HostFit, np)
	for i, p := range hostParams {
		v := round4(math.Exp(x[i]))
		if v < 2*minOverheadUs {
			v = 0
		}
		*p.field(h) = v
		out[i] = HostFit{Name: p.name, Before: start[i], After: v}
	}
	return out
}

// SortObs orders observations deterministically (by class, label, op).
func SortObs(obs []Obs) {
	sort.SliceStable(obs, func(i, j int) bool {
		a, b := obs[i], obs[j]
		if a.Cost.Class != b.Cost.Class {
			return a.Cost.Class < b.Cost.Class
		}
		if a.Label != b.Label {
			return a.Label < b.Label
		}
		return a.Us < b.Us
	})
}

// levmar minimises the sum of squared residuals resid(x) with
// Levenberg-Marquardt (forward-difference Jacobian, normal equations solved
// with gonum/mat). It is deterministic: the same function and start give
// the same result.
func levmar(resid func(x, r []float64) []float64, x0 []float64) []float64 {
	return levmarJ(resid, nil, x0, 200)
}

// jacobian fills J with the derivatives of the residuals at x (r: the
// residuals there).
type jacobian func(x, r []float64, J *mat.Dense)

// levmarJ is Levenberg-Marquardt with the Jacobian from jac, or by forward
// differences when jac is nil, for at most maxIter iterations.
func levmarJ(resid func(x, r []float64) []float64, jac jacobian, x0 []float64, maxIter int) []float64 {
	const h = 1e-6
	n := len(x0)
	x := append([]float64(nil), x0...)
	r := resid(x, nil)
	m := len(r)
	cost2 := func(r []float64) float64 {
		var s float64
		for _, v := range r {
			s += v * v
		}
		return s
	}
	c := cost2(r)
	lambda := 1e-3
	J := mat.NewDense(m, n, nil)
	xt := make([]float64, n)
	var rt, rn []float64
	for it := 0; it < maxIter; it++ {
		if jac != nil {
			jac(x, r, J)
		} else {
			for j := 0; j < n; j++ {
				copy(xt, x)
				xt[j] += h
				rt = resid(xt, rt)
				for i := 0; i < m; i++ {
					J.Set(i, j, (rt[i]-r[i])/h)
				}
			}
		}
		var A mat.Dense
		A.Mul(J.T(), J)
		g := mat.NewVecDense(n, nil)
		g.MulVec(J.T(), mat.NewVecDense(m, r))
		improved := false
		for try := 0; try < 20; try++ {
			var Ad mat.Dense
			Ad.CloneFrom(&A)
			for j := 0; j < n; j++ {
				Ad.Set(j, j, A.At(j, j)*(1+lambda)+lambda*1e-9)
			}
			var step mat.VecDense
			if err := step.SolveVec(&Ad, g); err != nil {
				lambda *= 10
				continue
			}
			for j := 0; j < n; j++ {
				xt[j] = x[j] - step.AtVec(j)
				if xt[j] > 30 {
					xt[j] = 30
				} else if xt[j] < -30 {
					xt[j] = -30
				}
			}
			rn = resid(xt, rn)
			if cn := cost2(rn); cn < c {
				done := c-cn < 1e-12*(1+c)
				copy(x, xt)
				r = append(r[:0], rn...)
				c = cn
				lambda = math.Max(lambda/10, 1e-12)
				improved = true
				if done {
					return x
				}
				break
			}
			lambda *= 10
		}
		if !improved {
			break
		}
	}
	return x
}

// bestOfStarts runs levmar on resid from each start and returns the fit
// with the smallest sum of squared residuals (the first on ties).
func bestOfStarts(resid func(x, r []float64) []float64, starts [][]float64) []float64 {
	var best []float64
	bestV := math.Inf(1)
	for _, st := range starts {
		x := levmar(resid, st)
		if v := sumSquares(resid(x, nil)); v < bestV {
			best, bestV = x, v
		}
	}
	return best
}

// sumSquares is the sum of the squared residuals r, in order.
func sumSquares(r []float64) float64 {
	var v float64
	for _, x := range r {
		v += x * x
	}
	return v
}
