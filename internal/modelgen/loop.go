package modelgen

import "github.com/wolong-dev/wolong/ir"

// ScanLoop returns y = Loop(trip) over x, float32[n]: the body emits
// Neg(x) as a scan output each iteration, so y is float32[trip, n] and
// trip pieces of 4n bytes accumulate before they are stacked. With a large
// trip it is a valid model whose evaluation is long (the time and memory
// limits' test case).
func ScanLoop(trip int64, n int) *ir.Model {
	g := ir.NewGraph("main")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(int64(n))))
	body := ir.NewGraph("body")
	body.AddInput("i", ir.TensorType(ir.Int64, ir.ShapeOf()))
	c := body.AddInput("c", ir.TensorType(ir.Bool, ir.ShapeOf()))
	co := body.AddNode("Identity", "", "cid", []*ir.Value{c}, []string{"c_out"}).Outputs[0]
	s := body.AddNode("Neg", "", "neg", []*ir.Value{x}, []string{"s"}).Outputs[0]
	body.Outputs = []*ir.Value{co, s}
	m := g.AddInitializer((&ir.Tensor{Name: "trip", DType: ir.Int64, Dims: []int64{}}).SetInt64s([]int64{trip}))
	g.Outputs = []*ir.Value{g.AddNode("Loop", "", "loop", []*ir.Value{m, nil}, []string{"y"},
		&ir.Attr{Name: "body", Type: ir.AttrGraph, G: body}).Outputs[0]}
	return &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
}
