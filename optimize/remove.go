package optimize

// This file holds node and use removal whose cost does not grow with the
// graph: ir.(*Graph).RemoveNode scans the node list (O(nodes) for each node
// removed) and removes a use by searching its value's use list from the
// front and shifting the rest down (O(uses) for each use removed: O(uses²)
// when the readers of one shared weight are rewritten one by one). A pass
// that removes nodes one at a time calls removeNode, which drops the
// node's uses at once (later checks in the pass see current use lists)
// and leaves it in the node list, detached, until the pass calls
// sweepNodes once at its end; rewire and the other input edits go through
// dropUse.

import "github.com/wolong-dev/wolong/ir"

// dropUse removes the use of v by input i of n, keeping the order of the
// other uses (as ir.(*Node).SetInput does). It searches from both ends and
// shifts the shorter side: a use near either end (the first reader of a
// shared value, or the one just added) costs O(1), never O(uses).
func dropUse(v *ir.Value, n *ir.Node, i int) {
	us := v.Uses
	for lo, hi := 0, len(us)-1; lo <= hi; lo, hi = lo+1, hi-1 {
		k := -1
		switch {
		case us[lo].Node == n && us[lo].Index == i:
			k = lo
		case us[hi].Node == n && us[hi].Index == i:
			k = hi
		}
		if k < 0 {
			continue
		}
		if k < len(us)/2 {
			copy(us[1:k+1], us[:k])
			us[0] = ir.Use{}
			v.Uses = us[1:]
		} else {
			copy(us[k:], us[k+1:])
			us[len(us)-1] = ir.Use{}
			v.Uses = us[:len(us)-1]
		}
		return
	}
}

// setInput replaces input i of n with v, keeping use lists current: what
// ir.(*Node).SetInput does, with dropUse's removal.
func setInput(n *ir.Node, i int, v *ir.Value) {
	if old := n.Inputs[i]; old != nil {
		dropUse(old, n, i)
	}
	n.Inputs[i] = v
	if v != nil {
		v.Uses = append(v.Uses, ir.Use{Node: n, Index: i})
	}
}

// removeNode deletes n from g as g.RemoveNode does (its uses of its inputs
// dropped, n.Graph nil, n.Inputs kept), except that n stays in g.Nodes
// until sweepNodes(g): the pass must call it before it returns, and
// before it walks g.Nodes again.
func removeNode(g *ir.Graph, n *ir.Node) {
	for i, in := range n.Inputs {
		if in != nil {
			dropUse(in, n, i)
		}
	}
	g.DetachNode(n)
}

// sweepNodes takes the nodes removeNode detached (or moveNode moved to
// another graph) out of g.Nodes, in one pass over the list.
func sweepNodes(g *ir.Graph) {
	kept := g.Nodes[:0]
	for _, n := range g.Nodes {
		if n.Graph == g {
			kept = append(kept, n)
		}
	}
	clear(g.Nodes[len(kept):])
	g.Nodes = kept
}

// removeNodes deletes a set of nodes from g as g.RemoveNodes does, in
// time linear in the nodes and the use lists of their inputs (RemoveNodes
// removes each use with a search from the front of its list).
func removeNodes(g *ir.Graph, dead map[*ir.Node]bool) {
	if len(dead) == 0 {
		return
	}
	for _, n := range g.Nodes {
		if dead[n] {
			g.DetachNode(n)
		}
	}
	g.SweepNodes()
}
