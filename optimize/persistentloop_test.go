package optimize

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// persistentCounter predicts a model's time from its PersistentRNN
// nodes: 1 ms, plus perKernel for each (negative: the kernel pays).
type persistentCounter struct{ perKernel float64 }

func (p persistentCounter) Predict(m *ir.Model) (Prediction, error) {
	ms := 1.0
	m.Graph.Walk(func(g *ir.Graph) bool {
		for _, n := range g.Nodes {
			if n.Domain == ir.FusedDomain && n.Op == "PersistentRNN" {
				ms += p.perKernel
			}
		}
		return true
	})
	return Prediction{TotalMs: ms, Nodes: len(m.Graph.Nodes)}, nil
}

// TestPersistentLoopGuards: the LSTM-cell Loop of the pass file is
// wrapped only when the predictor says it pays, when its weights fit the
// on-chip budget and not for ONNX Runtime; where it is left the pass
// reports nothing and leaves the model as it was.
func TestPersistentLoopGuards(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "passes", "fuse+persistent_loop", "lstm_cell_loop.wir"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  Options
		want int
	}{
		{"pays", Options{OnChipBytes: 1 << 20, Predictor: persistentCounter{-0.5}}, 1},
		{"does not pay", Options{OnChipBytes: 1 << 20, Predictor: persistentCounter{0.5}}, 0},
		{"no predictor", Options{OnChipBytes: 1 << 20}, 1},
		{"weights over the budget", Options{OnChipBytes: 100}, 0},
		{"cpu", Options{}, 0},
		{"ort target", Options{OnChipBytes: 1 << 20, Target: TargetORT}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ir.Parse(string(src))
			if err != nil {
				t.Fatal(err)
			}
			ir.InferModel(m, ir.InferOptions{})
			before := sprint(t, m)
			opt := tc.opt
			opt.Level, opt.Only, opt.VerifyEach = MaxLevel, []string{"persistent_loop"}, true
			res, err := Run(m, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			for _, p := range res.Passes {
				got += len(p.Rewrites)
			}
			if got != tc.want {
				t.Fatalf("%d rewrites, want %d", got, tc.want)
			}
			if got == 0 && sprint(t, m) != before {
				t.Errorf("no rewrite reported, but the model changed")
			}
		})
	}
}

func sprint(t *testing.T, m *ir.Model) string {
	var b bytes.Buffer
	if err := ir.Fprint(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
