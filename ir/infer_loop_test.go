package ir

import "testing"

// TestLoopInvariantCarried: a Loop-carried value its body hands on
// unchanged (through Identity) keeps its initial value inside the body, so
// an inner Loop whose trip count arrives that way has a static trip count
// (the pattern of exporters that thread a count through an outer loop);
// a carried value the body changes does not.
func TestLoopInvariantCarried(t *testing.T) {
	build := func(changed bool) (inner *Node, outer *Node) {
		g := NewGraph("main")
		x := smIn(g, "x", Float32, D(4))
		// inner body: one scan output of x per iteration
		ib := NewGraph("inner")
		ib.AddInput("j", TensorType(Int64, ShapeOf()))
		icond := ib.AddInput("c", TensorType(Bool, ShapeOf()))
		ib.Outputs = []*Value{icond, ib.AddNode("Identity", "", "", []*Value{x}, []string{"s"}).Outputs[0]}
		// outer body: carries the inner trip count m and runs the inner loop
		ob := NewGraph("outer")
		ob.Parent = g
		ib.Parent = ob
		ob.AddInput("i", TensorType(Int64, ShapeOf()))
		ocond := ob.AddInput("c", TensorType(Bool, ShapeOf()))
		m := ob.AddInput("m", TensorType(Int64, ShapeOf()))
		inner = ob.AddNode("Loop", "", "", []*Value{m, nil}, []string{"scans"}, smGraphAttr("body", ib))
		mOut := ob.AddNode("Identity", "", "", []*Value{m}, []string{"m_out"}).Outputs[0]
		if changed {
			mOut = ob.AddNode("Add", "", "", []*Value{m, ob.AddInitializer(smScalarI64("one", 1))}, []string{"m_next"}).Outputs[0]
		}
		ob.Outputs = []*Value{ocond, mOut, inner.Outputs[0]}
		m0 := g.AddInitializer(smScalarI64("M_inner", 3))
		outer = g.AddNode("Loop", "", "", []*Value{g.AddInitializer(smScalarI64("M", 2)), nil, m0}, []string{"m_final", "all"}, smGraphAttr("body", ob))
		g.Outputs = outer.Outputs
		InferModel(&Model{Graph: g}, InferOptions{})
		return inner, outer
	}
	inner, outer := build(false)
	if got := inner.Outputs[0].Type.String(); got != "float32[3,4]" {
		t.Errorf("inner scans with the trip count carried unchanged: %s, want float32[3,4]", got)
	}
	if k := outer.Outputs[0].Known(); len(k) != 1 || k[0] != D(3) {
		t.Errorf("outer loop's final m: known %v, want [3]", k)
	}
	inner, outer = build(true)
	if got := inner.Outputs[0].Type.String(); got == "float32[3,4]" {
		t.Errorf("inner scans with the trip count changed each iteration: %s, want the trip unknown", got)
	}
	if k := outer.Outputs[0].Known(); k != nil {
		t.Errorf("outer loop's final m, changed each iteration: known %v, want none", k)
	}
}
