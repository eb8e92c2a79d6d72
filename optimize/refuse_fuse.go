package optimize

// This file words the generic fuser's refusals (fuse.go calls these at
// its guards): which nodes, which guard, and what fusing would have saved.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// label names the node at position i for a refusal: "Add_3 (Add)".
func (s *fuseState) label(i int) string {
	if i < 0 || i >= len(s.order) {
		return "the graph's outputs"
	}
	n := s.order[i]
	return ir.NodeLabel(n) + " (" + n.Op + ")"
}

// refuse records that i was not fused into p: the saving is i's outputs
// written and read back, and one launch.
func (s *fuseState) refuse(code ir.Code, i, p int, format string, args ...any) {
	if !s.c.Opt.Refusals {
		return
	}
	var b float64
	for _, o := range s.order[i].Outputs {
		b += 2 * valueBytes(o)
	}
	nodes := []*ir.Node{s.order[i]}
	if p >= 0 {
		nodes = append(nodes, s.order[p])
	}
	s.c.Refuse(code, nodes, fmt.Sprintf(format, args...), Saving{Bytes: b, Kernels: 1})
}

// refuseNoPdom words why elementwise node i has no post-dominator to fuse
// into: its output is also a graph output, or read by a second node
// outside the group its first reader would make, or inside a subgraph.
func (s *fuseState) refuseNoPdom(i int) {
	if !s.c.Opt.Refusals {
		return
	}
	n := s.order[i]
	first, firstOK := -1, false
	for _, j := range s.cons[i] {
		if s.kind[j] <= ir.CommReduce && s.kind[j] != ir.Opaque {
			first, firstOK = j, true
			break
		}
	}
	if !firstOK {
		return // no reader it could fuse with: not a candidate
	}
	for _, o := range n.Outputs {
		if o == nil {
			continue
		}
		if s.g.IsOutput(o) {
			s.refuse(ir.RefuseOutsideReader, i, first, "%s's output %s is also a graph output, so it is written out whether or not %s fuses into %s", s.label(i), o.Name, s.label(i), s.label(first))
			return
		}
		for _, u := range o.Uses {
			if u.Node.Graph != s.g {
				s.refuse(ir.RefuseOutsideReader, i, first, "%s's output %s is also read inside a subgraph of %s, outside the group", s.label(i), o.Name, ir.NodeLabel(topLevelNode(s.g, u.Node)))
				return
			}
		}
	}
	for _, j := range s.cons[i] {
		if j != first {
			s.refuse(ir.RefuseOutsideReader, i, first, "%s's output is also read by %s outside the group (%s + %s): their paths do not meet again", s.label(i), s.label(j), s.label(i), s.label(first))
			return
		}
	}
}

// topLevelNode is the node of g holding n (n itself when it is g's).
func topLevelNode(g *ir.Graph, n *ir.Node) *ir.Node {
	for depth := 0; n != nil && depth < 64; depth++ {
		if n.Graph == g || n.Graph == nil {
			return n
		}
		n = n.Graph.ParentNode
	}
	return n
}

// refusePath words why the path from i to its post-dominator p cannot
// fuse: the first node on it of a kind over limit.
func (s *fuseState) refusePath(i, p int, limit Kind) {
	if !s.c.Opt.Refusals {
		return
	}
	seen := map[int]bool{}
	stack := append([]int(nil), s.cons[i]...)
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if q == p || seen[q] {
			continue
		}
		seen[q] = true
		if q > p || s.kind[q] > limit {
			s.refuse(ir.RefusePathKind, i, p, "%s lies between %s and %s and is not fusable in this position (kind %s)", s.label(q), s.label(i), s.label(p), s.kind[q])
			return
		}
		if len(seen) > s.cap {
			s.refuse(ir.RefuseGroupCap, i, p, "the path from %s to %s passes more than %d nodes", s.label(i), s.label(p), s.cap)
			return
		}
		stack = append(stack, s.cons[q]...)
	}
}

// refuseNonConvex records a group dropped because a path leaves it and
// comes back.
func (s *fuseState) refuseNonConvex(members []*ir.Node) {
	if !s.c.Opt.Refusals || len(members) < 2 {
		return
	}
	in := map[*ir.Node]bool{}
	for _, m := range members {
		in[m] = true
	}
	var b float64
	for _, m := range members {
		for _, o := range m.Outputs {
			if o != nil && !usedOutside(s.g, o, in) {
				b += 2 * valueBytes(o)
			}
		}
	}
	s.c.Refuse(ir.RefuseNonConvex, members, fmt.Sprintf("the group %s ... %s (%d nodes) is not convex: a path leaves it and comes back, so one kernel would wait on itself",
		ir.NodeLabel(members[0]), ir.NodeLabel(members[len(members)-1]), len(members)), Saving{Bytes: b, Kernels: int64(len(members) - 1)})
}

// refusePattern words why a matched pattern (op, of members ms) was not
// fused: the first guard of acceptable or pinsAny it fails.
func (c *Context) refusePattern(op string, ms []*ir.Node, claimed map[*ir.Node]bool, pos nodePositions) {
	if !c.Opt.Refusals {
		return
	}
	g := c.Graph()
	in := map[*ir.Node]bool{}
	last, lastPos := (*ir.Node)(nil), -1
	for _, m := range ms {
		if m == nil {
			return
		}
		in[m] = true
		if p, ok := pos.of(m); ok && p > lastPos {
			last, lastPos = m, p
		}
	}
	var b float64
	for _, m := range ms {
		if m == last {
			continue
		}
		for _, o := range m.Outputs {
			b += 2 * valueBytes(o)
		}
	}
	save := Saving{Bytes: b, Kernels: int64(len(ms) - 1)}
	what := fmt.Sprintf("%s pattern %s ... %s", op, ir.NodeLabel(ms[0]), ir.NodeLabel(last))
	for _, m := range ms {
		if claimed[m] {
			c.Refuse(ir.RefuseClaimed, ms, fmt.Sprintf("%s: %s already belongs to another %s group", what, ir.NodeLabel(m), op), save)
			return
		}
	}
	for _, m := range ms {
		if m == last {
			continue
		}
		for _, o := range m.Outputs {
			if o == nil {
				continue
			}
			if g.IsOutput(o) {
				c.Refuse(ir.RefuseOutsideReader, ms, fmt.Sprintf("%s: %s's output %s is also a graph output", what, ir.NodeLabel(m), o.Name), save)
				return
			}
			for _, u := range o.Uses {
				if !in[u.Node] {
					c.Refuse(ir.RefuseOutsideReader, ms, fmt.Sprintf("%s: %s's output is also read by %s outside the group", what, labelOp(m), labelOp(topLevelNode(g, u.Node))), save)
					return
				}
			}
		}
	}
	if c.pinsAny(ms) {
		c.Refuse(ir.RefusePinned, ms, what+": a value inside it is referenced by name from a subgraph", save)
		return
	}
	c.Refuse(ir.RefuseNonConvex, ms, what+": not convex, or a member is outside the schedule", save)
}

// labelOp is "Add_3 (Add)", or the label alone when it is the op.
func labelOp(n *ir.Node) string {
	l := ir.NodeLabel(n)
	if l == n.Op {
		return l
	}
	return l + " (" + n.Op + ")"
}
