package optimize

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestCastLikeFolds: CastLike of a constant only needs its target's
// element type, so it folds even when the target is computed; with a
// computed input it stays.
func TestCastLikeFolds(t *testing.T) {
	runPassCases(t, []passCase{
		{
			name: "castlike of a constant",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 4)
				c := b.ConstF("half", []int64{}, 0.5)
				h := b.Op("CastLike", in(c, x))
				b.Output(b.Op("Mul", in(x, h)))
			},
			passes: []string{"constfold"},
			want:   []string{`constfold: .* \(folded CastLike to a constant\)`},
			ops:    "Mul",
		},
		{
			name: "castlike of a computed value",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 4)
				r := b.Op("Relu", in(x))
				h := b.Op("CastLike", in(r, x))
				b.Output(b.Op("Mul", in(x, h)))
			},
			passes: []string{"constfold"},
			ops:    "Relu CastLike Mul",
		},
	})
}

// TestGeluONNXExpansion: ONNX's own function body of Gelu (the node
// tests' *_expanded models: CastLike'd constants, Sum for the add) is
// fused into one Gelu and computes the same.
func TestGeluONNXExpansion(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "onnx-node-tests", "node")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/onnx-node-tests absent")
	}
	for _, name := range []string{"test_gelu_default_1_expanded", "test_gelu_default_2_expanded", "test_gelu_tanh_1_expanded", "test_gelu_tanh_2_expanded"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name, "model.onnx")
			want, err := importer.Load(p, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ir.InferModel(want, ir.InferOptions{})
			have, _ := importer.Load(p, importer.Options{})
			ir.InferModel(have, ir.InferOptions{})
			if _, err := Run(have, Options{Level: MaxLevel, VerifyEach: true}); err != nil {
				t.Fatal(err)
			}
			if h := opHistogram(have); h != "wolong:Gelu" {
				t.Errorf("after -O3: %s, want one wolong:Gelu", h)
			}
			if why := compareRuns(t, want, have, 3, 1e-4, 1e-5); why != "" {
				t.Fatalf("cannot compare: %s", why)
			}
		})
	}
}
