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

// body is one control-flow body and its path from the main graph.
type body struct {
	g    *ir.Graph
	path string
}

// controlBodies returns the If/Loop/Scan (and any other non-fused
// graph-holding node's) bodies under g, innermost first: each body after
// the bodies nested in it, and in node order otherwise. Fused kernels'
// bodies are not listed: a fused group is one kernel, rewritten only by
// the pass that made it.
func controlBodies(g *ir.Graph) []body {
	var out []body
	var visit func(g *ir.Graph, prefix string)
	visit = func(g *ir.Graph, prefix string) {
		for _, n := range g.Nodes {
			if !hasSubgraph(n) || ir.IsFused(n) {
				continue
			}
			for _, a := range n.Attrs {
				switch a.Type {
				case ir.AttrGraph:
					if a.G != nil {
						p := prefix + ownerLabel(n) + "/" + a.Name
						visit(a.G, p+"/")
						out = append(out, body{a.G, p})
					}
				case ir.AttrGraphs:
					for i, sg := range a.Graphs {
						if sg != nil {
							p := fmt.Sprintf("%s%s/%s[%d]", prefix, ownerLabel(n), a.Name, i)
							visit(sg, p+"/")
							out = append(out, body{sg, p})
						}
					}
				}
			}
		}
	}
	visit(g, "")
	return out
}

// runPassAll runs p on every control-flow body of the model, innermost
// first (unless p is MainOnly), then on the main graph, and returns the
// rewrites of all, each body's marked with its path. A body that p
// changed is re-sorted and verified here; the main graph is left to Run.
func runPassAll(c *Context, p Pass) ([]Rewrite, error) {
	var all []Rewrite
	if !p.MainOnly {
		for _, b := range controlBodies(c.Model.Graph) {
			rw, err := runPassOn(c, p, b.g)
			if err != nil {
				return nil, fmt.Errorf("%v (in %s)", err, b.path)
			}
			if len(rw) == 0 {
				continue
			}
			if err := ir.SortNodes(b.g); err != nil {
				return nil, fmt.Errorf("after pass %q in %s: %v", p.Name, b.path, err)
			}
			if err := ir.VerifyGraph(b.g); err != nil {
				return nil, fmt.Errorf("after pass %q in %s: %v", p.Name, b.path, err)
			}
			for i := range rw {
				rw[i].Graph = b.path
			}
			all = append(all, rw...)
		}
	}
	rw, err := runPass(c, p)
	if err != nil {
		return nil, err
	}
	return append(all, rw...), nil
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
func hasControlFlow(g *ir.Graph) bool { return len(controlBodies(g)) > 0 }
