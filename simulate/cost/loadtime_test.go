package cost

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestLoadTimeConstants: deterministic ops of constant inputs are folded
// when the model loads (no kernel), unless random or producing a graph
// output; ops reading a runtime input are not.
func TestLoadTimeConstants(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(4)))
	shape := g.AddInitializer((&ir.Tensor{Name: "shape", DType: ir.Int64, Dims: []int64{1}}).SetInt64s([]int64{4}))
	cos := g.AddNode("ConstantOfShape", "", "cos", []*ir.Value{shape}, []string{"w"})
	add := g.AddNode("Add", "", "add", []*ir.Value{x, cos.Outputs[0]}, []string{"y"})
	rnd := g.AddNode("RandomNormalLike", "", "rnd", []*ir.Value{shape}, []string{"r"})
	out := g.AddNode("ConstantOfShape", "", "out", []*ir.Value{shape}, []string{"z"})
	g.Outputs = []*ir.Value{add.Outputs[0], rnd.Outputs[0], out.Outputs[0]}
	for _, tc := range []struct {
		n    *ir.Node
		want bool
	}{{cos, true}, {add, false}, {rnd, false}, {out, false}} {
		if got := folded(tc.n); got != tc.want {
			t.Errorf("%s: folded %v, want %v", tc.n.Name, got, tc.want)
		}
	}
}
