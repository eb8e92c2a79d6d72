package optimize

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// loopCounter predicts a model's time from its Loop nodes: 1 ms plus
// perLoop for each (negative: a rolled loop is the faster).
type loopCounter struct{ perLoop float64 }

func (p loopCounter) Predict(m *ir.Model) (Prediction, error) {
	ms := 1.0
	m.Graph.Walk(func(g *ir.Graph) bool {
		for _, n := range g.Nodes {
			if n.Is(ir.OpLoop) {
				ms += p.perLoop
			}
		}
		return true
	})
	return Prediction{TotalMs: ms, Nodes: len(m.Graph.Nodes)}, nil
}

// TestUnrollTrialDecides: with a Predictor, loopunroll unrolls the loop
// of the pass file only when the trial predicts the unrolled model
// faster by more than minUnrollGain; where it does not, it reports
// nothing and leaves the model as it was.
func TestUnrollTrialDecides(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "passes", "loopunroll", "constant_trip_with_scan_output.wir"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pred Predictor
		want int
	}{
		{"rolled slower", loopCounter{0.5}, 1},
		{"rolled faster", loopCounter{-0.5}, 0},
		{"gain under the threshold", loopCounter{0.005}, 0},
		{"no predictor", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ir.Parse(string(src))
			if err != nil {
				t.Fatal(err)
			}
			ir.InferModel(m, ir.InferOptions{})
			before := sprint(t, m)
			res, err := Run(m, Options{Level: MaxLevel, Only: []string{"loopunroll", "fuse"}, VerifyEach: true, Predictor: tc.pred})
			if err != nil {
				t.Fatal(err)
			}
			got := len(res.Passes[0].Rewrites)
			if res.Passes[0].Name != "loopunroll" || got != tc.want {
				t.Fatalf("%s: %d rewrites, want %d", res.Passes[0].Name, got, tc.want)
			}
			if got == 0 && len(res.Passes[1].Rewrites) == 0 && sprint(t, m) != before {
				t.Error("no rewrite reported, but the model changed")
			}
		})
	}
}
