package optimize

// This file implements dead-code elimination.

import (
	"github.com/wolong-dev/wolong/ir"
)

// dce deletes the main graph's nodes none of whose outputs is needed for a
// graph output, and initializers nothing reads. Liveness flows backward
// from the graph outputs through node inputs and through the outer values
// that a node's subgraphs capture. It does not look inside subgraphs, and
// it never removes graph inputs (the optimized model keeps its interface).
func dce(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	order := nodesInOrder(g)
	live := newNodeSet(g)
	need := func(v *ir.Value) {
		if v != nil && v.Producer != nil && v.Producer.Graph == g {
			live.add(v.Producer)
		}
	}
	for _, o := range g.Outputs {
		need(o)
	}
	for _, n := range order {
		for _, o := range n.Outputs {
			if c.pinned(o) {
				live.add(n)
			}
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		if !live.has(n) {
			continue
		}
		for _, in := range n.Inputs {
			need(in)
		}
		if hasSubgraph(n) {
			n.EachCaptured(need) // a repeat adds nothing
		}
	}
	var rw []Rewrite
	dead := map[*ir.Node]bool{}
	for _, n := range order {
		if !live.has(n) {
			dead[n] = true
			rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, Remark: "dead " + n.QualifiedOp()})
		}
	}
	for n := range dead {
		if hasSubgraph(n) && !ir.IsFused(n) {
			dropBodyUses(n) // else the values its bodies read keep uses by nodes gone
		}
	}
	removeNodes(g, dead)
	// Initializers no live node reads (graph inputs are kept).
	isInput := map[*ir.Value]bool{}
	for _, v := range g.Inputs {
		isInput[v] = true
	}
	var kept []*ir.Value
	var gone []string
	for _, v := range g.Initializers {
		if len(v.Uses) == 0 && !g.IsOutput(v) && !isInput[v] {
			gone = append(gone, v.Name)
			continue
		}
		kept = append(kept, v)
	}
	if len(gone) > 0 {
		g.Initializers = kept
		rw = append(rw, Rewrite{Before: gone, Remark: "unused initializers", dropsOnly: true})
	}
	return rw, nil
}
