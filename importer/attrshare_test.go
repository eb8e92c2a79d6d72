package importer

import (
	"bytes"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestAttrsShared: nodes whose plain attributes encode to the same bytes
// share one ir.Attr (the import's memory per node), attributes that
// differ do not, and tensor attributes are never shared.
func TestAttrsShared(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(2, 3)))
	var nodes []*ir.Node
	v := x
	for i, axis := range []int64{1, 1, 0} {
		n := g.AddNode("Softmax", "", "s"+string(rune('a'+i)), []*ir.Value{v}, []string{"y" + string(rune('a'+i))})
		n.Attrs = []*ir.Attr{{Name: "axis", Type: ir.AttrInt, I: axis}}
		nodes, v = append(nodes, n), n.Outputs[0]
	}
	for i := range 2 {
		c := g.AddNode("Constant", "", "c"+string(rune('a'+i)), nil, []string{"k" + string(rune('a'+i))})
		c.Attrs = []*ir.Attr{{Name: "value", Type: ir.AttrTensor, T: (&ir.Tensor{DType: ir.Float32, Dims: []int64{1}}).SetFloats([]float32{1})}}
		g.Outputs = append(g.Outputs, c.Outputs[0])
	}
	g.Outputs = append(g.Outputs, v)
	m := &ir.Model{IRVersion: 8, Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	var buf bytes.Buffer
	if err := Export(m, &buf); err != nil {
		t.Fatal(err)
	}
	b, err := Decode(buf.Bytes(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := equalModels(m, b); err != nil {
		t.Fatal(err)
	}
	n := b.Graph.Nodes
	if n[0].Attrs[0] != n[1].Attrs[0] {
		t.Error("two Softmax nodes with axis=1 have two Attrs")
	}
	if n[1].Attrs[0] == n[2].Attrs[0] || n[2].Attrs[0].I != 0 {
		t.Errorf("axis=1 and axis=0 share an Attr (axis %d)", n[2].Attrs[0].I)
	}
	if n[3].Attrs[0] == n[4].Attrs[0] {
		t.Error("two Constant nodes share a tensor attribute")
	}
}
