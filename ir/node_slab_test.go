package ir

import "testing"

// AddNodeIn gives the same graph whatever the slab holds: enough, too
// little (it falls back to the heap part way) or nothing.
func TestAddNodeInSlab(t *testing.T) {
	for _, tc := range []struct {
		name string
		sl   *NodeSlab
	}{
		{"nil", nil},
		{"enough", NewNodeSlab(3, 5, 4)},
		{"too small", NewNodeSlab(1, 2, 1)},
		{"negative", NewNodeSlab(-1, -1, -1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph("g")
			x := g.AddInput("x", Type{})
			a := g.AddNodeIn(tc.sl, "Split", "", "a", []*Value{x}, []string{"a0", "", "a1"})
			b := g.AddNodeIn(tc.sl, "Add", "", "b", []*Value{a.Outputs[0], a.Outputs[2]}, []string{"b0"})
			c := g.AddNodeIn(tc.sl, "Relu", "", "c", []*Value{b.Outputs[0]}, []string{"c0"})
			if len(g.Nodes) != 3 || g.Nodes[0] != a || g.Nodes[2] != c || a == b || b == c {
				t.Fatalf("nodes %v", g.Nodes)
			}
			if a.Outputs[1] != nil || a.Outputs[0] == a.Outputs[2] || cap(a.Outputs) != 3 {
				t.Fatalf("a's outputs %v (cap %d)", a.Outputs, cap(a.Outputs))
			}
			ids := map[int]bool{x.ID: true}
			for _, n := range g.Nodes {
				for i, o := range n.Outputs {
					if o == nil {
						continue
					}
					if o.Producer != n || o.ProducerOut != i || o.Graph != g || ids[o.ID] {
						t.Fatalf("output %d of %s: producer %v/%d, graph %v, ID %d (taken %v)", i, n.Name, o.Producer, o.ProducerOut, o.Graph, o.ID, ids[o.ID])
					}
					ids[o.ID] = true
				}
			}
			if g.NumNodeIDs() != 3 || g.NumValueIDs() != 5 || len(b.Outputs[0].Uses) != 1 || len(a.Outputs[2].Uses) != 1 {
				t.Fatalf("IDs %d/%d, uses %v %v", g.NumNodeIDs(), g.NumValueIDs(), b.Outputs[0].Uses, a.Outputs[2].Uses)
			}
			if err := VerifyGraph(g); err != nil {
				t.Fatal(err)
			}
		})
	}
}
