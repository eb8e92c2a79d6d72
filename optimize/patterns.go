package optimize

// This file holds the small declarative matcher the pattern fusions
// share: a matcher returns the members of one candidate group, and
// runPattern checks once, for all patterns, that the inner values are
// read only inside the group, that the group is convex and that no node
// is claimed twice.

import (
	"github.com/wolong-dev/wolong/ir"
)

// match is what a matcher found: the members of one candidate group (in
// any order) and what it recognized, which the fused node carries: match
// attributes (ir.FusedEpsilon, ...) and the roles of the values it reads
// (X, Scale, B, ...; the node's ir.FusedRoles attribute).
type match struct {
	members []*ir.Node
	attrs   []*ir.Attr
	roles   map[*ir.Value]string
}

// matcher returns the candidate group rooted at n, or nil.
type matcher func(g *ir.Graph, n *ir.Node) *match

// runPattern applies match at every node and fuses each match into one
// node of op (the node named prefix_k).
func runPattern(c *Context, op, prefix string, match matcher) ([]Rewrite, error) {
	g := c.Graph()
	// Matching changes nothing (materialize rewrites at the end), so the
	// walk reads g.Nodes as it is; the position index is built at the
	// first match: on most models most pattern passes find none.
	var pos nodePositions
	claimed := map[*ir.Node]bool{}
	var groups []*group
	for _, n := range g.Nodes {
		if claimed[n] || !isDefault(n) {
			continue
		}
		mt := match(g, n)
		if mt == nil {
			continue
		}
		ms := mt.members
		if len(ms) < 2 {
			continue
		}
		if pos.order == nil {
			pos = positions(g.Nodes)
		}
		if !acceptable(g, ms, claimed, pos) || c.pinsAny(ms) {
			c.refusePattern(op, ms, claimed, pos)
			continue
		}
		sortByPos(ms, pos)
		for _, m := range ms {
			claimed[m] = true
		}
		groups = append(groups, &group{members: ms, op: op, name: c.newName(prefix), attrs: mt.attrs, roles: mt.roles})
	}
	return materialize(g, groups), nil
}

// acceptable checks a candidate: distinct default-domain unclaimed
// members without subgraphs, only the last member's outputs (in schedule
// order) read outside, and convex.
func acceptable(g *ir.Graph, ms []*ir.Node, claimed map[*ir.Node]bool, pos nodePositions) bool {
	in := map[*ir.Node]bool{}
	lastPos, last := -1, (*ir.Node)(nil)
	for _, m := range ms {
		if m == nil || in[m] || claimed[m] || !isDefault(m) || hasSubgraph(m) {
			return false
		}
		in[m] = true
		if p, ok := pos.of(m); !ok {
			return false
		} else if p > lastPos {
			lastPos, last = p, m
		}
	}
	for _, m := range ms {
		if m == last {
			continue
		}
		for _, o := range m.Outputs {
			if o != nil && usedOutside(g, o, in) {
				return false
			}
		}
	}
	return convex(g, ms, pos)
}

func sortByPos(ms []*ir.Node, pos nodePositions) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && pos.at(ms[j]) < pos.at(ms[j-1]); j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// producer returns the node of op k producing v, or nil.
func producer(v *ir.Value, k ir.OpKey) *ir.Node {
	if v == nil || !v.Producer.Is(k) {
		return nil
	}
	return v.Producer
}

// other returns the input of binary node n that is not v (nil if n does
// not read v).
func other(n *ir.Node, v *ir.Value) *ir.Value {
	if len(n.Inputs) != 2 {
		return nil
	}
	switch v {
	case n.Inputs[0]:
		return n.Inputs[1]
	case n.Inputs[1]:
		return n.Inputs[0]
	}
	return nil
}

// constNear reports whether v is a one-element constant within 1e-3
// (relative) of want.
func constNear(v *ir.Value, want float64) bool {
	f, ok := scalarOf(v)
	if !ok {
		return false
	}
	d := f - want
	if d < 0 {
		d = -d
	}
	return d <= 1e-3*max(1, want)
}

// consumer returns the single consumer of n's first output if it is an
// application of op k.
func consumer(g *ir.Graph, n *ir.Node, k ir.OpKey) *ir.Node {
	if n == nil {
		return nil
	}
	c := onlyConsumer(g, n.Output(0))
	if !c.Is(k) {
		return nil
	}
	return c
}

// pinsAny reports whether a member produces a pinned value.
func (c *Context) pinsAny(ms []*ir.Node) bool {
	for _, m := range ms {
		for _, o := range m.Outputs {
			if c.pinned(o) {
				return true
			}
		}
	}
	return false
}
