package optimize

// This file prepares an optimized model for export as standard ONNX.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// ToONNX rewrites m in place so that it is a valid ONNX model any runtime
// can load: a fused LayerNorm becomes the standard LayerNormalization op
// when the model's opset has it (17+), a fused GELU becomes the standard
// Gelu op (approximate="tanh" for the tanh form) from opset 20 when its
// body checks out (toNativeGelu); every other fused node (domain "wolong"
// with a "body" graph) becomes a call of a model-local ONNX function of
// domain "wolong" whose body is the group's subgraph, and the model
// imports the "wolong" domain. The
// standard rewrites (folding, BatchNorm in Conv weights, batching with
// Concat'd weights + Split) are already standard ops. The graph's inputs
// and outputs are untouched. It returns the number of functions added.
func ToONNX(m *ir.Model) (int, error) {
	if m == nil || m.Graph == nil {
		return 0, fmt.Errorf("optimize: no model")
	}
	taken := map[string]bool{}
	for _, f := range m.Functions {
		taken[f.Domain+":"+f.Name] = true
	}
	// A fused GELU becomes the standard Gelu op (opset 20+), at any depth:
	// first, while each fused body still knows its fused node, so the
	// constants of a nested GELU resolve to the outer initializers.
	if m.Opset("") >= 20 {
		fold := defaultFolder()
		m.Graph.Walk(func(g *ir.Graph) bool {
			for _, n := range g.Nodes {
				if n.Domain == FusedDomain && n.Op == "Gelu" {
					toNativeGelu(m, g, n, fold)
				}
			}
			return true
		})
	}
	added := 0
	var err error
	// A worklist of graphs: the main graph and its If/Loop/Scan bodies
	// (Walk), and the body of every converted group, since a group may hold
	// a nested pattern kernel (a GELU inside a GEMM epilogue).
	work := []*ir.Graph{m.Graph}
	for len(work) > 0 && err == nil {
		root := work[0]
		work = work[1:]
		root.Walk(func(g *ir.Graph) bool {
			for _, n := range g.Nodes {
				if n.Domain != FusedDomain {
					continue
				}
				body := n.AttrGraph("body")
				if body == nil {
					continue
				}
				if n.Op == "LayerNorm" && m.Opset("") >= 17 && toLayerNormalization(g, n) {
					continue
				}
				if len(n.Attrs) != 1 {
					err = fmt.Errorf("optimize: fused node %s has attributes besides body", ir.NodeLabel(n))
					return false
				}
				name := n.Op
				for k := 0; taken[FusedDomain+":"+name]; k++ {
					name = fmt.Sprintf("%s_%d", n.Op, k)
				}
				taken[FusedDomain+":"+name] = true
				body.Parent, body.ParentNode = nil, nil
				body.Name = name
				f := &ir.Function{Name: name, Domain: FusedDomain, Body: body,
					Doc:    "wolong fused kernel " + ir.NodeLabel(n) + " (" + n.Op + ")",
					Opsets: functionOpsets(m)}
				m.Functions = append(m.Functions, f)
				n.Op, n.Attrs = name, nil
				added++
				work = append(work, body)
			}
			return true
		})
	}
	if err != nil {
		return added, err
	}
	if added > 0 {
		if m.Opset(FusedDomain) == 0 {
			m.Opsets = append(m.Opsets, ir.OpsetID{Domain: FusedDomain, Version: 1})
		}
		if m.IRVersion < 8 {
			m.IRVersion = 8 // model-local functions need IR version 8
		}
	}
	return added, nil
}

// functionOpsets is the ai.onnx opset the function bodies use.
func functionOpsets(m *ir.Model) []ir.OpsetID {
	var out []ir.OpsetID
	for _, o := range m.Opsets {
		if o.Domain == "" || o.Domain == "ai.onnx" {
			out = append(out, o)
		}
	}
	return append(out, ir.OpsetID{Domain: FusedDomain, Version: 1})
}

// toLayerNormalization turns a fused LayerNorm node into the standard
// LayerNormalization(X, Scale, B) {axis, epsilon} in place, when the body
// normalizes over trailing axes with constant eps, gamma and beta.
func toLayerNormalization(g *ir.Graph, n *ir.Node) bool {
	body := n.AttrGraph("body")
	if body == nil || len(n.Outputs) != 1 {
		return false
	}
	outer := func(v *ir.Value) *ir.Value {
		for i, in := range body.Inputs {
			if in == v && i < len(n.Inputs) {
				return n.Inputs[i]
			}
		}
		return nil
	}
	var mean, eps, mul, add *ir.Node
	for _, b := range body.Nodes {
		switch {
		case b.Op == "ReduceMean" && mean == nil:
			mean = b
		case b.Op == "Add" && eps == nil && b.Input(0) != nil && b.Input(0).Producer != nil && b.Input(0).Producer.Op == "ReduceMean":
			eps = b
		case b.Op == "Mul" && b.Input(0) != nil && b.Input(0).Producer != nil && b.Input(0).Producer.Op == "Div":
			mul = b
		case b.Op == "Add" && mul != nil && b.Input(0) == mul.Output(0):
			add = b
		}
	}
	if mean == nil || eps == nil || mul == nil {
		return false
	}
	x := outer(mean.Input(0))
	axes, ok := mean.AttrInts("axes")
	if x == nil || !ok || mean.Input(1) != nil {
		return false
	}
	rank := x.Type.Shape.Rank()
	if rank <= 0 {
		return false
	}
	first := int64(rank)
	for k, a := range axes {
		if a < 0 {
			a += int64(rank)
		}
		if a != int64(rank-len(axes)+k) {
			return false // not a suffix of the dims
		}
		first = min(first, a)
	}
	e, ok := scalarOf(outer(eps.Input(1)))
	gamma := outer(mul.Input(1))
	if !ok || gamma == nil || gamma.Const == nil {
		return false
	}
	ins := []*ir.Value{x, gamma}
	if add != nil {
		beta := outer(add.Input(1))
		if beta == nil || beta.Const == nil {
			return false
		}
		ins = append(ins, beta)
	}
	// Rewire: drop the old inputs' uses, then read the new ones.
	for i := range n.Inputs {
		n.SetInput(i, nil)
	}
	n.Inputs = nil
	for i, v := range ins {
		n.Inputs = append(n.Inputs, nil)
		n.SetInput(i, v)
	}
	n.Op, n.Domain = "LayerNormalization", ""
	n.Attrs = []*ir.Attr{{Name: "axis", Type: ir.AttrInt, I: first}, {Name: "epsilon", Type: ir.AttrFloat, F: float32(e)}}
	return true
}
