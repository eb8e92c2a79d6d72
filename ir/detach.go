package ir

// DetachNode marks n removed (n.Graph = nil) and leaves it in g.Nodes and
// in its inputs' use lists until SweepNodes takes it out of both. A pass
// that removes many nodes one at a time detaches each and sweeps once:
// RemoveNode scans g.Nodes and the input's use list for each removal,
// O(nodes x removed) on a large graph, and O(uses x removed) where the
// removed nodes share an input (BatchNorm statistics CSE merged, say).
// Until the sweep, nothing but the remover may read g.Nodes or the use
// lists of the detached nodes' inputs: sweep before handing g on.
func (g *Graph) DetachNode(n *Node) { n.Graph = nil }

// SweepNodes takes the nodes DetachNode marked out of g.Nodes and out of
// their inputs' use lists, each list and g.Nodes filtered once, keeping
// the order of what stays (the state RemoveNode on each would leave).
func (g *Graph) SweepNodes() {
	kept := g.Nodes[:0]
	var gone []*Node
	for _, n := range g.Nodes {
		if n.Graph != nil {
			kept = append(kept, n)
		} else {
			gone = append(gone, n)
		}
	}
	clear(g.Nodes[len(kept):])
	g.Nodes = kept
	if len(gone) == 0 {
		return
	}
	seen := map[*Value]bool{}
	for _, n := range gone {
		for _, in := range n.Inputs {
			if in == nil || seen[in] {
				continue
			}
			seen[in] = true
			uses := in.Uses[:0]
			for _, u := range in.Uses {
				if u.Node.Graph != nil {
					uses = append(uses, u)
				}
			}
			clear(in.Uses[len(uses):])
			in.Uses = uses
		}
	}
}
