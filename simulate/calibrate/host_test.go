package calibrate

import (
	"math"
	"math/rand"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// hostRuns are runs of generated models of different sizes and node
// counts, measured as truth predicts them (times 1 +- noise).
func hostRuns(t *testing.T, truth *hw.Hardware, noise float64) []Run {
	t.Helper()
	rng := rand.New(rand.NewSource(3))
	models := []*ir.Model{modelgen.SampleCNN(), modelgen.LSTM(4, 1, 16, 32), modelgen.Transformer(1, 1, 8, 32, 2, 64)}
	for _, n := range []int{3, 20, 60} {
		for _, w := range []int64{16, 4096, 1 << 18} {
			models = append(models, modelgen.Chain(n, w))
		}
	}
	var runs []Run
	for i, m := range models {
		ir.InferModel(m, ir.InferOptions{})
		r := Run{Label: m.Graph.Name, Model: m, Opt: cost.Options{NoFold: i%2 == 0}}
		r.Us = predictRun(truth, r) * (1 + noise*(2*rng.Float64()-1))
		runs = append(runs, r)
	}
	return runs
}

// TestFitHost: the host parameters (dispatch per node, overhead per run,
// time per MB allocated, time per free node) are recovered from end-to-end
// runs that truth predicts, and 5% noise moves the run predictions by no
// more than 5%.
func TestFitHost(t *testing.T) {
	base, err := hw.Preset("cpu-1t")
	if err != nil {
		t.Fatal(err)
	}
	// host costs the staged fit does not fit are off, and the ones it fits
	// start at round values
	base.InputUs, base.OutputUs, base.SubgraphUs = 0, 0, 0
	base.DispatchUs, base.RunOverheadUs, base.AllocUsPerMB, base.FreeNodeUs, base.OutputUsPerMB = 6.5, 12, 30, 3, 0
	truth := base.Clone()
	truth.DispatchUs, truth.RunOverheadUs, truth.AllocUsPerMB, truth.FreeNodeUs = 9, 25, 50, 1.5
	runs := hostRuns(t, truth, 0)
	h := base.Clone()
	fits := fitHost(h, runs, 0.001)
	if len(fits) != len(hostParams) {
		t.Fatalf("%d host fits, want %d", len(fits), len(hostParams))
	}
	for _, r := range runs {
		if p := predictRun(h, r); math.Abs(p/r.Us-1) > 0.02 {
			t.Errorf("%s: fitted %.1f us, measured %.1f us", r.Label, p, r.Us)
		}
	}
	if math.Abs(h.DispatchUs/truth.DispatchUs-1) > 0.1 || math.Abs(h.RunOverheadUs/truth.RunOverheadUs-1) > 0.2 {
		t.Errorf("fitted dispatch %.3g us, run %.3g us; truth %.3g, %.3g", h.DispatchUs, h.RunOverheadUs, truth.DispatchUs, truth.RunOverheadUs)
	}
	noisy := hostRuns(t, truth, 0.05)
	hn := base.Clone()
	fitHost(hn, noisy, 0.001)
	for _, r := range runs {
		a, b := predictRun(h, r), predictRun(hn, r)
		if math.Abs(b/a-1) > 0.05 {
			t.Errorf("%s: 5%% noise moved the prediction by %.1f%%", r.Label, 100*math.Abs(b/a-1))
		}
	}
}

// TestFewKernelsKept: a class with fewer than MinClassKernels measured
// kernels keeps its base parameters.
func TestFewKernelsKept(t *testing.T) {
	base, _ := hw.Preset("cpu")
	truth := base.Clone()
	truth.Efficiency.Elementwise = hw.ClassEfficiency{Compute: 0.3, Memory: 0.2, OverheadUs: 7}
	obs := synthObs(truth, 0, 2)
	var few []Obs
	n := 0
	for _, o := range obs {
		if o.Cost.Class == cost.Elementwise {
			if n == MinClassKernels-1 {
				continue
			}
			n++
		}
		few = append(few, o)
	}
	r, err := Fit(base, few, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Classes {
		if c.Class == "elementwise" {
			if !c.Kept || c.After.OverheadUs != base.Efficiency.Elementwise.OverheadUs || c.After.Compute != base.Efficiency.Elementwise.Compute {
				t.Errorf("elementwise with %d kernels: kept %v, after %+v; want the base %+v", c.N, c.Kept, c.After, base.Efficiency.Elementwise)
			}
			return
		}
	}
	t.Error("no elementwise class in the fit")
}
