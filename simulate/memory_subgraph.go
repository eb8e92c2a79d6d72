package simulate

// This file counts the weights a control-flow node's bodies hold (If
// branches, Loop and Scan bodies, nested to any depth) as resident, as
// inspect counts them: exporters such as spox put a model's weights in
// Constant nodes inside If branches. An If whose condition inference
// knows (a constant, or an input given a value with --fill) counts only
// the branch it takes; one whose condition is not known counts both, and
// the prediction says so.

import "github.com/wolong-dev/wolong/ir"

// subgraphWeights adds the weights of n's bodies to the resident bytes
// (a fused kernel's body holds no weights of its own: its members read
// the main graph's). The bodies are those a run executes: the taken
// branch of an If whose condition is known, else every body (counted in
// Result.bothBranches for an If), in attribute order as n.Subgraphs
// lists them; walked without building that list (control-flow models
// have one If or Loop in a few nodes, walked in every prediction).
func (ms *memState) subgraphWeights(n *ir.Node) {
	if ir.IsFused(n) {
		return
	}
	if n.Domain == "" && n.Op == "If" {
		if c := n.Input(0); c != nil && len(c.Known()) == 1 && c.Known()[0].IsConcrete() {
			if c.Known()[0].Val != 0 {
				ms.bodyWeights(n.AttrGraph("then_branch"))
			} else {
				ms.bodyWeights(n.AttrGraph("else_branch"))
			}
			return
		}
		ms.res.bothBranches++
	}
	for _, a := range n.Attrs {
		switch a.Type {
		case ir.AttrGraph:
			if a.G != nil {
				ms.bodyWeights(a.G)
			}
		case ir.AttrGraphs:
			for _, g := range a.Graphs {
				if g != nil {
					ms.bodyWeights(g)
				}
			}
		}
	}
}

// bodyWeights adds the weights of body g (and of its nodes' bodies, at
// any depth) to the resident bytes.
func (ms *memState) bodyWeights(g *ir.Graph) {
	for _, v := range g.Initializers {
		ms.addResident(v)
	}
	for _, in := range g.Inputs {
		if in.Const != nil {
			ms.addResident(in)
		}
	}
	for _, m := range g.Nodes {
		for _, o := range m.Outputs {
			if o != nil && o.Const != nil {
				ms.addResident(o)
			}
		}
		if m.HasSubgraphs() && !ir.IsFused(m) {
			ms.subgraphWeights(m)
		}
	}
}
