package optimize

// This file turns groups of nodes into fused wolong nodes.

import (
	"math"
	"strconv"

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
//
// The members themselves move into the bodies (new IDs there, inputs
// rebound to the body's values), with the outputs that only other members
// read: the main graph no longer lists them and nothing reads them from
// it. An exposed output stays in the main graph as the fused node's
// output; the body gets a new value of its name and type.
func materialize(g *ir.Graph, groups []*group) []Rewrite {
	groups = acyclic(g, groups)
	if len(groups) == 0 {
		return nil
	}
	ow := newOwners(g, groups)
	for _, gr := range groups {
		gr.fused = &ir.Node{Name: gr.name, Op: gr.op, Domain: ir.FusedDomain}
	}
	// The new node order, while the members are still in g (ow.of).
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
	mv := &mover{touched: newValueSet(g), bodies: make(map[*ir.Graph]bool, len(groups)),
		exposed: map[*ir.Value]bool{}, inner: map[*ir.Value]*ir.Value{}}
	var rw []Rewrite
	for _, gr := range groups {
		// the remark concatenated, not fmt.Sprintf: one per group
		rw = append(rw, Rewrite{Before: names(gr.members), After: []string{gr.name}, Sep: "+",
			Remark: ir.FusedDomain + ":" + gr.op + ", " + strconv.Itoa(len(gr.members)) + " nodes in one kernel" + gr.remark})
		mv.build(g, ow, gr)
	}
	// Drop the members' uses (they read the bodies' values now) in one
	// filter per outer value they read or exposed.
	for _, v := range mv.touchedOrder {
		kept := v.Uses[:0]
		for _, u := range v.Uses {
			if u.Node == nil || !mv.bodies[u.Node.Graph] {
				kept = append(kept, u)
			}
		}
		for i := len(kept); i < len(v.Uses); i++ {
			v.Uses[i] = ir.Use{}
		}
		v.Uses = kept
	}
	for _, gr := range groups {
		g.AttachNode(gr.fused) // IDs, uses of the inputs, producers of the outputs
		for _, o := range gr.fused.Outputs {
			if o.Declared == nil && !g.IsOutput(o) {
				d := o.Type     // shares the Dims: types are values (ir.Type)
				o.Declared = &d // re-running inference keeps the fused node's types
			}
		}
	}
	g.Nodes = final
	return rw
}

// mover builds the fused bodies for materialize: the state shared by all
// groups (the outer values whose uses must be filtered, the new bodies)
// and the per-group tables it clears and reuses.
type mover struct {
	touched      *idSet[*ir.Value]
	touchedOrder []*ir.Value
	bodies       map[*ir.Graph]bool
	exposed      map[*ir.Value]bool      // this group's outputs read outside it
	inner        map[*ir.Value]*ir.Value // outer value -> this body's value
}

// touch lists outer value v for the use filter (once).
func (mv *mover) touch(v *ir.Value) {
	if mv.touched.add(v) { // by ID: a map keyed by pointer missed the cache at 1M nodes
		mv.touchedOrder = append(mv.touchedOrder, v)
	}
}

// build makes gr.fused's body and moves gr's members into it (see
// materialize); gr.fused's inputs and outputs are set, its uses are not.
func (mv *mover) build(g *ir.Graph, ow *owners, gr *group) {
	fn := gr.fused
	body := ir.NewGraph(gr.name + "_body")
	body.Parent, body.ParentNode = g, fn
	mv.bodies[body] = true
	mv.exposed = resetMap(mv.exposed)
	mv.inner = resetMap(mv.inner)
	// Exposure is decided while the members are still in g.
	var exposed []*ir.Value
	for _, m := range gr.members {
		for _, o := range m.Outputs {
			if o != nil && ow.usedOutside(o, gr) {
				exposed = append(exposed, o)
				mv.exposed[o] = true
				mv.touch(o)
			}
		}
	}
	var ext []*ir.Value
	for _, m := range gr.members {
		for i, v := range m.Inputs {
			if v == nil {
				continue
			}
			if w, ok := mv.inner[v]; ok {
				m.Inputs[i] = w
				continue
			}
			// An external input (not produced by a member).
			w := body.AddInput(v.Name, v.Type) // sharing the Dims: types are values (ir.Type)
			w.SetKnown(v.Known())
			mv.inner[v] = w
			ext = append(ext, v)
			m.Inputs[i] = w
			mv.touch(v)
		}
		for i, o := range m.Outputs {
			if o == nil {
				continue
			}
			if mv.exposed[o] {
				// the outer value stays the fused node's output
				bo := &ir.Value{Name: o.Name, Type: o.Type}
				bo.SetKnown(o.Known())
				m.Outputs[i] = bo
				mv.inner[o] = bo
				continue
			}
			// only members read it: it moves with m (AttachNode gives it an
			// ID in body; the consumers' uses come back as they attach)
			o.Graph, o.Uses, o.Const, o.Declared, o.Info = nil, o.Uses[:0], nil, nil, nil
			mv.inner[o] = o
		}
		body.AttachNode(m)
		for _, sg := range m.Subgraphs() {
			sg.Parent = body // a nested fused kernel
		}
	}
	for _, o := range exposed {
		body.Outputs = append(body.Outputs, mv.inner[o])
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
// are explored, so the check is bounded by the group's window. Membership
// and the nodes seen are marks in pos's scratch array by position (a map
// per call cost more than the walk on large graphs); a node not in pos's
// order (added since) is tracked in a map.
func convex(g *ir.Graph, members []*ir.Node, pos nodePositions) bool {
	mk := pos.marks
	if mk == nil || len(mk.stamp) != len(pos.order) {
		mk = &convexMarks{stamp: make([]uint32, len(pos.order))}
	}
	if mk.epoch >= math.MaxUint32-2 {
		clear(mk.stamp)
		mk.epoch = 0
	}
	mk.epoch += 2
	inE, seenE := mk.epoch, mk.epoch+1
	var other map[*ir.Node]uint32 // marks of nodes not in pos's order
	mark := func(n *ir.Node, e uint32) {
		if i, ok := pos.of(n); ok {
			mk.stamp[i] = e
			return
		}
		if other == nil {
			other = map[*ir.Node]uint32{}
		}
		other[n] = e
	}
	marked := func(n *ir.Node) uint32 {
		if i, ok := pos.of(n); ok {
			return mk.stamp[i]
		}
		return other[n]
	}
	// A path that leaves the group and comes back ends at a member, so
	// it only passes nodes scheduled before the last member (maxPos) and
	// of a lower level than the highest member's (maxLevel: levels grow
	// along every edge). The level bound is what keeps the search local
	// where a schedule interleaves independent chains: with the position
	// bound alone each check walks a window that grows with the graph
	// (docs/speed.md, the rnn shape at 1M nodes).
	lv := mk.levels(g, pos)
	maxPos, maxLevel := -1, int32(-1)
	for _, m := range members {
		mark(m, inE)
		maxPos = max(maxPos, pos.at(m))
		if i, ok := pos.of(m); ok {
			maxLevel = max(maxLevel, lv[i])
		} else {
			maxLevel = math.MaxInt32 // a node the levels do not know: no level bound
		}
	}
	var stack []*ir.Node
	push := func(n *ir.Node) {
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			for _, u := range o.Uses {
				c := topLevel(g, u.Node)
				if c == nil || pos.at(c) > maxPos {
					continue
				}
				if i, ok := pos.of(c); ok && lv[i] >= maxLevel {
					continue // reaches no member
				}
				if e := marked(c); e == inE || e == seenE {
					continue
				}
				mark(c, seenE)
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
				if c := topLevel(g, u.Node); c != nil && marked(c) == inE {
					return false
				}
			}
		}
		push(n)
	}
	return true
}

// convexMarks is convex's scratch: a stamp per position, epoch the last
// call's (members epoch, nodes seen epoch+1).
type convexMarks struct {
	stamp []uint32
	epoch uint32
	level []int32 // by position: see levels
}

// levels returns, by position, each node's level in g: 0 for a node no
// node of pos's order feeds, else one more than the highest level among
// the nodes feeding it (through its inputs or, for a node holding
// subgraphs, the values they capture: the edges convex follows). pos's
// order is topological, so one pass in order computes them. They are
// computed on the first call and kept: the callers check convexity of
// candidate groups of the graph as it was when pos was made.
func (mk *convexMarks) levels(g *ir.Graph, pos nodePositions) []int32 {
	if len(mk.level) == len(pos.order) {
		return mk.level
	}
	lv := make([]int32, len(pos.order))
	for i, n := range pos.order {
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			for _, u := range o.Uses {
				if j, ok := pos.of(topLevel(g, u.Node)); ok && j != i && lv[j] <= lv[i] {
					lv[j] = lv[i] + 1
				}
			}
		}
	}
	mk.level = lv
	return lv
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

// nodePositions maps the nodes of a topological order of a graph to their
// indices. It is indexed by node ID rather than a map keyed by node (the
// fuse pass looks a position up for every use of every node and every
// candidate group): cheaper to build and to read, and half the memory.
type nodePositions struct {
	order []*ir.Node
	index []int32 // by node ID: the index in order, -1 for none
	marks *convexMarks
}

// positions maps each node of order (the nodes of one graph) to its index.
func positions(order []*ir.Node) nodePositions {
	maxID := -1
	for _, n := range order {
		maxID = max(maxID, n.ID)
	}
	p := nodePositions{order: order, index: make([]int32, maxID+1), marks: &convexMarks{stamp: make([]uint32, len(order))}}
	for i := range p.index {
		p.index[i] = -1
	}
	for i, n := range order {
		if n.ID >= 0 {
			p.index[n.ID] = int32(i)
		}
	}
	return p
}

// of returns n's index, and false for a node not in the order (a node
// added since, or one of another graph with the same ID).
func (p nodePositions) of(n *ir.Node) (int, bool) {
	if n == nil || n.ID < 0 || n.ID >= len(p.index) {
		return 0, false
	}
	i := p.index[n.ID]
	if i < 0 || p.order[i] != n {
		return 0, false
	}
	return int(i), true
}

// at returns n's index, 0 for a node not in the order.
func (p nodePositions) at(n *ir.Node) int {
	i, _ := p.of(n)
	return i
}

// eachDep calls fn for the producer, in g, of each of n's inputs and of
// each outer value its subgraphs read (ir.Deps' nodes, a producer read
// twice passed twice), allocating nothing.
func eachDep(g *ir.Graph, n *ir.Node, fn func(*ir.Node)) {
	dep := func(v *ir.Value) {
		if v != nil && v.Producer != nil && v.Producer.Graph == g {
			fn(v.Producer)
		}
	}
	for _, in := range n.Inputs {
		dep(in)
	}
	if hasSubgraph(n) {
		n.EachCaptured(dep)
	}
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
		// An edge repeated (two members reading one producer, or one
		// node reading it twice) is kept twice: Kahn's algorithm counts
		// it twice both ways, so what it finds is the same. The edges go
		// to one flat list, then to CSR form: a slice per vertex was an
		// allocation per node.
		indeg := make([]int, next)
		var from, to []int32
		for _, n := range g.Nodes {
			t := id[n.ID]
			eachDep(g, n, func(d *ir.Node) {
				if d.ID < 0 || d.ID >= len(id) || id[d.ID] < 0 || id[d.ID] == t {
					return
				}
				from = append(from, int32(id[d.ID]))
				to = append(to, int32(t))
				indeg[t]++
			})
		}
		start := make([]int32, next+1) // vertex v's successors: succ[start[v]:start[v+1]]
		for _, f := range from {
			start[f+1]++
		}
		for v := 1; v <= next; v++ {
			start[v] += start[v-1]
		}
		succ := make([]int32, len(to))
		fill := append([]int32(nil), start[:next]...)
		for e, f := range from {
			succ[fill[f]] = to[e]
			fill[f]++
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
			for _, w := range succ[start[v]:start[v+1]] {
				if indeg[w]--; indeg[w] == 0 {
					queue = append(queue, int(w))
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
