package ir

import (
	"bytes"
	"testing"
)

// TestCloneKeepsOrderAndIDs clones graphs whose nodes are in file order,
// topological or not, with gaps in their IDs: the copy has the same node
// order, node and value IDs, and prints the same, and inference on the
// copy leaves the source's types as they were.
func TestCloneKeepsOrderAndIDs(t *testing.T) {
	build := func(sorted bool) *Model {
		g := NewGraph("g")
		x := g.AddInput("x", TensorType(Float32, DimsShape(S("N"), D(4))))
		dead := g.AddNode("Relu", "", "dead", []*Value{x}, []string{"d"})
		a := g.AddNode("Relu", "", "", []*Value{x}, []string{"a"})
		b := g.AddNode("Neg", "", "", []*Value{a.Outputs[0]}, []string{"b"})
		g.Outputs = []*Value{b.Outputs[0]}
		g.RemoveNode(dead) // a gap in the node IDs
		if !sorted {
			g.Nodes[0], g.Nodes[1] = g.Nodes[1], g.Nodes[0] // Neg before its producer, as some files have it
		}
		return &Model{Opsets: []OpsetID{{Version: 17}}, Graph: g}
	}
	for _, sorted := range []bool{true, false} {
		m := build(sorted)
		c, err := CloneModel(m)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Graph.Nodes) != len(m.Graph.Nodes) || c.Graph.NumNodeIDs() != m.Graph.NumNodeIDs() || c.Graph.NumValueIDs() != m.Graph.NumValueIDs() {
			t.Fatalf("sorted %v: %d nodes, IDs below %d / %d; want %d, %d / %d", sorted, len(c.Graph.Nodes), c.Graph.NumNodeIDs(), c.Graph.NumValueIDs(),
				len(m.Graph.Nodes), m.Graph.NumNodeIDs(), m.Graph.NumValueIDs())
		}
		for i, n := range m.Graph.Nodes {
			cn := c.Graph.Nodes[i]
			if cn == n || cn.Op != n.Op || cn.ID != n.ID || NodeLabel(cn) != NodeLabel(n) {
				t.Errorf("sorted %v: node %d is %s %s, want a copy of %s %s", sorted, i, cn.Op, NodeLabel(cn), n.Op, NodeLabel(n))
			}
			for j, o := range n.Outputs {
				if cn.Outputs[j].ID != o.ID || cn.Outputs[j].Producer != cn {
					t.Errorf("sorted %v: output %s has ID %d, want %d", sorted, o.Name, cn.Outputs[j].ID, o.ID)
				}
			}
		}
		InferModel(c, InferOptions{Dims: map[string]int64{"N": 2}})
		if got := c.Graph.Outputs[0].Type.String(); got != "float32[2,4]" {
			t.Errorf("sorted %v: the copy inferred %s, want float32[2,4]", sorted, got)
		}
		if m.Graph.Outputs[0].Type.Shape.Known || m.Graph.Inputs[0].Type.Shape.Dims[0].IsConcrete() {
			t.Errorf("sorted %v: inferring the copy changed the source: output %s, input %s", sorted, m.Graph.Outputs[0].Type, m.Graph.Inputs[0].Type)
		}
		var a, b bytes.Buffer
		InferModel(m, InferOptions{Dims: map[string]int64{"N": 2}})
		if err := Fprint(&a, m); err != nil {
			t.Fatal(err)
		}
		if err := Fprint(&b, c); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("sorted %v: the copy prints\n%s\nthe source\n%s", sorted, b.String(), a.String())
		}
	}
}
