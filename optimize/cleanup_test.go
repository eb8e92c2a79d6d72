package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestDCE and TestCSE are pass files: testdata/passes/early_dce and
// testdata/passes/cse (TestPassFiles).

// TestNoop removes pass-through nodes, but keeps a graph output's name.
func TestNoop(t *testing.T) {
	runPassCases(t, []passCase{
		{
			name: "identity dropout cast reshape transpose",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 3)
				h := b.Op("Identity", in(x))
				h = b.Op("Dropout", in(h))
				h = b.Op("Cast", in(h), modelgen.Int("to", int64(ir.Float32)))
				h = b.Op("Reshape", in(h, b.ConstI("shape", []int64{2}, 2, 3)))
				h = b.Op("Transpose", in(b.Op("Transpose", in(h), modelgen.Ints("perm", 1, 0))), modelgen.Ints("perm", 1, 0))
				h = b.Op("Mul", in(h, b.ConstF("one", []int64{1}, 1)))
				y := b.Op("Relu", in(h))
				y.Name = "y"
				b.Output(y)
			},
			passes: []string{"noop", "late_dce"},
			want:   []string{`^noop: Identity_0 -> \(removed\)  \(Identity\)`, `Dropout_0 .*Dropout at inference`, `Cast_0 .*same type`, `Reshape_0 .*same shape`, `Transpose_1 .*inverse Transpose pair`, `Mul_0 .*identity constant`},
			ops:    "Relu",
		},
		{
			name: "graph output keeps its name",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 3)
				y := b.Op("Identity", in(b.Op("Relu", in(x))))
				y.Name = "y"
				b.Output(y)
			},
			passes: []string{"noop", "late_dce"},
			want:   []string{`^noop: Identity_0`},
			ops:    "Relu",
		},
	})
}

// TestNoopKeepsInputOutput leaves Identity(x) alone when x is a graph
// input and the result a graph output (the interface must not change).
func TestNoopKeepsInputOutput(t *testing.T) {
	b := modelgen.New("io", 17)
	x := b.Input("x", ir.Float32, 2)
	y := b.Op("Identity", in(x))
	y.Name = "y"
	b.Output(y)
	m := b.Model()
	ir.InferModel(m, ir.InferOptions{})
	if _, err := Run(m, Options{Level: 3, VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	if len(m.Graph.Nodes) != 1 || m.Graph.Outputs[0].Name != "y" || m.Graph.Inputs[0].Name != "x" {
		t.Errorf("interface changed: %d nodes, output %q", len(m.Graph.Nodes), m.Graph.Outputs[0].Name)
	}
}

// TestConstFold folds constant subexpressions with the evaluator, and
// respects the size cap.
func TestConstFold(t *testing.T) {
	runPassCases(t, []passCase{{
		name: "fold weight preprocessing",
		build: func(b *modelgen.Builder) {
			x := b.Input("x", ir.Float32, 2, 4)
			w := b.Op("Transpose", in(b.Weight("w", 4, 4)), modelgen.Ints("perm", 1, 0))
			w = b.Op("Mul", in(w, b.ConstF("two", nil, 2)))
			b.Output(b.Op("MatMul", in(x, w)))
		},
		passes: []string{"constfold", "late_dce"},
		want:   []string{`^constfold: Transpose_0 -> \(removed\)  \(folded Transpose`, `^constfold: Mul_0 -> \(removed\)`},
		ops:    "MatMul",
	}})
	// Over the cap nothing folds.
	b := modelgen.New("cap", 17)
	x := b.Input("x", ir.Float32, 64, 64)
	w := b.Op("Relu", in(b.Weight("w", 64, 64)))
	b.Output(b.Op("MatMul", in(x, w)))
	m := b.Model()
	ir.InferModel(m, ir.InferOptions{})
	if _, err := Run(m, Options{Level: 1, Only: []string{"constfold"}, FoldMaxBytes: 1024, VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	if have := opHistogram(m); have != "Relu MatMul" {
		t.Errorf("folded over the cap: %s", have)
	}
}

// TestShapeFold replaces a Shape -> Gather -> Concat -> Reshape chain
// under static shapes by a constant shape.
func TestShapeFold(t *testing.T) {
	runPassCases(t, []passCase{{
		name: "reshape by computed shape",
		build: func(b *modelgen.Builder) {
			x := b.Input("x", ir.Float32, 2, 3, 4)
			s := b.Op("Shape", in(x))
			d0 := b.Op("Gather", in(s, b.ConstI("i0", []int64{1}, 0)), modelgen.Int("axis", 0))
			shape := b.Op("Concat", in(d0, b.ConstI("m1", []int64{1}, -1)), modelgen.Int("axis", 0))
			b.Output(b.Op("Reshape", in(b.Op("Relu", in(x)), shape)))
		},
		passes: []string{"shapefold", "late_dce"},
		want:   []string{`^shapefold: Shape_0 -> \(removed\)`},
		ops:    "Relu Reshape",
	}})
}
