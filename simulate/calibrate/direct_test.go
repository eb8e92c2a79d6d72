package calibrate

import (
	"bytes"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// directTruth is a CPU unlike the cpu-1t preset: other host costs, other
// fixed costs and speeds for a few ops.
func directTruth(t *testing.T) (base, truth *hw.Hardware) {
	t.Helper()
	base, err := hw.Preset("cpu-1t")
	if err != nil {
		t.Fatal(err)
	}
	// a base that knows no op of its own: every op's parameters come from
	// the runs (or its class)
	base.Efficiency.Ops = nil
	truth = base.Clone()
	truth.DispatchUs, truth.LaunchUs, truth.KernelOverheadUs = 0, 0, 0
	truth.RunOverheadUs, truth.FreeNodeUs, truth.OutputUsPerMB, truth.AllocUsPerMB = 7, 0.4, 60, 20
	truth.InputUs, truth.OutputUs, truth.SubgraphUs = 0.6, 3, 0.8
	truth.BroadcastSpanUs = 0.016 // the Zen 3 VM's (cpu-1t: Zen 5's 0.0093)
	truth.Efficiency.Ops = map[string]hw.ClassEfficiency{
		"Conv":   {Compute: 0.7, Memory: 0.5, OverheadUs: 1.5},
		"MatMul": {Compute: 0.9, Memory: 0.6, OverheadUs: 0.8},
		"Add":    {Compute: 0.3, Memory: 0.8, OverheadUs: 0.4},
		"Relu":   {Compute: 0.3, Memory: 0.9, OverheadUs: 0.3},
		"Gemm":   {Compute: 0.85, Memory: 0.6, OverheadUs: 1.1},
	}
	return base, truth
}

// directRuns are the calibration suite's runs as truth predicts them
// (times 1 +- noise); every fourth held out.
func directRuns(t *testing.T, truth *hw.Hardware, noise float64, seed int64) []DirectRun {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	var runs []DirectRun
	for i, s := range modelgen.CalibrationSuite() {
		if s.Group == "model" && i%3 != 0 {
			continue // a few complete models are enough, and keep the test fast
		}
		ir.InferModel(s.Model, ir.InferOptions{})
		r := DirectRun{Label: s.Name, Model: s.Model, Opt: cost.Options{NoFold: true}, HeldOut: i%4 == 3}
		r.Us = PredictRun(truth, r) * (1 + noise*(2*rng.Float64()-1))
		runs = append(runs, r)
	}
	return runs
}

func mapeOf(h *hw.Hardware, runs []DirectRun, heldOut bool) float64 {
	var s float64
	n := 0
	for _, r := range runs {
		if r.HeldOut != heldOut {
			continue
		}
		s += math.Abs(PredictRun(h, r)/r.Us - 1)
		n++
	}
	return 100 * s / float64(n)
}

// TestFitDirectRecovers: runs that a known CPU predicts exactly are fitted
// to within a few percent, on the runs fitted on and on those held out; the
// host costs come back; the same input gives the same file.
func TestFitDirectRecovers(t *testing.T) {
	base, truth := directTruth(t)
	runs := directRuns(t, truth, 0, 1)
	r, err := FitDirect(base, runs, DirectOptions{Name: "fit"})
	if err != nil {
		t.Fatal(err)
	}
	train, held := mapeOf(r.HW, runs, false), mapeOf(r.HW, runs, true)
	t.Logf("exact runs: MAPE %.2f%% fitted on, %.2f%% held out; host %+v", train, held, r.Host)
	if train > 3 || held > 6 {
		t.Errorf("MAPE %.2f%% fitted on, %.2f%% held out: want <= 3%% and <= 6%%", train, held)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"run_overhead_us", r.HW.RunOverheadUs, truth.RunOverheadUs},
		{"output_us", r.HW.OutputUs, truth.OutputUs},
		{"broadcast_span_us", r.HW.BroadcastSpanUs, truth.BroadcastSpanUs},
	} {
		if math.Abs(c.got/c.want-1) > 0.25 {
			t.Errorf("%s = %.3g, truth %.3g", c.name, c.got, c.want)
		}
	}
	again, err := FitDirect(base, runs, DirectOptions{Name: "fit"})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := r.HW.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := again.HW.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two fits of the same runs differ")
	}
}

// TestFitDirectStable: two measurements with independent noise of up to 3%
// (uniform: about what two passes of the harness leave on a quiet machine)
// give files whose predictions agree within 5% on the median run and within
// 15% on every run (the check a user makes by calibrating twice; the worst
// are ops measured in one or two runs, which take those runs' noise).
func TestFitDirectStable(t *testing.T) {
	base, truth := directTruth(t)
	var fits []*hw.Hardware
	for _, seed := range []int64{7, 8} {
		r, err := FitDirect(base, directRuns(t, truth, 0.03, seed), DirectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fits = append(fits, r.HW)
	}
	var diffs []float64
	for _, r := range directRuns(t, truth, 0, 1) {
		d := math.Abs(PredictRun(fits[1], r)/PredictRun(fits[0], r) - 1)
		diffs = append(diffs, d)
		if d > 0.15 {
			t.Errorf("%s: the two fits differ by %.1f%%", r.Label, 100*d)
		}
	}
	sort.Float64s(diffs)
	med := diffs[len(diffs)/2]
	t.Logf("difference between the two fits: median %.2f%%, largest %.2f%%", 100*med, 100*diffs[len(diffs)-1])
	if med > 0.05 {
		t.Errorf("median difference %.1f%%, want <= 5%%", 100*med)
	}
}

// TestFitDirectWorkingSet: on a CPU whose models read their weights from
// memory when they do not all fit in the cache (hw cache_working_set), the
// fit times each kernel in its own model as the end-to-end prediction
// does, so the ops come back from exact runs: the one-row GEMMs of models
// with more weights than the cache no longer pull Gemm's and MatMul's
// memory fractions down for every model (timed without their model, their
// weights counted in cache, they did: MatMul's cache speed came back at
// half the truth's, Gemm's at 0.74, the runs at 6.1% MAPE fitted on and
// 12.2% held out).
func TestFitDirectWorkingSet(t *testing.T) {
	base, truth := directTruth(t)
	for _, h := range []*hw.Hardware{base, truth} {
		h.CacheWorkingSet, h.L2MB, h.CacheBandwidthGBs = true, 2, 200
	}
	truth.MemoryBandwidthGBs = 40
	runs := directRuns(t, truth, 0, 1)
	r, err := FitDirect(base, runs, DirectOptions{Name: "fit"})
	if err != nil {
		t.Fatal(err)
	}
	train, held := mapeOf(r.HW, runs, false), mapeOf(r.HW, runs, true)
	t.Logf("exact runs, cache_working_set: MAPE %.2f%% fitted on, %.2f%% held out", train, held)
	if train > 3 || held > 6 {
		t.Errorf("MAPE %.2f%% fitted on, %.2f%% held out: want <= 3%% and <= 6%%", train, held)
	}
	for _, op := range []string{"MatMul", "Gemm"} {
		got := r.HW.Efficiency.Ops[op].Memory * r.HW.CacheBandwidthGBs
		want := truth.Efficiency.Ops[op].Memory * truth.CacheBandwidthGBs
		if math.Abs(got/want-1) > 0.25 {
			t.Errorf("%s reads the cache at %.3g GB/s, truth %.3g", op, got, want)
		}
	}
}

// TestFitDirectWorkingFraction: runs of a CPU whose weights start to miss
// its cache at 40% of it (hw cache_working_fraction 0.4) are fitted from a
// base that does not know the fraction: the suite's one-row GEMMs whose
// weights fill 50-95% of the cache pin it, to within 0.1, and those runs
// are predicted to within 8% (the ops' own parameters share the rest).
func TestFitDirectWorkingFraction(t *testing.T) {
	base, truth := directTruth(t)
	for _, h := range []*hw.Hardware{base, truth} {
		h.L2MB, h.CacheWorkingSet = 2.097152, true
	}
	truth.CacheWorkingFraction = 0.4
	runs := directRuns(t, truth, 0, 1)
	r, err := FitDirect(base, runs, DirectOptions{Name: "fit"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cache_working_fraction fitted %.3g (truth 0.4)", r.HW.CacheWorkingFraction)
	if got := r.HW.CacheWorkingFraction; math.Abs(got-0.4) > 0.1 {
		t.Errorf("cache_working_fraction fitted %.3g, truth 0.4", got)
	}
	for _, run := range runs {
		if !strings.HasPrefix(run.Label, "gemm_1x") {
			continue
		}
		if d := PredictRun(r.HW, run)/run.Us - 1; math.Abs(d) > 0.08 {
			t.Errorf("%s: predicted %+.1f%%", run.Label, 100*d)
		}
	}
}

// TestFitDirectHalfRows: runs of a CPU whose GEMMs of few rows compute
// slower (hw gemm_half_rows 6) are fitted from a base without the row
// effect: the suite's GEMM chains of 1 to 512 rows pin it to within 30%,
// and its GEMMs of 8-64 rows are predicted to within 10% (with the base's
// one speed per op they are 20-40% off).
func TestFitDirectHalfRows(t *testing.T) {
	base, truth := directTruth(t)
	truth.GEMMHalfRows = 6
	runs := directRuns(t, truth, 0, 1)
	r, err := FitDirect(base, runs, DirectOptions{Name: "fit"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gemm_half_rows fitted %.3g (truth 6)", r.HW.GEMMHalfRows)
	if got := r.HW.GEMMHalfRows; math.Abs(got/6-1) > 0.3 {
		t.Errorf("gemm_half_rows fitted %.3g, truth 6", got)
	}
	for _, run := range runs {
		if !strings.HasPrefix(run.Label, "gemm_8x") && !strings.HasPrefix(run.Label, "gemm_32x") && !strings.HasPrefix(run.Label, "gemm_64x") {
			continue
		}
		if d := PredictRun(r.HW, run)/run.Us - 1; math.Abs(d) > 0.1 {
			t.Errorf("%s: predicted %+.1f%%", run.Label, 100*d)
		}
	}
}

// TestMoveUnfitted: an op the runs did not fit keeps base's speeds moved
// as the fitted ops whose runs timed them moved, in its class, else in all
// classes; a speed no fitted op timed stays.
func TestMoveUnfitted(t *testing.T) {
	base, err := hw.Preset("cpu-1t")
	if err != nil {
		t.Fatal(err)
	}
	e := func(c, m float64) hw.ClassEfficiency {
		return hw.ClassEfficiency{Compute: c, Memory: m, OverheadUs: 0.5}
	}
	base.Efficiency.Ops = map[string]hw.ClassEfficiency{
		"Exp": e(0.4, 0.4), "Sigmoid": e(0.2, 0.3), "MatMul": e(1, 0.3),
		"Tanh": e(0.2, 0.3), "Conv/depthwise": e(0.8, 0.2), "Relu": e(0.3, 0.3),
	}
	h := base.Clone()
	h.Efficiency.Ops["Exp"] = e(0.2, 0.4)
	h.Efficiency.Ops["Sigmoid"] = e(0.1, 0.3)
	h.Efficiency.Ops["MatMul"] = e(0.3, 0.3)
	opClass := map[string]string{"Exp": "elementwise", "Sigmoid": "elementwise", "MatMul": "matmul", "Relu": "elementwise"}
	weights := map[string]float64{"Exp": 1, "Sigmoid": 1, "MatMul": 1, "Relu": 0.05}
	timed := map[string]timedSpeeds{"Exp": {compute: true}, "Sigmoid": {compute: true}, "MatMul": {compute: true}}
	moveUnfitted(h, base, opClass, weights, timed)
	for _, c := range []struct {
		op              string
		compute, memory float64
	}{
		{"Tanh", 0.1, 0.3},           // elementwise: Exp and Sigmoid ran at half speed
		{"Relu", 0.15, 0.3},          // in the runs, too little to fit
		{"Conv/depthwise", 0.4, 0.2}, // no fitted depthwise op: all classes' median (0.5)
		{"Exp", 0.2, 0.4},            // fitted: as fitted
		{"MatMul", 0.3, 0.3},
	} {
		got := h.Efficiency.Ops[c.op]
		if math.Abs(got.Compute-c.compute) > 1e-9 || math.Abs(got.Memory-c.memory) > 1e-9 || got.OverheadUs != 0.5 {
			t.Errorf("%s: %+v, want compute %g memory %g", c.op, got, c.compute, c.memory)
		}
	}
	if got := opKeyClass("com.microsoft:FastGelu"); got != "elementwise" {
		t.Errorf("opKeyClass(com.microsoft:FastGelu) = %q", got)
	}
}
