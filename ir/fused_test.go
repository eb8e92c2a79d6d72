package ir

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fusedFunction returns a function holding Reshape(x, shape) -> Relu as a
// wolong fused kernel with an epsilon match attribute, as export writes it.
func fusedFunction(name string) *Function {
	body := NewGraph(name)
	x := body.AddInput("x", Type{})
	shape := body.AddInput("shape", Type{})
	r := body.AddNode("Reshape", "", "r", []*Value{x, shape}, []string{"y"})
	relu := body.AddNode("Relu", "", "relu", []*Value{r.Outputs[0]}, []string{"z"})
	body.Outputs = []*Value{relu.Outputs[0]}
	md := append([]StringPair{{Key: FusedOpKey, Value: "FusedReshapeRelu"}},
		EncodeFusedMatch([]*Attr{{Name: FusedEpsilon, Type: AttrFloat, F: 1e-5}, {Name: FusedRoles, Type: AttrStrings, Strings: [][]byte{[]byte("X"), []byte("")}}})...)
	return &Function{Name: name, Domain: FusedDomain, Body: body, Metadata: md, Opsets: []OpsetID{{Version: 13}}}
}

// TestInlineFusedFunctions: calls of wolong fused functions become fused
// nodes with a body of their own each (so each call's shapes are its
// own, the shape constant passed as an argument included), match
// attributes restored; the functions are dropped; other functions stay.
func TestInlineFusedFunctions(t *testing.T) {
	g := NewGraph("main")
	a := g.AddInput("a", TensorType(Float32, ShapeOf(2, 6)))
	b := g.AddInput("b", TensorType(Float32, ShapeOf(4, 4)))
	s1 := g.AddInitializer((&Tensor{Name: "s1", DType: Int64, Dims: []int64{2}}).SetInt64s([]int64{3, 4}))
	s2 := g.AddInitializer((&Tensor{Name: "s2", DType: Int64, Dims: []int64{1}}).SetInt64s([]int64{16}))
	c1 := g.AddNode("FusedReshapeRelu", FusedDomain, "f1", []*Value{a, s1}, []string{"o1"})
	c2 := g.AddNode("FusedReshapeRelu", FusedDomain, "f2", []*Value{b, s2}, []string{"o2"})
	other := &Function{Name: "Mine", Domain: "com.example", Body: NewGraph("mine")}
	g.Outputs = []*Value{c1.Outputs[0], c2.Outputs[0]}
	m := &Model{Graph: g, Opsets: []OpsetID{{Version: 13}, {Domain: FusedDomain, Version: 1}},
		Functions: []*Function{fusedFunction("FusedReshapeRelu"), other}}
	n, err := InlineFusedFunctions(m)
	if err != nil || n != 2 {
		t.Fatalf("turned %d calls (%v), want 2", n, err)
	}
	if !reflect.DeepEqual(m.Functions, []*Function{other}) {
		t.Errorf("functions left: %v", m.Functions)
	}
	b1, b2 := FusedBody(c1), FusedBody(c2)
	if b1 == nil || b2 == nil || b1 == b2 || b1.ParentNode != c1 || b1.Parent != g {
		t.Fatalf("bodies %p %p: want one of its own per call, linked to it", b1, b2)
	}
	if c1.Op != "FusedReshapeRelu" || c1.AttrFloat(FusedEpsilon, 0) != 1e-5 || FusedInput(c1, "X") != a {
		t.Errorf("match not restored: op %s, attrs %v", c1.Op, c1.Attrs)
	}
	if err := Verify(m); err != nil {
		t.Fatal(err)
	}
	res := InferModel(m, InferOptions{})
	if got := c1.Outputs[0].Type.String(); got != "float32[3,4]" {
		t.Errorf("first call: %s, want float32[3,4] (%v)", got, res.Warnings())
	}
	if got := c2.Outputs[0].Type.String(); got != "float32[16]" {
		t.Errorf("second call: %s, want float32[16]", got)
	}
}

// TestFusedMatchEncoding round-trips match attributes through metadata.
func TestFusedMatchEncoding(t *testing.T) {
	attrs := []*Attr{
		{Name: "epsilon", Type: AttrFloat, F: 1e-12},
		{Name: "axis", Type: AttrInt, I: -1},
		{Name: "approximate", Type: AttrString, S: []byte("tanh")},
		{Name: "activation_params", Type: AttrFloats, Floats: []float32{0, 6}},
		{Name: "perm", Type: AttrInts, Ints: []int64{0, 2, 1}},
		{Name: "roles", Type: AttrStrings, Strings: [][]byte{[]byte("X"), []byte(""), []byte("Scale")}},
	}
	got := decodeFusedMatch(EncodeFusedMatch(attrs))
	if !reflect.DeepEqual(got, attrs) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, attrs)
	}
}

// TestInlineFusedFunctionsBounded: a fused function calling itself, and
// calls doubling at every level (2^40 copies), are errors, not a hang.
func TestInlineFusedFunctionsBounded(t *testing.T) {
	mk := func(name string, calls ...string) *Function {
		body := NewGraph(name)
		x := body.AddInput("x", Type{})
		v := x
		for i, c := range calls {
			v = body.AddNode(c, FusedDomain, fmt.Sprintf("c%d", i), []*Value{v}, []string{fmt.Sprintf("y%d", i)}).Outputs[0]
		}
		if len(calls) == 0 {
			v = body.AddNode("Relu", "", "r", []*Value{x}, []string{"y"}).Outputs[0]
		}
		body.Outputs = []*Value{v}
		return &Function{Name: name, Domain: FusedDomain, Body: body, Metadata: []StringPair{{Key: FusedOpKey, Value: "K"}}}
	}
	main := func(fns []*Function) *Model {
		g := NewGraph("main")
		c := g.AddNode(fns[0].Name, FusedDomain, "call", []*Value{g.AddInput("a", Type{})}, []string{"o"})
		g.Outputs = c.Outputs
		return &Model{Graph: g, Functions: fns}
	}
	self := main([]*Function{mk("F", "F")})
	if _, err := InlineFusedFunctions(self); err == nil || !strings.Contains(err.Error(), "calls itself") {
		t.Errorf("self call: %v", err)
	}
	defer func(n int) { maxInlinedNodes = n }(maxInlinedNodes)
	maxInlinedNodes = 1 << 12 // the same check, sooner
	var chain []*Function
	for i := 0; i < 40; i++ {
		chain = append(chain, mk(fmt.Sprintf("F%d", i), fmt.Sprintf("F%d", i+1), fmt.Sprintf("F%d", i+1)))
	}
	chain = append(chain, mk("F40"))
	if _, err := InlineFusedFunctions(main(chain)); err == nil || !strings.Contains(err.Error(), "expand to more than") {
		t.Errorf("2^40 calls: %v", err)
	}
}
