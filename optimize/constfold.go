package optimize

// This file implements constant folding.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// constFold evaluates, with the Folder (the reference evaluator), every
// main-graph node whose inputs are all constant (CastLike only needs its
// target's element type) and turns its outputs into
// initializers. Folding is skipped when an input or an output is larger
// than Options.FoldMaxBytes (so folding never bloats the model, and never
// reads a large weight: Shape and Size of one are shapefold's), for random
// ops, for nodes with subgraphs, for non-tensor outputs and for graph
// outputs (the optimized model keeps node-produced outputs). A node the
// evaluator cannot run is left as it is; that is not an error.
func constFold(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	if c.folder == nil {
		return nil, nil
	}
	order := nodesInOrder(g)
	var rw []Rewrite
	for _, n := range order {
		if !foldable(g, n) {
			continue
		}
		in := make([]*ir.Tensor, len(n.Inputs))
		ok := true
		for i, v := range n.Inputs {
			if v == nil {
				continue
			}
			if v.Const == nil {
				if n.Is(ir.OpCastLike) && i == 1 && v.Type.DType.Valid() {
					// only target_type's element type is read: CastLike of
					// a constant to a tensor of known type is a constant
					in[i] = &ir.Tensor{Name: v.Name, DType: v.Type.DType, Dims: []int64{0}}
					continue
				}
				ok = false
				break
			}
			if v.Const.ByteSize() > c.Opt.FoldMaxBytes {
				ok = false // a weight is read only to fold small constants
				break
			}
			in[i] = v.Const
		}
		if !ok || !outputsFit(n, c.Opt.FoldMaxBytes) {
			continue
		}
		outs, err := c.folder.Fold(c.Model, n, in)
		if err != nil {
			continue // unsupported or failing: keep the node
		}
		for _, t := range outs {
			if t != nil && t.ByteSize() > c.Opt.FoldMaxBytes {
				ok = false
			}
		}
		if !ok {
			continue
		}
		promote(g, n, outs)
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, Remark: fmt.Sprintf("folded %s to a constant", n.QualifiedOp())})
	}
	g.SweepNodes()
	return rw, nil
}

// foldable reports whether n may be replaced by its value.
func foldable(g *ir.Graph, n *ir.Node) bool {
	if !isDefault(n) || hasSubgraph(n) || nondeterministic[n.Op] || len(n.Outputs) == 0 {
		return false
	}
	for _, o := range n.Outputs {
		if o == nil {
			continue
		}
		// A body's outputs may be constants (only the main graph keeps
		// its outputs node-produced).
		if g.IsOutput(o) && g.Parent == nil || (o.Type.Kind != ir.KindTensor && o.Type.Kind != ir.KindUnknown) {
			return false
		}
	}
	return true
}

// outputsFit reports whether n's inferred outputs stay within max bytes
// (unknown sizes are checked after evaluation).
func outputsFit(n *ir.Node, max int64) bool {
	for _, o := range n.Outputs {
		if o == nil {
			continue
		}
		if k, ok := o.Type.Shape.NumElements(); ok && o.Type.DType.Valid() && o.Type.DType.StorageBytes(k) > max {
			return false
		}
	}
	return true
}

// promote turns n's outputs into initializers holding ts and detaches n
// (the caller sweeps g.Nodes once: ir.Graph.SweepNodes). The values keep
// their identity, names and uses.
func promote(g *ir.Graph, n *ir.Node, ts []*ir.Tensor) {
	g.DetachNode(n)
	for i, o := range n.Outputs {
		if o == nil || i >= len(ts) || ts[i] == nil {
			continue
		}
		t := ts[i]
		t.Name = o.Name
		o.Producer, o.ProducerOut = nil, 0
		o.Const = t
		o.Type = t.Type()
		g.Initializers = append(g.Initializers, o)
	}
}
