package pipeline

import (
	"reflect"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// fullPredictor is the predictor without PredictDropped: every prediction
// a whole simulation.
type fullPredictor struct{ p *predictor }

func (f fullPredictor) Predict(m *ir.Model) (optimize.Prediction, error) { return f.p.Predict(m) }
func (f fullPredictor) GainMs(s optimize.Saving) float64                 { return f.p.GainMs(s) }

// TestPredictDroppedSameResult: the pass driver's predictions, and the
// final simulation, are the same whether the predictions after a pass
// that only dropped unused initializers are simulate.RunDropped's or
// whole simulations, and the shapes whose dead-code passes only drop
// initializers take the short cut.
func TestPredictDroppedSameResult(t *testing.T) {
	for _, hwName := range []string{"h100", "cpu-1t"} {
		h, err := hw.Preset(hwName)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			shape string
			nodes int
		}{{"cnn", 700}, {"heads", 500}, {"control", 300}, {"decoder", 800}} {
			run := func(full bool) (*optimize.Result, *simulate.Result, int) {
				s, err := modelgen.ShapeByName(c.shape)
				if err != nil {
					t.Fatal(err)
				}
				m := s.Build(c.nodes)
				ir.InferModel(m, ir.InferOptions{Inputs: simulate.BatchInputs(m.Graph, 2, nil)})
				p := &predictor{h: h, opt: simulate.Options{Streams: 1, Mode: simulate.Inference, Batch: 2}}
				var pr optimize.Predictor = p
				if full {
					pr = fullPredictor{p}
				}
				res, err := optimize.Run(m, optimize.Options{Level: 3, Predictor: pr, VerifyEach: true, Refusals: true, OnChipBytes: OnChipBytes(h)})
				if err != nil {
					t.Fatal(err)
				}
				fin, err := p.final(m)
				if err != nil {
					t.Fatal(err)
				}
				return res, fin, p.drops
			}
			want, wantSim, _ := run(true)
			got, gotSim, drops := run(false)
			if hwName == "h100" && c.shape != "control" && drops == 0 {
				t.Errorf("%s on %s: no prediction took the short cut", c.shape, hwName)
			}
			for _, r := range []*optimize.Result{want, got} {
				for i := range r.Passes {
					r.Passes[i].Elapsed = 0
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s on %s: the pass results differ with the short cut", c.shape, hwName)
				if !reflect.DeepEqual(got.Baseline, want.Baseline) || !reflect.DeepEqual(got.Final, want.Final) {
					t.Logf("baseline %+v / %+v, final %+v / %+v", got.Baseline, want.Baseline, got.Final, want.Final)
				}
				for i := range got.Passes {
					if !reflect.DeepEqual(got.Passes[i], want.Passes[i]) {
						t.Logf("pass %s: %+v / %+v", got.Passes[i].Name, got.Passes[i].After, want.Passes[i].After)
					}
				}
				if !reflect.DeepEqual(got.Refusals, want.Refusals) {
					t.Logf("refusals differ")
				}
			}
			if gotSim.TotalS != wantSim.TotalS || gotSim.PeakMemoryBytes != wantSim.PeakMemoryBytes || gotSim.WeightBytes != wantSim.WeightBytes ||
				gotSim.PeakMemoryAtS != wantSim.PeakMemoryAtS || !reflect.DeepEqual(gotSim.Assumptions, wantSim.Assumptions) || !reflect.DeepEqual(gotSim.Warnings, wantSim.Warnings) ||
				!reflect.DeepEqual(gotSim.Why(), wantSim.Why()) {
				t.Errorf("%s on %s: the final simulation differs with the short cut: %g s, %g B; whole %g s, %g B", c.shape, hwName,
					gotSim.TotalS, gotSim.PeakMemoryBytes, wantSim.TotalS, wantSim.PeakMemoryBytes)
			}
		}
	}
}

// TestFinalPeakOnlySameResult: Optimize with FinalPeakOnly (the
// predictions between the baseline and the final one without their memory
// step) gives the baseline, the final prediction, the final simulation
// and the passes' times that it gives without, only the passes' peaks
// left out.
func TestFinalPeakOnlySameResult(t *testing.T) {
	for _, hwName := range []string{"h100", "cpu-1t"} {
		h, err := hw.Preset(hwName)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			shape string
			nodes int
		}{{"cnn", 700}, {"heads", 500}, {"control", 300}, {"decoder", 800}, {"elementwise", 300}} {
			s, err := modelgen.ShapeByName(c.shape)
			if err != nil {
				t.Fatal(err)
			}
			m := s.Build(c.nodes)
			ir.InferModel(m, ir.InferOptions{Inputs: simulate.BatchInputs(m.Graph, 2, nil)})
			f := &Inferred{Model: m, Batch: 2}
			run := func(later bool) *Optimized {
				o, err := Optimize(f, OptimizeOptions{Level: 3, HW: h, Predict: true, Refusals: true, FinalPeakOnly: later})
				if err != nil {
					t.Fatal(err)
				}
				for i := range o.Result.Passes {
					o.Result.Passes[i].Elapsed = 0
				}
				return o
			}
			want, got := run(false), run(true)
			skipped := false
			for i := range got.Result.Passes {
				g, w := &got.Result.Passes[i], &want.Result.Passes[i]
				skipped = skipped || g.After.PeakBytes == 0 && w.After.PeakBytes != 0
				g.Before.PeakBytes, g.After.PeakBytes = w.Before.PeakBytes, w.After.PeakBytes
			}
			if !skipped && len(got.Result.Passes) > 0 && want.Result.Passes[len(want.Result.Passes)-1].After != want.Result.Baseline {
				// more than one prediction: the ones before the last skip their peaks
				changed := 0
				for _, p := range want.Result.Passes {
					if len(p.Rewrites) > 0 {
						changed++
					}
				}
				if changed > 1 {
					t.Errorf("%s on %s: no prediction left its memory step out", c.shape, hwName)
				}
			}
			if !reflect.DeepEqual(got.Result, want.Result) {
				t.Errorf("%s on %s: the pass results differ with FinalPeakOnly: baseline %+v / %+v, final %+v / %+v", c.shape, hwName,
					got.Result.Baseline, want.Result.Baseline, got.Result.Final, want.Result.Final)
			}
			gs, ws := got.Predicted, want.Predicted
			if gs.TotalS != ws.TotalS || gs.PeakMemoryBytes != ws.PeakMemoryBytes || gs.WeightBytes != ws.WeightBytes || gs.UnknownSizes != ws.UnknownSizes ||
				gs.PeakMemoryAtS != ws.PeakMemoryAtS || !reflect.DeepEqual(gs.Assumptions, ws.Assumptions) || !reflect.DeepEqual(gs.Warnings, ws.Warnings) ||
				!reflect.DeepEqual(gs.Why(), ws.Why()) || !reflect.DeepEqual(got.BaselineWhy, want.BaselineWhy) || !reflect.DeepEqual(got.Assumptions(), want.Assumptions()) {
				t.Errorf("%s on %s: the final simulation differs with FinalPeakOnly: %g s, %g B; without %g s, %g B", c.shape, hwName,
					gs.TotalS, gs.PeakMemoryBytes, ws.TotalS, ws.PeakMemoryBytes)
			}
		}
	}
}
