package optimize

// This file implements the trials the control-flow passes make before a
// rewrite whose gain depends on what follows it: the pass copies the
// model, rewrites the copy (and, for unrolling, runs the rest of the
// pipeline on it), asks the Predictor for the copy's time and rewrites
// the model itself only when the copy is predicted faster.
//
// A node is found in the copy by its path from the main graph: its index
// in its graph's node list and, for each enclosing body, the owner's
// index and the attribute holding the body (ir.CloneModel keeps the
// order of nodes and attributes).
//
// The Predictor keeps its last prediction for the final report (the
// simulator's predictor does), so the model as it is must be the last
// thing a pass predicts: trialPays predicts it after the copy, and a pass
// whose trials end without a rewrite predicts it once more (the driver
// predicts again after a pass that reports one).

import (
	"github.com/wolong-dev/wolong/ir"
)

// pathStep locates a node in its graph: its index in the node list, and
// for a body the attribute of its owner holding it (sub: the index in a
// GRAPHS attribute).
type pathStep struct {
	node int
	attr string
	sub  int
}

// locate returns n's path from the main graph, or false when n is not
// reachable from it.
func locate(n *ir.Node) ([]pathStep, bool) {
	var rev []pathStep
	for n != nil {
		g := n.Graph
		if g == nil {
			return nil, false
		}
		idx := -1
		for i, m := range g.Nodes {
			if m == n {
				idx = i
				break
			}
		}
		if idx < 0 {
			return nil, false
		}
		st := pathStep{node: idx}
		owner := g.ParentNode
		if owner != nil {
			found := false
			for _, a := range owner.Attrs {
				if a.G == g {
					st.attr, found = a.Name, true
				}
				for k, sg := range a.Graphs {
					if sg == g {
						st.attr, st.sub, found = a.Name, k, true
					}
				}
			}
			if !found {
				return nil, false
			}
		} else if g.Parent != nil {
			return nil, false
		}
		rev = append(rev, st)
		n = owner
	}
	out := make([]pathStep, len(rev))
	for i, st := range rev {
		out[len(rev)-1-i] = st
	}
	return out, true
}

// find returns the node at path in m (see locate), or nil.
func find(m *ir.Model, path []pathStep) *ir.Node {
	g := m.Graph
	var n *ir.Node
	for i, st := range path {
		if i > 0 {
			g = nil
			for _, a := range n.Attrs {
				if a.Name != st.attr {
					continue
				}
				if a.Type == ir.AttrGraph {
					g = a.G
				} else if st.sub < len(a.Graphs) {
					g = a.Graphs[st.sub]
				}
			}
		}
		if g == nil || st.node >= len(g.Nodes) {
			return nil
		}
		n = g.Nodes[st.node]
	}
	return n
}

// trialCopy copies c's model and returns the copy and the copy of n in
// it (nil, nil when either fails).
func trialCopy(c *Context, n *ir.Node) (*ir.Model, *ir.Node) {
	path, ok := locate(n)
	if !ok {
		return nil, nil
	}
	m, err := ir.CloneModel(c.Model)
	if err != nil {
		return nil, nil
	}
	cn := find(m, path)
	if cn == nil || cn.Op != n.Op || cn.Name != n.Name {
		return nil, nil
	}
	return m, cn
}

// predictOn predicts m with c's Predictor (ok false without one or when
// it fails).
func predictOn(c *Context, m *ir.Model) (Prediction, bool) {
	if c.Opt.Predictor == nil {
		return Prediction{}, false
	}
	p, err := c.Opt.Predictor.Predict(m)
	return p, err == nil
}

// trialPays compares a trial's prediction with the model's as it is
// (predicted last: see the file comment): it reports whether the trial
// is faster and costs no more nodes as unknown, and gives both times in
// ms. ok is false when either prediction failed.
func trialPays(c *Context, trial *ir.Model) (pays bool, trialMs, nowMs float64, ok bool) {
	t, ok1 := predictOn(c, trial)
	n, ok2 := predictOn(c, c.Model)
	if !ok1 || !ok2 {
		return false, 0, 0, false
	}
	return t.TotalMs < n.TotalMs && t.Unknown <= n.Unknown, t.TotalMs, n.TotalMs, true
}
