package optimize

// This file turns groups of nodes into fused wolong nodes.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// group is a set of main-graph nodes that will become one fused node.
type group struct {
	members []*ir.Node // in schedule order
	op      string     // fused op name, e.g. "FusedConvBiasRelu"
	name    string     // fused node name, e.g. "fused_conv_0"
	remark  string
	fused   *ir.Node // set by materialize
	// attrs and roles are what a pattern matcher recognized (see match).
	attrs []*ir.Attr
	roles map[*ir.Value]string
}

// materialize replaces every group (disjoint, each convex: no path leaves
// and re-enters it) by one node of domain "wolong" whose GRAPH attribute
// "body" holds the members as a subgraph. The body's inputs are the
// group's external inputs in first-use order and bind positionally to the
// node's inputs; its outputs are the member outputs read outside the group
// or that are graph outputs, which keep their Value identity (names, uses)
// as outputs of the fused node. The fused node takes the position of the
// group's last member. One sweep over the graph for all groups.
func materialize(g *ir.Graph, groups []*group) []Rewrite {
	groups = acyclic(g, groups)
	if len(groups) == 0 {
		return nil
	}
	ow := newOwners(g, groups)
	touched := map[*ir.Value]bool{}
	var touchedOrder []*ir.Value
	var rw []Rewrite
	for _, gr := range groups {
		fn := &ir.Node{Name: gr.name, Op: gr.op, Domain: ir.FusedDomain}
		body := ir.NewGraph(gr.name + "_body")
		body.Parent, body.ParentNode = g, fn
		inner := map[*ir.Value]*ir.Value{}
		var ext []*ir.Value
		for _, m := range gr.members {
			ins := make([]*ir.Value, len(m.Inputs))
			for i, v := range m.Inputs {
				if v == nil {
					continue
				}
				if w, ok := inner[v]; ok {
					ins[i] = w
					continue
				}
				// An external input (not produced by a member).
				w := body.AddInput(v.Name, v.Type.Clone())
				w.Known = v.Known
				inner[v] = w
				ext = append(ext, v)
				ins[i] = w
				if !touched[v] {
					touched[v] = true
					touchedOrder = append(touchedOrder, v)
				}
			}
			outs := make([]string, len(m.Outputs))
			for i, o := range m.Outputs {
				if o != nil {
					outs[i] = o.Name
				}
			}
			bn := body.AddNode(m.Op, m.Domain, m.Name, ins, outs, m.Attrs...)
			for _, sg := range bn.Subgraphs() {
				sg.Parent, sg.ParentNode = body, bn // a nested fused kernel
			}
			bn.Overload, bn.Doc, bn.Metadata = m.Overload, m.Doc, m.Metadata
			for i, o := range m.Outputs {
				if o != nil {
					bo := bn.Outputs[i]
					bo.Type, bo.Known = o.Type.Clone(), o.Known
					inner[o] = bo
				}
			}
		}
		var exposed []*ir.Value
		for _, m := range gr.members {
			for _, o := range m.Outputs {
				if o != nil && ow.usedOutside(o, gr) {
					exposed = append(exposed, o)
					body.Outputs = append(body.Outputs, inner[o])
				}
			}
		}
		// The members' uses of their outer inputs and their outputs' uses by
		// other members go away with them.
		for _, m := range gr.members {
			for _, o := range m.Outputs {
				if o != nil && !touched[o] {
					touched[o] = true
					touchedOrder = append(touchedOrder, o)
				}
			}
		}
		fn.Inputs = ext
		fn.Outputs = exposed
		fn.Attrs = append([]*ir.Attr{{Name: ir.FusedBodyAttr, Type: ir.AttrGraph, G: body}}, gr.attrs...)
		if len(gr.roles) > 0 {
			rs := make([][]byte, len(ext))
			for i, v := range ext {
				rs[i] = []byte(gr.roles[v])
			}
			fn.Attrs = append(fn.Attrs, &ir.Attr{Name: ir.FusedRoles, Type: ir.AttrStrings, Strings: rs})
		}
		gr.fused = fn
		rw = append(rw, Rewrite{Before: names(gr.members), After: []string{gr.name}, Sep: "+",
			Remark: fmt.Sprintf("%s:%s, %d nodes in one kernel%s", ir.FusedDomain, gr.op, len(gr.members), gr.remark)})
	}
	// Drop the members' uses in one filter per touched value.
	for _, v := range touchedOrder {
		kept := v.Uses[:0]
		for _, u := range v.Uses {
			if ow.of(u.Node) == nil {
				kept = append(kept, u)
			}
		}
		for i := len(kept); i < len(v.Uses); i++ {
			v.Uses[i] = ir.Use{}
		}
		v.Uses = kept
	}
	final := make([]*ir.Node, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		gr := ow.of(n)
		if gr == nil {
			final = append(final, n)
			continue
		}
		if ow.last[gr] == n {
			final = append(final, gr.fused)
		}
	}
	for _, gr := range groups {
		for _, m := range gr.members {
			m.Graph = nil
		}
	}
	for _, gr := range groups {
		g.AttachNode(gr.fused) // IDs, uses of the inputs, producers of the outputs
		for _, o := range gr.fused.Outputs {
			if o.Declared == nil && !g.IsOutput(o) {
				d := o.Type.Clone()
				o.Declared = &d // re-running inference keeps the fused node's types
			}
		}
	}
	g.Nodes = final
	return rw
}

// owners says which group each main-graph node belongs to, by node ID
// (no map keyed by pointer), and which member of each group comes last in
// g.Nodes.
type owners struct {
	g     *ir.Graph
	owner []*group
	last  map[*group]*ir.Node
}

func newOwners(g *ir.Graph, groups []*group) *owners {
	ow := &owners{g: g, owner: make([]*group, g.NumNodeIDs()), last: make(map[*group]*ir.Node, len(groups))}
	for _, gr := range groups {
		for _, m := range gr.members {
			ow.owner[m.ID] = gr
		}
	}
	for _, n := range g.Nodes {
		if gr := ow.of(n); gr != nil {
			ow.last[gr] = n
		}
	}
	return ow
}

// of returns n's group, nil for a node in no group or outside g.
func (ow *owners) of(n *ir.Node) *group {
	if n == nil || n.Graph != ow.g || n.ID < 0 || n.ID >= len(ow.owner) {
		return nil
	}
	return ow.owner[n.ID]
}

// usedOutside reports whether v is a graph output or read by a node
// outside gr (usedOutside's question, members given by group).
func (ow *owners) usedOutside(v *ir.Value, gr *group) bool {
	if ow.g.IsOutput(v) {
		return true
	}
	for _, u := range v.Uses {
		if ow.of(u.Node) != gr {
			return true
		}
	}
	return false
}

// convex reports whether no path leaves the member set and re-enters it
// (contracting it to one node would make a cycle). pos is the schedule
// position of every main-graph node; only nodes before the last member
// are explored, so the check is bounded by the group's window.
func convex(g *ir.Graph, members []*ir.Node, pos map[*ir.Node]int) bool {
	in := map[*ir.Node]bool{}
	maxPos := -1
	for _, m := range members {
		in[m] = true
		maxPos = max(maxPos, pos[m])
	}
	seen := map[*ir.Node]bool{}
	var stack []*ir.Node
	push := func(n *ir.Node) {
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			for _, u := range o.Uses {
				c := topLevel(g, u.Node)
				if c == nil || in[c] || seen[c] || pos[c] > maxPos {
					continue
				}
				seen[c] = true
				stack = append(stack, c)
			}
		}
	}
	for _, m := range members {
		push(m)
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			for _, u := range o.Uses {
				if c := topLevel(g, u.Node); c != nil && in[c] {
					return false
				}
			}
		}
		push(n)
	}
	return true
}

// topLevel returns the node of g that holds n (n itself, or the ancestor
// whose subgraph contains n), or nil.
func topLevel(g *ir.Graph, n *ir.Node) *ir.Node {
	for n != nil && n.Graph != g {
		if n.Graph == nil {
			return nil
		}
		n = n.Graph.ParentNode
	}
	return n
}

// positions maps each node of g to its index in a topological order.
func positions(order []*ir.Node) map[*ir.Node]int {
	pos := make(map[*ir.Node]int, len(order))
	for i, n := range order {
		pos[n] = i
	}
	return pos
}

// acyclic drops groups until contracting all of them leaves the graph
// acyclic: each group may be convex on its own while two groups together
// close a cycle (A -> x -> B -> y -> A). Kahn's algorithm over the
// contracted graph finds the nodes left on or behind a cycle; the groups
// among them are dropped (conservatively) and the check repeats.
func acyclic(g *ir.Graph, groups []*group) []*group {
	for len(groups) > 0 {
		// Quotient vertices: groups 0..G-1, then ungrouped nodes; id is
		// indexed by node ID (-1: not listed in g).
		id := make([]int, g.NumNodeIDs())
		for i := range id {
			id[i] = -1
		}
		for k, gr := range groups {
			for _, m := range gr.members {
				id[m.ID] = k
			}
		}
		next := len(groups)
		for _, n := range g.Nodes {
			if id[n.ID] < 0 {
				id[n.ID] = next
				next++
			}
		}
		// An edge repeated (two members reading one producer) is kept
		// twice: Kahn's algorithm counts it twice both ways, so what it
		// finds is the same.
		indeg := make([]int, next)
		succ := make([][]int, next)
		for _, n := range g.Nodes {
			to := id[n.ID]
			for _, d := range ir.Deps(g, n) {
				if d.ID < 0 || d.ID >= len(id) || id[d.ID] < 0 || id[d.ID] == to {
					continue
				}
				from := id[d.ID]
				succ[from] = append(succ[from], to)
				indeg[to]++
			}
		}
		var queue []int
		for v := 0; v < next; v++ {
			if indeg[v] == 0 {
				queue = append(queue, v)
			}
		}
		done := 0
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			done++
			for _, w := range succ[v] {
				if indeg[w]--; indeg[w] == 0 {
					queue = append(queue, w)
				}
			}
		}
		if done == next {
			return groups
		}
		kept := groups[:0]
		for k, gr := range groups {
			if indeg[k] == 0 {
				kept = append(kept, gr)
			}
		}
		if len(kept) == len(groups) {
			return groups // the cycle is not ours: the verifier reports it
		}
		groups = kept
	}
	return groups
}
