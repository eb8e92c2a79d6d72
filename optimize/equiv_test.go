package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/ir"
)

// randomInputs makes deterministic inputs for m's graph inputs (symbolic
// dims taken as 1); ok is false when an input has an unknown shape or a
// dtype this helper does not fill.
func randomInputs(m *ir.Model, seed uint64) (map[string]eval.Value, bool) {
	r := rand.New(rand.NewPCG(seed, 7))
	ins := map[string]eval.Value{}
	for _, v := range m.Graph.Inputs {
		if v.Const != nil {
			continue
		}
		if !v.Type.IsTensor() || !v.Type.Shape.Known {
			return nil, false
		}
		shape := make([]int, len(v.Type.Shape.Dims))
		n := 1
		for i, d := range v.Type.Shape.Dims {
			shape[i] = 1
			if d.IsConcrete() {
				shape[i] = int(d.Val)
			}
			n *= shape[i]
		}
		switch v.Type.DType {
		case ir.Float32:
			data := make([]float32, n)
			for i := range data {
				data[i] = float32(r.NormFloat64())
			}
			ins[v.Name] = eval.NewFloat32(shape, data)
		case ir.Int64:
			data := make([]int64, n)
			for i := range data {
				data[i] = int64(r.IntN(4))
			}
			ins[v.Name] = eval.NewInt64(shape, data)
		case ir.Bool:
			data := make([]bool, n)
			for i := range data {
				data[i] = r.IntN(2) == 0
			}
			ins[v.Name] = &eval.Tensor{DType: ir.Bool, Shape: shape, B: data}
		default:
			return nil, false
		}
	}
	return ins, true
}

// compareRuns evaluates want and have on the same inputs and compares the
// outputs within rtol/atol. It returns a skip reason when the evaluator
// cannot run the original.
func compareRuns(t *testing.T, want, have *ir.Model, seed uint64, rtol, atol float64) (skip string) {
	t.Helper()
	ins, ok := randomInputs(want, seed)
	if !ok {
		return "inputs not fillable"
	}
	w, err := eval.Run(want, ins, eval.Options{})
	if err != nil {
		return fmt.Sprintf("evaluator on the original: %v", err)
	}
	h, err := eval.Run(have, ins, eval.Options{})
	if err != nil {
		t.Fatalf("evaluator on the optimized model: %v", err)
	}
	if len(w) != len(h) {
		t.Fatalf("have %d outputs, want %d", len(h), len(w))
	}
	for i := range w {
		a, ok1 := w[i].(*eval.Tensor)
		b, ok2 := h[i].(*eval.Tensor)
		if !ok1 || !ok2 {
			continue
		}
		if fmt.Sprint(a.Shape) != fmt.Sprint(b.Shape) {
			t.Fatalf("output %d: have shape %v, want %v", i, b.Shape, a.Shape)
		}
		x, y := a.Float64s(), b.Float64s()
		for j := range x {
			if math.IsNaN(x[j]) && math.IsNaN(y[j]) {
				continue
			}
			if d := math.Abs(x[j] - y[j]); d > atol+rtol*math.Abs(x[j]) {
				t.Fatalf("output %d element %d: have %g, want %g", i, j, y[j], x[j])
			}
		}
	}
	return ""
}
