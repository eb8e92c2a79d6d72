package optimize

// This file implements generic kernel fusion in the manner of TVM's
// FuseOps.
//
// Note on the fusing algorithm. Take the diamond
//
//	      conv2d
//	     /      \
//	  add(b)   sigmoid
//	     \      /
//	       mul
//	        |
//	      relu
//
// conv2d's immediate post-dominator is mul: every path from conv2d to an
// output passes through it. The fuser therefore
//
//   - builds the post-dominator tree of the main graph's DAG (process the
//     nodes in reverse topological order; a node's immediate post-dominator
//     is the lowest common ancestor, in the tree built so far, of its
//     consumers; a node feeding a graph output or a subgraph has none);
//   - fuses a node into its immediate post-dominator when every node on
//     every path between them satisfies the phase's condition (CheckPath),
//     taking the whole path into the group;
//   - keeps groups in a union-find, at most one anchor (reduction or
//     GEMM/Conv) per group, and at most GroupCap nodes.
//
// Phases, in order: (0) GEMM/Conv/Pool anchors absorb elementwise and
// broadcast epilogues (bias, activation, residual add), and elementwise or
// broadcast nodes join their post-dominator when it is elementwise,
// injective or a reduction (a reduction thus takes its elementwise
// producers); (1) injective ops join injective or elementwise
// post-dominators. A reduction never absorbs its consumers, and a GEMM
// never absorbs its producers (prologue fusion is left undone).
// (2) Multi-output merging, as XLA does: a group joins a consumer group of
// elementwise/injective ops when the union is convex and keeps at most one
// anchor, never as a prologue of a GEMM or an epilogue of a reduction.
// This is what fuses an unrolled LSTM cell (the recurrent GEMM, the Splits
// and the gate arithmetic producing both c and h) into one kernel.
// Each group must be convex; groups that are not are dropped.

import (
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// defaultGroupCap is TVM's kMaxFusedOps.
const defaultGroupCap = 256

// fuseState is the union-find over the main graph's nodes.
type fuseState struct {
	g      *ir.Graph
	order  []*ir.Node
	pos    nodePositions
	parent []int   // union-find parent, by position
	size   []int   // group size at the root
	anchor []int   // position of the group's anchor (-1: none), at the root
	kind   []Kind  // node kinds, by position
	ipdom  []int   // immediate post-dominator position, -1 for none
	depth  []int   // depth in the post-dominator tree
	cons   [][]int // consumer positions
	cap    int
	c      *Context // records refusals (refuse_fuse.go)
}

func (s *fuseState) find(i int) int {
	for s.parent[i] != i {
		s.parent[i] = s.parent[s.parent[i]]
		i = s.parent[i]
	}
	return i
}

// fuseOps groups nodes and replaces each group of two or more by a fused
// wolong node.
func fuseOps(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	order := nodesInOrder(g)
	s := newFuseState(g, order, c.Opt.GroupCap)
	s.c = c
	for i, n := range order {
		for _, o := range n.Outputs {
			if c.pinned(o) {
				s.kind[i], s.anchor[i] = ir.Opaque, -1
			}
		}
	}
	s.phase(0)
	s.phase(1)
	s.multiOutput()
	return materialize(g, s.groups(c)), nil
}

func newFuseState(g *ir.Graph, order []*ir.Node, cap int) *fuseState {
	n := len(order)
	s := &fuseState{g: g, order: order, pos: positions(order), parent: make([]int, n), size: make([]int, n),
		anchor: make([]int, n), kind: make([]Kind, n), ipdom: make([]int, n), depth: make([]int, n), cons: make([][]int, n), cap: cap}
	exit := make([]bool, n)
	for i, nd := range order {
		s.parent[i], s.size[i], s.anchor[i] = i, 1, -1
		s.kind[i] = kindOf(nd)
		if s.kind[i] >= ir.CommReduce && s.kind[i] != ir.Opaque {
			s.anchor[i] = i
		}
		for _, o := range nd.Outputs {
			if o == nil {
				continue
			}
			if g.IsOutput(o) {
				exit[i] = true
			}
			for _, u := range o.Uses {
				if u.Node.Graph != g {
					exit[i] = true // read inside a subgraph: treat as leaving
					continue
				}
				j, ok := s.pos.of(u.Node)
				if !ok {
					exit[i] = true
					continue
				}
				if !containsInt(s.cons[i], j) {
					s.cons[i] = append(s.cons[i], j)
				}
			}
		}
	}
	for i := n - 1; i >= 0; i-- {
		s.ipdom[i] = -1
		if exit[i] || len(s.cons[i]) == 0 {
			s.depth[i] = 1
			continue
		}
		p := s.cons[i][0]
		for _, q := range s.cons[i][1:] {
			p = s.lca(p, q)
			if p < 0 {
				break
			}
		}
		s.ipdom[i] = p
		if p >= 0 {
			s.depth[i] = s.depth[p] + 1
		} else {
			s.depth[i] = 1
		}
	}
	return s
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// lca returns the lowest common ancestor of a and b in the post-dominator
// tree, or -1 (the virtual exit).
func (s *fuseState) lca(a, b int) int {
	for a != b {
		if a < 0 || b < 0 {
			return -1
		}
		if s.depth[a] > s.depth[b] {
			a = s.ipdom[a]
		} else if s.depth[b] > s.depth[a] {
			b = s.ipdom[b]
		} else {
			a, b = s.ipdom[a], s.ipdom[b]
		}
	}
	return a
}

// phase runs one fusion phase over the nodes in schedule order.
func (s *fuseState) phase(ph int) {
	for i := range s.order {
		k := s.kind[i]
		p := s.ipdom[i]
		if k == ir.Opaque || p < 0 || s.find(i) == s.find(p) {
			if p < 0 && ph == 0 && k <= ir.Broadcast && k != ir.Opaque {
				s.refuseNoPdom(i)
			}
			continue
		}
		pk := s.kind[p]
		switch {
		case ph == 0 && k == ir.OutEWiseFusable:
			if pk <= ir.Broadcast {
				s.tryFuse(i, p, ir.Broadcast)
			}
		case ph == 0 && k <= ir.Broadcast:
			if pk <= ir.CommReduce {
				s.tryFuse(i, p, ir.Injective)
			}
		case ph == 1 && k == ir.Injective:
			if pk <= ir.Injective {
				s.tryFuse(i, p, ir.Injective)
			}
		}
	}
}

// tryFuse fuses i, p and every node on a path between them when all the
// path's nodes have kind <= limit and the merged group is acceptable.
func (s *fuseState) tryFuse(i, p int, limit Kind) {
	path, ok := s.checkPath(i, p, limit)
	if !ok {
		s.refusePath(i, p, limit)
		return
	}
	roots := []int{s.find(i), s.find(p)}
	for _, q := range path {
		r := s.find(q)
		if r != roots[0] && r != roots[1] {
			if s.size[r] > 1 {
				s.refuse(ir.RefuseClaimed, i, p, "%s, between %s and %s, already belongs to another fused group", s.label(q), s.label(i), s.label(p))
				return // a path node already belongs to another group
			}
			roots = append(roots, r)
		}
	}
	size, anchor := 0, -1
	for k, r := range roots {
		if k == 1 && r == roots[0] {
			continue
		}
		size += s.size[r]
		if a := s.anchor[r]; a >= 0 {
			if anchor >= 0 && anchor != a {
				s.refuse(ir.RefuseTwoAnchors, i, p, "fusing %s into %s would put two anchors (%s and %s) in one kernel", s.label(i), s.label(p), s.label(anchor), s.label(a))
				return // one anchor per group
			}
			anchor = a
		}
	}
	if size > s.cap {
		s.refuse(ir.RefuseGroupCap, i, p, "fusing %s into %s would make a group of %d nodes, over the cap of %d", s.label(i), s.label(p), size, s.cap)
		return
	}
	if anchor >= 0 {
		switch s.kind[anchor] {
		case ir.OutEWiseFusable:
			// Epilogues only: the anchor must be on the producer side.
			if s.find(anchor) != roots[0] {
				s.refuse(ir.RefusePrologue, i, p, "%s would run before %s's GEMM/Conv (a prologue), which the fused kernels do not do", s.label(i), s.label(anchor))
				return
			}
		case ir.CommReduce:
			// Producers only: the reduction must be the post-dominator's.
			if s.find(anchor) != roots[1] {
				s.refuse(ir.RefusePrologue, i, p, "%s would run after the reduction %s (an epilogue), which the fused kernels do not do", s.label(p), s.label(anchor))
				return
			}
		}
	}
	root := roots[1]
	for _, r := range roots {
		if r != root && s.parent[r] == r {
			s.parent[r] = root
			s.size[root] += s.size[r]
		}
	}
	s.anchor[root] = anchor
}

// checkPath collects the nodes strictly between i and its post-dominator
// p, failing when one has kind > limit or the walk grows past the cap.
func (s *fuseState) checkPath(i, p int, limit Kind) ([]int, bool) {
	seen := map[int]bool{}
	var path []int
	stack := append([]int(nil), s.cons[i]...)
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if q == p || seen[q] {
			continue
		}
		if q > p || s.kind[q] > limit {
			return nil, false
		}
		seen[q] = true
		path = append(path, q)
		if len(path) > s.cap {
			return nil, false
		}
		stack = append(stack, s.cons[q]...)
	}
	return path, true
}

// groups returns the groups of two or more nodes that are convex, named.
func (s *fuseState) groups(c *Context) []*group {
	byRoot := map[int]*group{}
	var out []*group
	for i, n := range s.order {
		r := s.find(i)
		if s.size[r] < 2 {
			continue
		}
		gr := byRoot[r]
		if gr == nil {
			gr = &group{members: make([]*ir.Node, 0, s.size[r])} // size: the members
			byRoot[r] = gr
			out = append(out, gr)
		}
		gr.members = append(gr.members, n)
	}
	kept := out[:0]
	for _, gr := range out {
		if len(gr.members) < 2 || !convex(s.g, gr.members, s.pos) {
			s.refuseNonConvex(gr.members)
			continue
		}
		gr.op, gr.name = fusedName(c, gr.members)
		kept = append(kept, gr)
	}
	return kept
}

// fusedName names a generic group after its anchor and epilogue:
// FusedConvBiasRelu / fused_conv_0, FusedReduceMean, FusedElementwise.
func fusedName(c *Context, members []*ir.Node) (op, name string) {
	var anchor *ir.Node
	for _, m := range members {
		if k := kindOf(m); k == ir.OutEWiseFusable || k == ir.CommReduce {
			anchor = m
		}
	}
	if anchor == nil {
		op = "FusedElementwise"
		for _, m := range members {
			if kindOf(m) == ir.Injective {
				op = "FusedInjective"
			}
		}
		return op, c.newName("fused_elementwise")
	}
	var parts []string
	after := false
	for _, m := range members {
		if m == anchor {
			after = true
			continue
		}
		if !after {
			continue
		}
		part := m.Op
		if m.Is(ir.OpAdd) && len(parts) == 0 && (constOf(m.Input(1)) != nil || constOf(m.Input(0)) != nil) {
			part = "Bias"
		}
		if len(parts) == 0 || parts[len(parts)-1] != part {
			parts = append(parts, part)
		}
	}
	if len(parts) > 3 {
		parts = append(parts[:2], "Epilogue")
	}
	op = "Fused" + anchor.Op + strings.Join(parts, "")
	return op, c.newName("fused_" + strings.ToLower(anchor.Op))
}

// multiOutput is phase 2: merge a group into a consumer group of
// elementwise/injective nodes when the union is convex.
func (s *fuseState) multiOutput() {
	members := make([][]*ir.Node, len(s.order)) // by root position
	for i, n := range s.order {
		r := s.find(i)
		members[r] = append(members[r], n)
	}
	for i := range s.order {
		if s.kind[i] > ir.Injective && s.kind[i] != ir.OutEWiseFusable {
			continue
		}
		for _, j := range s.cons[i] {
			if s.kind[j] > ir.Injective {
				continue
			}
			ri, rj := s.find(i), s.find(j)
			if ri == rj || s.size[ri]+s.size[rj] > s.cap {
				continue
			}
			ai, aj := s.anchor[ri], s.anchor[rj]
			if ai >= 0 && aj >= 0 {
				continue
			}
			if ai >= 0 && s.kind[ai] == ir.CommReduce {
				continue // a reduction takes no epilogue
			}
			if aj >= 0 && s.kind[aj] == ir.OutEWiseFusable && s.feeds(ri, s.order[aj]) {
				continue // no GEMM prologue
			}
			merged := append(append([]*ir.Node(nil), members[ri]...), members[rj]...)
			if !convex(s.g, merged, s.pos) {
				continue
			}
			s.parent[ri] = rj
			s.size[rj] += s.size[ri]
			if ai >= 0 {
				s.anchor[rj] = ai
			}
			members[rj], members[ri] = merged, nil
		}
	}
}

// feeds reports whether a member of group r produces an input of n.
func (s *fuseState) feeds(r int, n *ir.Node) bool {
	for _, in := range n.Inputs {
		if in == nil || in.Producer == nil {
			continue
		}
		if p, ok := s.pos.of(in.Producer); ok && s.find(p) == r {
			return true
		}
	}
	return false
}
