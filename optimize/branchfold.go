package optimize

// This file implements branch folding: an If whose condition is a
// constant is replaced by the branch the condition selects.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// branchFold inlines the taken branch of every If of the graph whose
// condition is a constant (an initializer, or a value inference knows,
// such as a comparison of a static dim or a constant sample rate that
// constfold and shapefold resolved): the branch's nodes move into the
// graph (their outputs keep their names, so readers in nested bodies still
// resolve them), its initializers become the graph's, the If's outputs
// are replaced by the branch's, and the other branch is dropped.
//
// Skipped: branches with formal inputs (some exporters write them and rely
// on name resolution; ONNX If branches have none), and an If whose output
// a subgraph references by name (pinned). When an If output is a graph
// output that the branch cannot take the name of (the branch returns an
// outer value or returns one value twice), an Identity keeps the output
// node-produced; noop removes it where it can.
func branchFold(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	var rw []Rewrite
	for _, n := range nodesInOrder(g) {
		if !n.Is(ir.OpIf) || len(n.Inputs) != 1 {
			continue
		}
		cond, ok := constCond(n.Input(0))
		if !ok {
			continue
		}
		which := "else_branch"
		if cond {
			which = "then_branch"
		}
		br := n.AttrGraph(which)
		if br == nil || len(br.Inputs) > 0 || len(br.Outputs) != len(n.Outputs) || pinsOutput(c, n) {
			continue
		}
		moved := inlineBranch(c, g, n, br)
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, After: moved,
			Remark: fmt.Sprintf("constant condition %v: %s inlined (%d nodes)", cond, which, len(moved))})
	}
	sweepNodes(g)
	return rw, nil
}

// constCond returns the value of a constant If condition.
func constCond(v *ir.Value) (bool, bool) {
	if v == nil {
		return false, false
	}
	if len(v.Known()) == 1 && v.Known()[0].IsConcrete() {
		return v.Known()[0].Val != 0, true
	}
	if t := v.Const; t != nil && (t.DType == ir.Bool || t.DType.IsInt()) {
		if vals, err := t.Int64Values(1); err == nil && len(vals) == 1 {
			return vals[0] != 0, true
		}
	}
	return false, false
}

// pinsOutput reports whether an output of n is pinned.
func pinsOutput(c *Context, n *ir.Node) bool {
	for _, o := range n.Outputs {
		if c.pinned(o) {
			return true
		}
	}
	return false
}

// inlineBranch moves br's nodes and initializers into g, replaces the
// outputs of If node n by br's and deletes n with its other branch. It
// returns the names of the nodes it moved.
func inlineBranch(c *Context, g *ir.Graph, n *ir.Node, br *ir.Graph) []string {
	for _, v := range append([]*ir.Value(nil), br.Initializers...) {
		moveInitializer(v, g)
	}
	var moved []string
	for _, m := range nodesInOrder(br) {
		moveNode(m, g)
		moved = append(moved, ir.NodeLabel(m))
	}
	sweepNodes(br)
	// br.Outputs now lists values of g (moved outputs, or initializers
	// ReplaceAllUses put there) or of an enclosing graph.
	srcs := append([]*ir.Value(nil), br.Outputs...)
	outs := append([]*ir.Value(nil), n.Outputs...)
	dropBodyUses(n)
	removeNode(g, n)
	for i, y := range outs {
		if id := c.replaceOutput(g, y, srcs[i], "branchfold_identity"); id != "" {
			moved = append(moved, id)
		}
	}
	return moved
}

// replaceOutput makes the readers of y, an output of a node being deleted
// from g, read src instead. When y is a graph output that src cannot
// become (src is an outer value, a graph input or already an output), an
// Identity named from prefix computes y from src; its name is returned
// ("" when none was needed). y must not be pinned.
func (c *Context) replaceOutput(g *ir.Graph, y, src *ir.Value, prefix string) string {
	if y == nil || c.substitute(y, src) {
		return ""
	}
	name := c.newName(prefix)
	id := g.AddNode("Identity", "", name, []*ir.Value{src}, []string{name + "_out"})
	out := id.Outputs[0]
	out.Type = y.Type
	c.substitute(y, out) // a fresh node output: always takes y's place
	return name
}
