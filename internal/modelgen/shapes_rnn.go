package modelgen

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// RNN is recurrent layers unrolled over 32 steps in primitive ops, the
// even layers LSTM cells and the odd ones GRU cells (hidden 8, each layer
// its own weights), each layer reading the previous layer's per-step
// outputs; the input X [32, batch, 8] is split into its steps. The output
// is the last layer's last h.
func RNN(nodes int) *ir.Model {
	const steps, hid = 32, 8
	b := New(fmt.Sprintf("rnn_%d", nodes), 17)
	x := b.Input("X", ir.Float32, steps, "batch", hid)
	sizes := make([]int64, steps)
	for i := range sizes {
		sizes[i] = 1
	}
	split := b.OpN("Split", steps, []*ir.Value{x, b.ConstI("split_sizes", []int64{steps}, sizes...)}, Int("axis", 0))
	axis0 := b.ConstI("axis0", []int64{1}, 0)
	xs := make([]*ir.Value, steps) // each layer's inputs, then its outputs
	for t := range xs {
		xs[t] = b.Op("Squeeze", []*ir.Value{split[t], axis0})
	}
	h0 := b.Input("h0", ir.Float32, "batch", hid)
	var h *ir.Value
	for l := 0; l == 0 || len(b.G.Nodes) < nodes; l++ {
		cell := lstmCell(b, fmt.Sprintf("lstm%d", l), hid)
		if l%2 == 1 {
			cell = gruCell(b, fmt.Sprintf("gru%d", l), hid)
		}
		h = h0
		for t := range xs {
			h = cell(xs[t], h)
			xs[t] = h
		}
	}
	return b.outputY(h)
}

// gate returns x·W + h·U + bias for a gate of its own weights.
func gate(b *Builder, name string, hid int64) func(x, h *ir.Value) *ir.Value {
	w, u, bias := b.Weight(name+".W", hid, hid), b.Weight(name+".U", hid, hid), b.Weight(name+".b", hid)
	return func(x, h *ir.Value) *ir.Value {
		return b.Op("Add", []*ir.Value{b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{x, w}), b.Op("MatMul", []*ir.Value{h, u})}), bias})
	}
}

// lstmCell returns an LSTM step h' = f(x, h); the cell state c is kept
// between calls (starting at zero).
func lstmCell(b *Builder, name string, hid int64) func(x, h *ir.Value) *ir.Value {
	gi, gf, gg, gO := gate(b, name+".i", hid), gate(b, name+".f", hid), gate(b, name+".g", hid), gate(b, name+".o", hid)
	var c *ir.Value
	return func(x, h *ir.Value) *ir.Value {
		i := b.Op("Sigmoid", []*ir.Value{gi(x, h)})
		f := b.Op("Sigmoid", []*ir.Value{gf(x, h)})
		g := b.Op("Tanh", []*ir.Value{gg(x, h)})
		o := b.Op("Sigmoid", []*ir.Value{gO(x, h)})
		if c == nil {
			c = b.Op("Mul", []*ir.Value{i, g})
		} else {
			c = b.Op("Add", []*ir.Value{b.Op("Mul", []*ir.Value{f, c}), b.Op("Mul", []*ir.Value{i, g})})
		}
		return b.Op("Mul", []*ir.Value{o, b.Op("Tanh", []*ir.Value{c})})
	}
}

// gruCell returns a GRU step (reset gate applied after the recurrent
// product, as ONNX's linear_before_reset=1): z = σ(xWz + hUz + bz),
// r = σ(xWr + hUr + br), n = tanh(xWn + bn + r·(hUn)), h' = n + z·(h - n).
func gruCell(b *Builder, name string, hid int64) func(x, h *ir.Value) *ir.Value {
	gz, gr := gate(b, name+".z", hid), gate(b, name+".r", hid)
	wn, un, bn := b.Weight(name+".n.W", hid, hid), b.Weight(name+".n.U", hid, hid), b.Weight(name+".n.b", hid)
	return func(x, h *ir.Value) *ir.Value {
		z := b.Op("Sigmoid", []*ir.Value{gz(x, h)})
		r := b.Op("Sigmoid", []*ir.Value{gr(x, h)})
		hn := b.Op("Mul", []*ir.Value{r, b.Op("MatMul", []*ir.Value{h, un})})
		n := b.Op("Tanh", []*ir.Value{b.Op("Add", []*ir.Value{b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{x, wn}), bn}), hn})})
		return b.Op("Add", []*ir.Value{n, b.Op("Mul", []*ir.Value{z, b.Op("Sub", []*ir.Value{h, n})})})
	}
}

// Control is a chain of blocks over [batch, 16], each an If on the graph
// input flag (then: Relu then Mul by the block's weight; else: Sigmoid
// then Add of it) followed by a Loop of trip count 2 whose body computes
// y' = Tanh(y·w + w) with the block's weight captured from the main graph.
func Control(nodes int) *ir.Model {
	b := New(fmt.Sprintf("control_%d", nodes), 17)
	h := b.Input("x", ir.Float32, "batch", 16)
	flag := b.Input("flag", ir.Bool)
	trip := b.ConstI("trip", nil, 2)
	t := ir.TensorType(ir.Float32, shapeOf("batch", 16))
	for i, count := 0, 0; count < nodes; i, count = i+1, count+10 { // 2 nodes, 4 in the branches, 4 in the body
		w := b.Weight(fmt.Sprintf("block%d.w", i), 16)
		branch := func(name, act, op string) *ir.Graph {
			g := ir.NewGraph(fmt.Sprintf("block%d_%s", i, name))
			a := g.AddNode(act, "", fmt.Sprintf("block%d_%s_act", i, name), []*ir.Value{h}, []string{fmt.Sprintf("block%d_%s_a", i, name)}).Outputs[0]
			y := g.AddNode(op, "", fmt.Sprintf("block%d_%s_op", i, name), []*ir.Value{a, w}, []string{fmt.Sprintf("block%d_%s_y", i, name)}).Outputs[0]
			y.Type = t.Clone()
			g.Outputs = []*ir.Value{y}
			return g
		}
		y := b.Op("If", []*ir.Value{flag}, &ir.Attr{Name: "then_branch", Type: ir.AttrGraph, G: branch("then", "Relu", "Mul")},
			&ir.Attr{Name: "else_branch", Type: ir.AttrGraph, G: branch("else", "Sigmoid", "Add")})
		linkSubgraphs(b.G, y.Producer)
		body := ir.NewGraph(fmt.Sprintf("block%d_body", i))
		body.AddInput(fmt.Sprintf("block%d_iter", i), ir.TensorType(ir.Int64, ir.ShapeOf()))
		cond := body.AddInput(fmt.Sprintf("block%d_cond", i), ir.TensorType(ir.Bool, ir.ShapeOf()))
		carried := body.AddInput(fmt.Sprintf("block%d_y", i), t.Clone())
		co := body.AddNode("Identity", "", fmt.Sprintf("block%d_cond_id", i), []*ir.Value{cond}, []string{fmt.Sprintf("block%d_cond_out", i)}).Outputs[0]
		m := body.AddNode("Mul", "", fmt.Sprintf("block%d_mul", i), []*ir.Value{carried, w}, []string{fmt.Sprintf("block%d_m", i)}).Outputs[0]
		a := body.AddNode("Add", "", fmt.Sprintf("block%d_add", i), []*ir.Value{m, w}, []string{fmt.Sprintf("block%d_s", i)}).Outputs[0]
		yo := body.AddNode("Tanh", "", fmt.Sprintf("block%d_tanh", i), []*ir.Value{a}, []string{fmt.Sprintf("block%d_y_out", i)}).Outputs[0]
		body.Outputs = []*ir.Value{co, yo}
		h = b.Op("Loop", []*ir.Value{trip, nil, y}, &ir.Attr{Name: "body", Type: ir.AttrGraph, G: body})
		linkSubgraphs(b.G, h.Producer)
	}
	return b.outputY(h)
}

// linkSubgraphs sets the parent links of n's graph attributes (n in g).
func linkSubgraphs(g *ir.Graph, n *ir.Node) {
	for _, a := range n.Attrs {
		if a.Type == ir.AttrGraph {
			a.G.Parent, a.G.ParentNode = g, n
		}
	}
}
