package optimize

// This file implements the driver's descent into control flow: every pass
// but the main-graph-only ones (Pass.MainOnly) runs on each If/Loop/Scan
// body before the main graph, innermost body first, so that a body is
// rewritten before the pass looks at the graph that owns it (a folded or
// hoisted body is what the owner's pass sees).
//
// While a pass runs on a body, Context.Graph is the body and the values
// the body captures from enclosing graphs are pinned (Context.pinned):
// the body reads them but may neither rename, replace nor remove them,
// exactly like a graph input of the main graph. Each rewrite made in a
// body carries the body's path from the main graph ("If_3/then_branch",
// "Loop_1/body/If_2/else_branch") in Rewrite.Graph, which explain prints
// before the rewrite. A body a pass changed is re-sorted and verified
// (ir.VerifyGraph, always: bodies are small, and an error there would
// otherwise surface only in ONNX Runtime).

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// body is one control-flow body and where it sits: the owner node, the
// attribute holding it (sub: its index in a GRAPHS attribute, -1 for a
// GRAPH one) and the index of the enclosing body in the list (-1: the
// main graph). Its path from the main graph is built only when needed
// (path): a pass reports rewrites in few bodies, and a model may hold
// thousands of them.
type body struct {
	g      *ir.Graph
	owner  *ir.Node
	attr   string
	sub    int
	parent int
}

// path returns list[i]'s path from the main graph ("If_3/then_branch",
// "Loop_1/body/If_2/else_branch", "Sw/branches[1]").
func path(list []body, i int) string {
	b := list[i]
	p := ownerLabel(b.owner) + "/" + b.attr
	if b.sub >= 0 {
		p = fmt.Sprintf("%s[%d]", p, b.sub)
	}
	if b.parent >= 0 {
		p = path(list, b.parent) + "/" + p
	}
	return p
}

// controlBodies returns the If/Loop/Scan (and any other non-fused
// graph-holding node's) bodies under g, innermost first: each body after
// the bodies nested in it, and in node order otherwise. Fused kernels'
// bodies are not listed: a fused group is one kernel, rewritten only by
// the pass that made it. The list is appended to out[:0] (a buffer the
// caller keeps: the driver lists the bodies before every pass, and a
// model of 10k Ifs has 20k).
func controlBodies(g *ir.Graph, out []body) []body {
	out = out[:0]
	var visit func(g *ir.Graph)
	// add lists sg after the bodies nested in it: those are listed first,
	// with the parent index it gets once they are in (-2 until then).
	add := func(sg *ir.Graph, owner *ir.Node, attr string, sub int) {
		first := len(out)
		visit(sg)
		me := len(out)
		for k := first; k < me; k++ {
			if out[k].parent == -2 {
				out[k].parent = me
			}
		}
		out = append(out, body{sg, owner, attr, sub, -2})
	}
	visit = func(g *ir.Graph) {
		for _, n := range g.Nodes {
			if !hasSubgraph(n) || ir.IsFused(n) {
				continue
			}
			for _, a := range n.Attrs {
				switch a.Type {
				case ir.AttrGraph:
					if a.G != nil {
						add(a.G, n, a.Name, -1)
					}
				case ir.AttrGraphs:
					for i, sg := range a.Graphs {
						if sg != nil {
							add(sg, n, a.Name, i)
						}
					}
				}
			}
		}
	}
	visit(g)
	for k := range out {
		if out[k].parent == -2 {
			out[k].parent = -1 // a body of the main graph
		}
	}
	return out
}

// runPassAll runs p on every control-flow body of the model, innermost
// first (unless p is MainOnly), then on the main graph, and returns the
// rewrites of all, each body's marked with its path. A body that p
// changed is re-sorted and verified here; the main graph is left to Run.
// The bodies are the survey's (listed again after a pass that rewrote).
func runPassAll(c *Context, p Pass) ([]Rewrite, error) {
	var all []Rewrite
	if !p.MainOnly {
		c.survey()
		bodies := c.bodies
		for k, b := range bodies {
			rw, err := runPassOn(c, p, b.g)
			if err != nil {
				return nil, fmt.Errorf("%v (in %s)", err, path(bodies, k))
			}
			if len(rw) == 0 {
				continue
			}
			where := path(bodies, k)
			if err := ir.SortNodes(b.g); err != nil {
				return nil, fmt.Errorf("after pass %q in %s: %v", p.Name, where, err)
			}
			if err := ir.VerifyGraph(b.g); err != nil {
				return nil, fmt.Errorf("after pass %q in %s: %v", p.Name, where, err)
			}
			for i := range rw {
				rw[i].Graph = where
			}
			all = append(all, rw...)
		}
	}
	rw, err := runPass(c, p)
	if err != nil {
		return nil, err
	}
	all = append(all, rw...)
	if len(all) > 0 {
		c.staleCensus() // the bodies and ops may have changed
	}
	return all, nil
}

// runPassOn runs p with g as the graph it rewrites. The Split-size cache
// holds initializers of the graph it was filled on, so it starts afresh
// (a body may read its parent's initializers, never the reverse).
func runPassOn(c *Context, p Pass, g *ir.Graph) ([]Rewrite, error) {
	saved, sizes := c.graph, c.sizes
	c.graph, c.sizes = g, nil
	defer func() { c.graph, c.sizes = saved, sizes }()
	return runPass(c, p)
}

// ownerLabel names a body's owner node in a path: its name, or its op
// and ID when it has none ("If#1", where ir.NodeLabel would say "#1").
func ownerLabel(n *ir.Node) string {
	if n.Name != "" {
		return n.Name
	}
	return n.Op + ir.NodeLabel(n)
}

// hasControlFlow reports whether g holds an If, Loop or Scan body.
func hasControlFlow(g *ir.Graph) bool {
	for _, n := range g.Nodes {
		if hasSubgraph(n) && !ir.IsFused(n) {
			return true // controlBodies lists its bodies
		}
	}
	return false
}
