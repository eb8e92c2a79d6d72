package optimize

// This file turns a fused node back into its members: what a runtime
// does with a model-local function it has no kernel for.

import (
	"github.com/wolong-dev/wolong/ir"
)

// inline replaces fused node n of g by its body's nodes, in place: the
// body's inputs become n's inputs, its outputs keep the identity (names,
// uses) of n's outputs, and the other values become values of g. It
// returns the new nodes in the body's order. Nested fused nodes stay
// fused (their bodies now hang under g). The caller re-sorts g.
func inline(g *ir.Graph, n *ir.Node) []*ir.Node {
	body := ir.FusedBody(n)
	if body == nil {
		return nil
	}
	vm := map[*ir.Value]*ir.Value{}
	for i, v := range body.Inputs {
		if i < len(n.Inputs) {
			vm[v] = n.Inputs[i]
		}
	}
	exposed := map[*ir.Value]*ir.Value{}
	for i, v := range body.Outputs {
		if i < len(n.Outputs) && n.Outputs[i] != nil {
			exposed[v] = n.Outputs[i]
		}
	}
	order := body.Nodes // in topological order, as every graph is (ir.Verify)
	removeNode(g, n)    // drops n's uses of its inputs; the caller sweeps
	var out []*ir.Node
	for _, bn := range order {
		m := &ir.Node{Name: bn.Name, Op: bn.Op, Domain: bn.Domain, Attrs: bn.Attrs, Info: bn.Info,
			Inputs: make([]*ir.Value, len(bn.Inputs)), Outputs: make([]*ir.Value, len(bn.Outputs))}
		for i, v := range bn.Inputs {
			if w, ok := vm[v]; ok {
				m.Inputs[i] = w
			} else {
				m.Inputs[i] = v // nil, or a value of an enclosing scope
			}
		}
		for i, o := range bn.Outputs {
			if o == nil {
				continue
			}
			w, ok := exposed[o]
			if !ok {
				w = g.NewValue(o.Name, o.Type.Clone())
				w.Info = o.Info
				w.SetKnown(o.Known())
			}
			m.Outputs[i] = w
			vm[o] = w
		}
		g.AttachNode(m)
		for _, sg := range m.Subgraphs() {
			sg.Parent, sg.ParentNode = g, m
		}
		out = append(out, m)
	}
	return out
}
