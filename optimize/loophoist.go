package optimize

// This file implements loop-invariant code motion out of Loop and Scan
// bodies.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// loopHoist moves the loop-invariant nodes of every Loop and Scan body of
// the graph out of the body, before the loop, so that they run once
// instead of once per iteration. A body node is invariant when it is a
// deterministic ai.onnx op without subgraphs, no output of it is a body
// output, and every input it reads is an outer-scope value the body
// captures, a constant of the body, or an output of another invariant
// node. The body's own inputs (a Loop's iteration number and condition,
// its loop-carried values, a Scan's state and scan slices) vary by
// iteration and are never invariant, nor is anything computed from them.
// The body's constants an invariant node reads become constants of the
// graph (the body then reads them from the enclosing scope, which ONNX
// allows). The moved nodes keep their names and their outputs' names, so
// the body's readers resolve them in the enclosing scope.
//
// A Loop whose trip count is a constant 0 or 1 is left alone: hoisting
// gains nothing there and would run, for a trip count of 0, work the loop
// never runs. (With a dynamic trip count the hoisted nodes run even when
// the loop runs zero times: they have no side effects, and the cost is one
// iteration's worth of them.)
func loopHoist(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	var rw []Rewrite
	for _, n := range nodesInOrder(g) {
		if !n.Is(ir.OpLoop) && !n.Is(ir.OpScan) {
			continue
		}
		body := n.AttrGraph("body")
		if body == nil || !worthHoisting(n) {
			continue
		}
		inv := invariantNodes(body)
		if len(inv) == 0 {
			continue
		}
		for _, v := range append([]*ir.Value(nil), body.Initializers...) {
			for _, u := range v.Uses {
				if inv[u.Node] {
					moveInitializer(v, g)
					break
				}
			}
		}
		var moved []string
		for _, m := range nodesInOrder(body) {
			if inv[m] {
				moveNode(m, g)
				moved = append(moved, ir.NodeLabel(m))
			}
		}
		sweepNodes(body)
		rw = append(rw, Rewrite{Before: moved, After: moved,
			Remark: fmt.Sprintf("loop-invariant: hoisted out of %s %s (%d nodes run once, not per iteration)", n.Op, ir.NodeLabel(n), len(moved))})
	}
	return rw, nil
}

// worthHoisting reports whether loop n may run more than once.
func worthHoisting(n *ir.Node) bool {
	if !n.Is(ir.OpLoop) {
		return true
	}
	if t, ok := constCondInt(n.Input(0)); ok && t <= 1 {
		return false
	}
	return true
}

// constCondInt returns the single integer of a constant value.
func constCondInt(v *ir.Value) (int64, bool) {
	if v == nil || v.Const == nil || !v.Const.DType.IsInt() {
		return 0, false
	}
	vals, err := v.Const.Int64Values(1)
	if err != nil || len(vals) != 1 {
		return 0, false
	}
	return vals[0], true
}

// invariantNodes returns body's loop-invariant nodes (see loopHoist).
func invariantNodes(body *ir.Graph) map[*ir.Node]bool {
	inv := map[*ir.Node]bool{}
	isInput := map[*ir.Value]bool{}
	for _, v := range body.Inputs {
		isInput[v] = true
	}
	fixed := func(v *ir.Value) bool {
		switch {
		case v == nil:
			return true
		case v.Graph != body:
			return true // captured from an enclosing scope
		case isInput[v]:
			return false // iteration number, condition, carried state, scan slice
		case v.Producer == nil:
			return v.Const != nil
		}
		return inv[v.Producer]
	}
	for _, m := range nodesInOrder(body) {
		if !isDefault(m) || hasSubgraph(m) || nondeterministic[m.Op] || len(m.Outputs) == 0 {
			continue
		}
		ok := true
		for _, in := range m.Inputs {
			if !fixed(in) {
				ok = false
				break
			}
		}
		for _, o := range m.Outputs {
			if o != nil && (body.IsOutput(o) || o.Type.Kind == ir.KindSequence) {
				ok = false
			}
		}
		if ok {
			inv[m] = true
		}
	}
	return inv
}
