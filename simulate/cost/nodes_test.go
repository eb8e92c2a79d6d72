package cost_test

import (
	"reflect"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// noted is a model whose estimates leave notes: a Loop whose trip count
// is a graph input (an assumed trip count) and an op no table knows.
func noted() *ir.Model {
	g := ir.NewGraph("noted")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(64)))
	trip := g.AddInput("trip", ir.TensorType(ir.Int64, ir.ShapeOf()))
	body := ir.NewGraph("body")
	body.AddInput("i", ir.TensorType(ir.Int64, ir.ShapeOf()))
	c := body.AddInput("c", ir.TensorType(ir.Bool, ir.ShapeOf()))
	co := body.AddNode("Identity", "", "cid", []*ir.Value{c}, []string{"c_out"}).Outputs[0]
	body.Outputs = []*ir.Value{co, body.AddNode("Neg", "", "neg", []*ir.Value{x}, []string{"s"}).Outputs[0]}
	y := g.AddNode("Loop", "", "loop", []*ir.Value{trip, nil}, []string{"y"}, &ir.Attr{Name: "body", Type: ir.AttrGraph, G: body}).Outputs[0]
	z := g.AddNode("Mystery", "com.example", "mystery", []*ir.Value{x}, []string{"z"}).Outputs[0]
	g.Outputs = []*ir.Value{y, z}
	return &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}, {Domain: "com.example", Version: 1}}, Graph: g}
}

// TestNodesMatchesNode: Nodes, which splits a large graph across
// goroutines with a Model each, gives every node the estimate Node gives
// it and leaves the same notes. The nodes are a fused transformer's and
// an unfused LSTM's and CNN's, repeated past the parallel threshold.
// (go test -race checks that estimating writes nothing shared.)
func TestNodesMatchesNode(t *testing.T) {
	var nodes []*ir.Node
	var first *ir.Model
	for _, m := range []*ir.Model{modelgen.Transformer(2, 2, 64, 128, 4, 512), modelgen.LSTM(8, 2, 32, 64), modelgen.SampleCNN(), noted()} {
		ir.InferModel(m, ir.InferOptions{})
		if first == nil {
			if _, err := optimize.Run(m, optimize.Options{Level: 3}); err != nil {
				t.Fatal(err)
			}
			first = m
		}
		nodes = append(nodes, m.Graph.Nodes...)
	}
	for len(nodes) < 3*4096 {
		nodes = append(nodes, nodes...)
	}
	for _, name := range []string{"h100", "cpu-1t"} {
		h, err := hw.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		seq, par := cost.New(h, first, cost.Options{}), cost.New(h, first, cost.Options{})
		want := make([]cost.Estimate, len(nodes))
		for i, n := range nodes {
			want[i] = seq.Node(n)
		}
		got := make([]cost.Estimate, len(nodes))
		par.Nodes(nodes, func(i int, e cost.Estimate) { got[i] = e })
		for i := range nodes {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s: node %d (%s): Nodes gave %+v, Node %+v", name, i, ir.NodeLabel(nodes[i]), got[i], want[i])
			}
		}
		if g, w := par.Notes(), seq.Notes(); len(w) == 0 || !reflect.DeepEqual(g, w) {
			t.Errorf("%s: notes after Nodes %q, after Node %q (want some)", name, g, w)
		}
	}
}
