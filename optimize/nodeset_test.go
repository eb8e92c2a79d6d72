package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestNodeSetLikeMap: nodeSet and nodePositions answer as maps keyed by
// node would, also for nodes with clashing or out-of-range IDs and nodes
// of another graph.
func TestNodeSetLikeMap(t *testing.T) {
	g, h := ir.NewGraph("g"), ir.NewGraph("h")
	a := g.AddNode("Relu", "", "a", nil, []string{"a_out"})
	b := g.AddNode("Relu", "", "b", nil, []string{"b_out"})
	other := h.AddNode("Relu", "", "other", nil, []string{"o"}) // ID 0 too
	clash := &ir.Node{ID: a.ID, Name: "clash", Op: "Relu", Graph: g}
	far := &ir.Node{ID: 99, Name: "far", Op: "Relu", Graph: g}
	s := newNodeSet(g)
	want := map[*ir.Node]bool{}
	for _, n := range []*ir.Node{a, clash, far} {
		s.add(n)
		want[n] = true
	}
	for _, n := range []*ir.Node{a, b, other, clash, far} {
		if s.has(n) != want[n] {
			t.Errorf("set: %s: got %v", n.Name, s.has(n))
		}
	}
	pos := positions([]*ir.Node{b, a})
	for n, w := range map[*ir.Node]int{a: 1, b: 0, other: -1, clash: -1, far: -1} {
		if i, ok := pos.of(n); ok != (w >= 0) || ok && i != w {
			t.Errorf("positions: %s: got %d %v, want %d", n.Name, i, ok, w)
		}
	}
}
