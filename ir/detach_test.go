package ir

import (
	"fmt"
	"testing"
)

// TestSweepNodesMatchesRemoveNode: detaching nodes and sweeping once
// leaves the node list and every use list as RemoveNode on each would.
func TestSweepNodesMatchesRemoveNode(t *testing.T) {
	build := func() (*Graph, []*Node) {
		g := NewGraph("g")
		x := g.AddInput("x", TensorType(Float32, ShapeOf(2)))
		var ns []*Node
		prev := x
		for i := range 12 {
			n := g.AddNode("Add", "", fmt.Sprintf("n%d", i), []*Value{x, prev}, []string{fmt.Sprintf("v%d", i)})
			prev = n.Outputs[0]
			ns = append(ns, n)
		}
		return g, ns
	}
	dead := []int{1, 4, 5, 11}
	want, wn := build()
	got, gn := build()
	for _, i := range dead {
		want.RemoveNode(wn[i])
		got.DetachNode(gn[i])
	}
	got.SweepNodes()
	dump := func(g *Graph) string {
		s := ""
		for _, n := range g.Nodes {
			s += n.Name + " "
		}
		for _, v := range append([]*Value{g.Inputs[0]}, outputsOf(g)...) {
			s += "|" + v.Name + ":"
			for _, u := range v.Uses {
				s += fmt.Sprintf("%s/%d ", u.Node.Name, u.Index)
			}
		}
		return s
	}
	if a, b := dump(got), dump(want); a != b {
		t.Errorf("after the sweep:\n%s\nRemoveNode gives:\n%s", a, b)
	}
	for _, i := range dead {
		if gn[i].Graph != nil {
			t.Errorf("%s: still in a graph", gn[i].Name)
		}
	}
}

func outputsOf(g *Graph) []*Value {
	var vs []*Value
	for _, n := range g.Nodes {
		vs = append(vs, n.Outputs...)
	}
	return vs
}
