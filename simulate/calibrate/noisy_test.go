package calibrate

import (
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// noise is how a suite measurement errs: each median off by a normal
// error of sigma, and one run in ten caught by a slow spell that outlasted
// its extra passes, 5-20% slower, flagged (NoisePct 12) when flag is set.
type noise struct {
	sigma float64
	flag  bool
}

// harnessNoise is what calibrate --host measures every run to: sigma
// 1.5% (a 95% interval of +-3%), the slow spells flagged.
var harnessNoise = noise{sigma: 0.015, flag: true}

// noisyRuns are the suite's runs as truth predicts them, measured with
// noise n.
func noisyRuns(t *testing.T, truth *hw.Hardware, seed int64, n noise) []DirectRun {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	runs := directRuns(t, truth, 0, 1)
	for i := range runs {
		r := &runs[i]
		r.NoisePct = 3
		if rng.Intn(10) == 0 {
			r.Us *= 1.05 + 0.15*rng.Float64()
			if n.flag {
				r.NoisePct = 12
			}
		} else {
			r.Us *= 1 + n.sigma*rng.NormFloat64()
		}
	}
	return runs
}

// validationRuns are generated models the suite does not hold (other
// shapes, other compositions), predicted by each fit.
func validationRuns() []DirectRun {
	var runs []DirectRun
	for _, m := range []*ir.Model{
		modelgen.Transformer(1, 1, 32, 96, 4, 384),
		modelgen.Transformer(2, 1, 8, 64, 2, 128),
		modelgen.LSTM(12, 1, 40, 48),
		modelgen.WakeWordIf(16, 32),
		modelgen.Chain(40, 256),
		modelgen.Elementwise(24),
	} {
		ir.InferModel(m, ir.InferOptions{})
		runs = append(runs, DirectRun{Label: m.Graph.Name, Model: m, Opt: cost.Options{NoFold: true}})
	}
	return runs
}

// noisyDisagreement fits two noisy measurements of truth with opt and
// returns the largest relative difference of their predictions on the
// validation models.
// nearTruth is a machine of the preset's class: cpu-1t's host costs and
// every op's fixed time and speeds off by a random factor of about
// +-15% (one sigma), the base the fit starts from the preset itself.
func nearTruth(t *testing.T) (base, truth *hw.Hardware) {
	t.Helper()
	base, err := hw.Preset("cpu-1t")
	if err != nil {
		t.Fatal(err)
	}
	base.Fitted = nil
	truth = base.Clone()
	rng := rand.New(rand.NewSource(3))
	f := func() float64 { return math.Exp(0.15 * rng.NormFloat64()) }
	truth.RunOverheadUs *= f()
	truth.FreeNodeUs *= f()
	truth.InputUs *= f()
	truth.OutputUs *= f()
	truth.SubgraphUs *= f()
	for _, op := range sortedOps(truth) {
		e := truth.Efficiency.Ops[op]
		e.OverheadUs *= f()
		e.Compute = math.Min(1, e.Compute*f())
		e.Memory = math.Min(1, e.Memory*f())
		truth.Efficiency.Ops[op] = e
	}
	return base, truth
}

func sortedOps(h *hw.Hardware) []string {
	var ops []string
	for op := range h.Efficiency.Ops {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return ops
}

func noisyDisagreement(t *testing.T, opt DirectOptions, n noise) (worst float64, label string) {
	t.Helper()
	base, truth := nearTruth(t)
	var fits []*hw.Hardware
	for _, seed := range []int64{11, 12} {
		r, err := FitDirect(base, noisyRuns(t, truth, seed, n), opt)
		if err != nil {
			t.Fatal(err)
		}
		fits = append(fits, r.HW)
	}
	for _, r := range validationRuns() {
		a, b := PredictRun(fits[0], r), PredictRun(fits[1], r)
		d := math.Abs(b/a - 1)
		t.Logf("%-28s fit A %8.1f us, fit B %8.1f us: %.2f%% apart", r.Label, a, b, 100*d)
		if d > worst {
			worst, label = d, r.Label
		}
	}
	return worst, label
}

// TestFitDirectNoisyAgree: two calibrations of one machine on a busy host
// (noisyRuns) predict every validation model within 5% of each other: the
// fit weighs each run by its measured noise and pulls what the runs do
// not pin toward the preset it starts from.
func TestFitDirectNoisyAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("two fits of the suite")
	}
	worst, label := noisyDisagreement(t, DirectOptions{}, harnessNoise)
	t.Logf("two noisy calibrations: largest difference %.2f%% (%s)", 100*worst, label)
	if worst > 0.05 {
		t.Errorf("the two fits differ by %.1f%% on %s, want <= 5%%", 100*worst, label)
	}
}

// TestFitDirectNoisyAgreeCanFail: the same check fails two fits without
// the regularisation (no pull toward the class or the preset) of runs
// measured as one pass of a quiet user's "median of 100 runs" reads on
// this VM class (sigma 6%, slow spells not flagged): the check can fail.
// Without the regularisation alone, on the harness's measurement, the two
// fits were 7.1% apart from the cpu-1t of 2026-12-04 (with it 4.0%) and
// 2.8% from the first refit of 2026-12-07 (with it 1.0%): the
// regularisation narrows the gap, but from the later base the measurement
// alone holds it. From the cpu-1t shipped since: 1.9% with it, 7.5% on one
// pass's noise without it.
func TestFitDirectNoisyAgreeCanFail(t *testing.T) {
	if testing.Short() {
		t.Skip("two fits of the suite")
	}
	worst, label := noisyDisagreement(t, DirectOptions{Prior: -1, HostPrior: -1}, noise{sigma: 0.06})
	t.Logf("without regularisation, one pass's noise: largest difference %.2f%% (%s)", 100*worst, label)
	if worst <= 0.05 {
		t.Errorf("without regularisation on one pass's noise the two fits agree within %.1f%%: the agreement check cannot fail", 100*worst)
	}
}
