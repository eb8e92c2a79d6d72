package ir

import (
	"fmt"
	"regexp"
	"testing"
)

// twoNodeChain returns x -> Relu(a) -> Neg(b) -> y in topological order.
func twoNodeChain() (*Model, *Node, *Node) {
	g := NewGraph("main")
	x := g.AddInput("x", TensorType(Float32, ShapeOf(2)))
	a := g.AddNode("Relu", "", "a", []*Value{x}, []string{"ya"})
	b := g.AddNode("Neg", "", "b", []*Value{a.Outputs[0]}, []string{"yb"})
	g.Outputs = []*Value{b.Outputs[0]}
	return &Model{Graph: g, Opsets: []OpsetID{{Version: 17}}}, a, b
}

// TestVerifyOrder: the verifier accepts nodes in topological order, and
// names the first node listed before a producer it reads; a cycle is
// reported as a cycle, not as an order problem.
func TestVerifyOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m *Model, a, b *Node)
		want string // regexp of the error; "" for none
	}{
		{"sorted", func(*Model, *Node, *Node) {}, ""},
		{"swapped", func(m *Model, a, b *Node) { m.Graph.Nodes[0], m.Graph.Nodes[1] = b, a },
			`^node b \(Neg\): not in topological order: it reads an output of node a, listed after it$`},
		{"cycle", func(m *Model, a, b *Node) { a.SetInput(0, b.Outputs[0]) },
			`cycle through 2 node\(s\)`},
		{"sorted again", func(m *Model, a, b *Node) {
			m.Graph.Nodes[0], m.Graph.Nodes[1] = b, a
			if err := SortNodes(m.Graph); err != nil {
				t.Fatal(err)
			}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, a, b := twoNodeChain()
			tc.edit(m, a, b)
			err := Verify(m)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Verify: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("Verify accepted the graph, want an error matching %q", tc.want)
			case tc.want != "" && !regexp.MustCompile(tc.want).MatchString(err.Error()):
				t.Fatalf("Verify: %v, want an error matching %q", err, tc.want)
			}
		})
	}
}

// TestVerifyFusedCapture: a fused body reads only its own inputs (fused.go;
// CapturedValues skips it), and the verifier names a body that reads a
// value of the enclosing graph directly.
func TestVerifyFusedCapture(t *testing.T) {
	for _, tc := range []struct {
		name    string
		capture bool
		want    string
	}{
		{"closed", false, ""},
		{"reads the graph's value", true, `^node f \(wolong:k\): fused body reads "ya", which is not one of its inputs$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, a, _ := twoNodeChain()
			g := m.Graph
			body := NewGraph("f_body")
			p := body.AddInput("p", TensorType(Float32, ShapeOf(2)))
			in := p
			if tc.capture {
				in = a.Outputs[0]
			}
			q := body.AddNode("Neg", "", "inner", []*Value{in}, []string{"q"})
			body.Outputs = []*Value{q.Outputs[0]}
			f := g.AddNode("k", FusedDomain, "f", []*Value{a.Outputs[0]}, []string{"yf"})
			f.Attrs = []*Attr{{Name: FusedBodyAttr, Type: AttrGraph, G: body}}
			body.Parent, body.ParentNode = g, f
			if tc.capture && len(f.CapturedValues()) != 0 {
				t.Fatal("CapturedValues walked a fused body")
			}
			err := Verify(m)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Verify: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("Verify accepted the body, want an error matching %q", tc.want)
			case tc.want != "" && !regexp.MustCompile(tc.want).MatchString(err.Error()):
				t.Fatalf("Verify: %v, want an error matching %q", err, tc.want)
			}
		})
	}
}

// TestCapturedValues: an If's branches read outer values (some twice,
// some from a nested body, some their own): each outer value is listed
// once, in the order first read, below and above the size where the walk
// switches from a list to a set.
func TestCapturedValues(t *testing.T) {
	for _, k := range []int{1, captureLinear, captureLinear + 1, 3 * captureLinear} {
		g := NewGraph("main")
		var outer []*Value
		for i := range k {
			outer = append(outer, g.AddInput(fmt.Sprintf("x%d", i), TensorType(Float32, ShapeOf(2))))
		}
		cond := g.AddInput("c", TensorType(Bool, ShapeOf()))
		then := NewGraph("then")
		inner := NewGraph("inner")
		var last *Value
		for i, x := range outer {
			// each outer value read twice in then, and the odd ones again
			// in a nested body
			a := then.AddNode("Add", "", fmt.Sprintf("a%d", i), []*Value{x, x}, []string{fmt.Sprintf("ya%d", i)})
			last = a.Outputs[0]
			if i%2 == 1 {
				inner.AddNode("Neg", "", fmt.Sprintf("n%d", i), []*Value{x}, []string{fmt.Sprintf("yn%d", i)})
			}
		}
		then.Outputs = []*Value{last}
		n := g.AddNode("If", "", "if", []*Value{cond}, []string{"y"})
		holder := then.AddNode("If", "", "nested", []*Value{cond}, []string{"z"})
		holder.Attrs = []*Attr{{Name: "then_branch", Type: AttrGraph, G: inner}}
		inner.Parent, inner.ParentNode = then, holder
		n.Attrs = []*Attr{{Name: "then_branch", Type: AttrGraph, G: then}}
		then.Parent, then.ParentNode = g, n
		got := n.CapturedValues()
		want := append(append([]*Value(nil), outer...), cond)
		if len(got) != len(want) {
			t.Fatalf("%d outer values: got %d captures, want %d", k, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d outer values: capture %d is %s, want %s", k, i, got[i].Name, want[i].Name)
			}
		}
	}
}

// TestCapturedValuesNestedFused: an If's branch holds a fused kernel that
// reads an outer value through its input and a branch value: the outer
// value is captured (read in the branch), the kernel's body (which the
// walk skips: it reads only its inputs, Verify checks) adds nothing, so
// the If captures what a walk of every body finds.
func TestCapturedValuesNestedFused(t *testing.T) {
	g := NewGraph("main")
	x := g.AddInput("x", TensorType(Float32, ShapeOf(2)))
	cond := g.AddInput("c", TensorType(Bool, ShapeOf()))
	then := NewGraph("then")
	r := then.AddNode("Relu", "", "r", []*Value{x}, []string{"yr"})
	body := NewGraph("k_body")
	p := body.AddInput("p", TensorType(Float32, ShapeOf(2)))
	p2 := body.AddInput("p2", TensorType(Float32, ShapeOf(2)))
	q := body.AddNode("Add", "", "inner", []*Value{p, p2}, []string{"q"})
	body.Outputs = []*Value{q.Outputs[0]}
	k := then.AddNode("k", FusedDomain, "k", []*Value{x, r.Outputs[0]}, []string{"yk"})
	k.Attrs = []*Attr{{Name: FusedBodyAttr, Type: AttrGraph, G: body}}
	body.Parent, body.ParentNode = then, k
	then.Outputs = []*Value{k.Outputs[0]}
	n := g.AddNode("If", "", "if", []*Value{cond}, []string{"y"})
	n.Attrs = []*Attr{{Name: "then_branch", Type: AttrGraph, G: then}}
	then.Parent, then.ParentNode = g, n
	g.Outputs = []*Value{n.Outputs[0]}
	got := n.CapturedValues()
	if len(got) != 1 || got[0] != x {
		t.Fatalf("captures %v, want [x]", got)
	}
	var each []*Value
	n.EachCaptured(func(v *Value) { each = append(each, v) })
	if len(each) != 2 || each[0] != x || each[1] != x { // once per read: by r and by k
		t.Fatalf("EachCaptured passed %v, want [x x]", each)
	}
	m := &Model{Graph: g, Opsets: []OpsetID{{Version: 17}}}
	if err := Verify(m); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	// a body that breaks the contract is still named, at its own node
	q.SetInput(1, x)
	if err := Verify(m); err == nil || !regexp.MustCompile(`node k \(wolong:k\): fused body reads "x"`).MatchString(err.Error()) {
		t.Fatalf("Verify: %v, want the fused body's read of x named", err)
	}
}
