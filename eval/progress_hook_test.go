package eval

import (
	"fmt"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestOnNode checks that Options.OnNode sees every main-graph node once,
// in evaluation order, with 1-based increasing positions and the main
// graph's node count as total, and never a node of a function body or a
// fused op's body.
func TestOnNode(t *testing.T) {
	// Function body: two nodes, y = Relu(Neg(a)).
	body := ir.NewGraph("body")
	a := body.AddInput("a", ir.Type{})
	neg := body.AddNode("Neg", "", "fn_neg", []*ir.Value{a}, []string{"n"})
	rl := body.AddNode("Relu", "", "fn_relu", []*ir.Value{neg.Outputs[0]}, []string{"y"})
	body.Outputs = []*ir.Value{rl.Outputs[0]}
	fn := &ir.Function{Name: "NegRelu", Domain: "local", Body: body}
	// Fused body: one node, z = Abs(u).
	fb := ir.NewGraph("fused")
	u := fb.AddInput("u", ir.Type{})
	ab := fb.AddNode("Abs", "", "fused_abs", []*ir.Value{u}, []string{"z"})
	fb.Outputs = []*ir.Value{ab.Outputs[0]}

	tests := []struct {
		name  string
		chain int  // Relu nodes in a chain on the input
		call  bool // then a call of the local function and a fused op
	}{
		{"empty", 0, false},
		{"one", 1, false},
		{"chain", 7, false},
		{"with bodies", 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ir.NewGraph("main")
			x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(2)))
			cur := x
			for i := 0; i < tc.chain; i++ {
				cur = g.AddNode("Relu", "", fmt.Sprintf("relu_%d", i), []*ir.Value{cur}, []string{fmt.Sprintf("r%d", i)}).Outputs[0]
			}
			want := tc.chain
			if tc.call {
				cur = g.AddNode("NegRelu", "local", "call", []*ir.Value{cur}, []string{"c"}).Outputs[0]
				cur = g.AddNode("FusedAbs", "wolong", "fused", []*ir.Value{cur}, []string{"f"},
					&ir.Attr{Name: "body", Type: ir.AttrGraph, G: fb}).Outputs[0]
				want += 2
			}
			g.Outputs = []*ir.Value{cur}
			// Reverse the node list so that evaluation order (topological)
			// differs from storage order.
			for i, j := 0, len(g.Nodes)-1; i < j; i, j = i+1, j-1 {
				g.Nodes[i], g.Nodes[j] = g.Nodes[j], g.Nodes[i]
			}
			m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}, {Domain: "local", Version: 1}}, Graph: g, Functions: []*ir.Function{fn}}

			var seen []*ir.Node
			done := map[*ir.Node]bool{}
			opt := Options{OnNode: func(i, n int, node *ir.Node) {
				if i != len(seen)+1 {
					t.Errorf("call %d reported position %d", len(seen)+1, i)
				}
				if n != want {
					t.Errorf("position %d: total %d, want %d", i, n, want)
				}
				if node.Graph != g {
					t.Errorf("position %d: node %s is not in the main graph", i, node.Name)
				}
				for _, in := range node.Inputs {
					if in != nil && in.Producer != nil && !done[in.Producer] {
						t.Errorf("position %d: node %s reported before its producer %s", i, node.Name, in.Producer.Name)
					}
				}
				done[node] = true
				seen = append(seen, node)
			}}
			out, err := Run(m, map[string]Value{"x": f32([]int{2}, -1, 3)}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != want {
				t.Fatalf("OnNode called %d times, want %d", len(seen), want)
			}
			if len(done) != want {
				t.Errorf("OnNode saw %d distinct nodes, want %d", len(done), want)
			}
			if len(out) != 1 || out[0] == nil {
				t.Fatalf("outputs %v", out)
			}
		})
	}
}
