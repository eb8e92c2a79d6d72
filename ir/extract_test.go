package ir

import (
	"bytes"
	"strings"
	"testing"
)

// TestExtractNode extracts a Loop that reads a graph input, an
// initializer and a value computed before it, and whose body captures an
// outer value: the extracted graph has the non-constant values as inputs,
// the constant one as an initializer sharing its data, the Loop's outputs
// as outputs; nothing in it (body included) refers to the source graph's
// values; value IDs are unique; inference gives the outputs the source's
// types; and the source is untouched.
func TestExtractNode(t *testing.T) {
	g := NewGraph("main")
	x := g.AddInput("x", TensorType(Float32, DimsShape(D(4))))
	a := g.AddNode("Relu", "", "pre", []*Value{x}, []string{"a"}).Outputs[0]
	w := g.AddInitializer(&Tensor{Name: "w", DType: Float32, Dims: []int64{4}, Raw: make([]byte, 16)})
	body := NewGraph("body")
	body.Parent = g
	body.AddInput("i", TensorType(Int64, ShapeOf()))
	cin := body.AddInput("cond", TensorType(Bool, ShapeOf()))
	acc := body.AddInput("acc", TensorType(Float32, UnknownShape()))
	sum := body.AddNode("Add", "", "", []*Value{acc, w}, []string{"sum"}).Outputs[0]
	scan := body.AddNode("Mul", "", "", []*Value{sum, a}, []string{"scan"}).Outputs[0]
	body.Outputs = []*Value{cin, sum, scan}
	trip := g.AddInitializer(&Tensor{Name: "M", DType: Int64, Dims: []int64{}, Raw: make([]byte, 8)})
	trip.Const.Raw[0] = 3
	loop := g.AddNode("Loop", "", "loop", []*Value{trip, nil, a}, []string{"final", "scans"}, &Attr{Name: "body", Type: AttrGraph, G: body})
	body.ParentNode = loop
	post := g.AddNode("Neg", "", "post", []*Value{loop.Outputs[1]}, []string{"y"})
	g.Outputs = []*Value{post.Outputs[0]}
	m := &Model{Opsets: []OpsetID{{Version: 17}}, Graph: g}
	InferModel(m, InferOptions{})
	var before bytes.Buffer
	if err := Fprint(&before, m); err != nil {
		t.Fatal(err)
	}

	eg, c, err := ExtractNode(loop)
	if err != nil {
		t.Fatal(err)
	}
	if len(eg.Nodes) != 1 || eg.Nodes[0] != c || c == loop || c.Op != "Loop" || c.Name != "loop" {
		t.Fatalf("extracted nodes %v, want one copy of the Loop", eg.Nodes)
	}
	names := func(vs []*Value) string {
		var s []string
		for _, v := range vs {
			s = append(s, v.Name)
		}
		return strings.Join(s, ",")
	}
	if got := names(eg.Inputs); got != "a" {
		t.Errorf("inputs %s, want a (w and M are constants)", got)
	}
	if got := names(eg.Initializers); got != "M,w" {
		t.Errorf("initializers %s, want M,w", got)
	}
	if got := names(eg.Outputs); got != "final,scans" {
		t.Errorf("outputs %s, want final,scans", got)
	}
	if eg.Initializers[1].Const != w.Const {
		t.Error("the initializer's data was copied, want it shared")
	}
	ids := map[int]string{}
	src := map[*Value]bool{x: true, a: true, w: true, trip: true, loop.Outputs[0]: true, loop.Outputs[1]: true}
	eg.Walk(func(sg *Graph) bool {
		for _, n := range sg.Nodes {
			for _, in := range n.Inputs {
				if src[in] {
					t.Errorf("%s in %s reads the source graph's %s", n.Op, sg.Name, in.Name)
				}
			}
		}
		return true
	})
	for _, v := range append(append(append([]*Value{}, eg.Inputs...), eg.Initializers...), c.Outputs...) {
		if prev, dup := ids[v.ID]; dup {
			t.Errorf("values %s and %s share ID %d", prev, v.Name, v.ID)
		}
		ids[v.ID] = v.Name
		if v.ID >= eg.NumValueIDs() {
			t.Errorf("value %s has ID %d, beyond NumValueIDs %d", v.Name, v.ID, eg.NumValueIDs())
		}
	}
	em := &Model{Opsets: m.Opsets, Graph: eg}
	InferModel(em, InferOptions{})
	if got, want := eg.Outputs[1].Type.String(), loop.Outputs[1].Type.String(); got != want {
		t.Errorf("extracted scan output %s, want %s", got, want)
	}
	var after bytes.Buffer
	if err := Fprint(&after, m); err != nil {
		t.Fatal(err)
	}
	if before.String() != after.String() {
		t.Errorf("extracting changed the source:\n%s\nwas\n%s", after.String(), before.String())
	}
}
