package ir

// This file implements topological ordering with cycle detection.

import (
	"fmt"
	"strings"
)

// CycleError reports nodes that could not be ordered because they lie on
// or behind a cycle. Nodes lists them (at most 10 are printed).
type CycleError struct {
	Graph string
	Nodes []*Node
}

func (e *CycleError) Error() string {
	var names []string
	for i, n := range e.Nodes {
		if i == 10 {
			names = append(names, fmt.Sprintf("... (%d more)", len(e.Nodes)-10))
			break
		}
		names = append(names, NodeLabel(n))
	}
	return fmt.Sprintf("graph %q has a cycle through %d node(s): %s", e.Graph, len(e.Nodes), strings.Join(names, ", "))
}

// Deps returns the nodes of g that n depends on: producers, within g, of
// its inputs and of the outer values its subgraphs capture. A node that
// reads the same value twice lists its producer once.
func Deps(g *Graph, n *Node) []*Node {
	var deps []*Node
	var seen map[*Node]bool // once deps passes depsScan (a Concat of thousands)
	add := func(v *Value) {
		if v == nil || v.Producer == nil || v.Producer.Graph != g {
			return
		}
		p := v.Producer
		if seen != nil {
			if seen[p] {
				return
			}
			seen[p] = true
		} else {
			for _, d := range deps {
				if d == p {
					return
				}
			}
			if len(deps) == depsScan {
				seen = make(map[*Node]bool, 4*depsScan)
				for _, d := range deps {
					seen[d] = true
				}
				seen[p] = true
			}
		}
		deps = append(deps, p)
	}
	for _, in := range n.Inputs {
		add(in)
	}
	if hasSubgraph(n) {
		n.EachCaptured(add) // add dedups, keeping first-read order
	}
	return deps
}

// depsScan is the most dependencies Deps dedups by scanning its list.
const depsScan = 16

// posHeap is a min-heap of positions in g.Nodes. Typed, not through
// container/heap: that boxes every int pushed and popped in an interface
// (two allocations a node past 255) and calls Less and Swap indirectly.
// The positions are distinct, so any min-heap pops them in one order.
type posHeap []int32

func (h *posHeap) push(x int32) {
	*h = append(*h, x)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p] <= x {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = x
}

func (h *posHeap) pop() int32 {
	a := *h
	top, x := a[0], a[len(a)-1]
	a = a[:len(a)-1]
	*h = a
	if len(a) == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= len(a) {
			break
		}
		if c+1 < len(a) && a[c+1] < a[c] {
			c++
		}
		if x <= a[c] {
			break
		}
		a[i] = a[c]
		i = c
	}
	a[i] = x
	return top
}

// Topo returns g's nodes in a topological order. The order is stable:
// among the nodes ready at any point, the one earliest in g.Nodes comes
// first, so an already sorted graph keeps its order. On a cycle it returns
// a *CycleError naming the nodes left over. It runs in O(n log n) time.
func Topo(g *Graph) ([]*Node, error) {
	// pos maps node ID -> position in g.Nodes (+1; 0 = not in the graph).
	pos := make([]int32, g.nextNode)
	for i, n := range g.Nodes {
		if n.ID >= 0 && n.ID < len(pos) && n.Graph == g {
			pos[n.ID] = int32(i + 1)
		}
	}
	at := func(n *Node) int {
		if n == nil || n.Graph != g || n.ID < 0 || n.ID >= len(pos) {
			return -1
		}
		return int(pos[n.ID]) - 1
	}
	indeg := make([]int32, len(g.Nodes))
	// users in CSR form: first count, then fill; the deps of node i are
	// flat[start[i]:start[i+1]] (one array, not a slice a node)
	count := make([]int32, len(g.Nodes)+1)
	start := make([]int32, len(g.Nodes)+1)
	flat := make([]int32, 0, len(g.Nodes)+len(g.Nodes)/2)
	mark := make([]int32, len(g.Nodes)) // mark[j] == i+1: j is a dep of i already
	for i, n := range g.Nodes {
		flat = nodeDeps(g, n, at, mark, int32(i+1), flat)
		start[i+1] = int32(len(flat))
		indeg[i] = start[i+1] - start[i]
		for _, j := range flat[start[i]:] {
			count[j+1]++
		}
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	users := make([]int32, count[len(count)-1])
	fill := append([]int32(nil), count[:len(count)-1]...)
	for i := range g.Nodes {
		for _, j := range flat[start[i]:start[i+1]] {
			users[fill[j]] = int32(i)
			fill[j]++
		}
	}
	var h posHeap
	for i, d := range indeg {
		if d == 0 {
			h = append(h, int32(i)) // ascending: already a heap
		}
	}
	order := make([]*Node, 0, len(g.Nodes))
	for len(h) > 0 {
		i := h.pop()
		order = append(order, g.Nodes[i])
		for _, u := range users[count[i]:count[i+1]] {
			indeg[u]--
			if indeg[u] == 0 {
				h.push(u)
			}
		}
	}
	if len(order) != len(g.Nodes) {
		var left []*Node
		for i, d := range indeg {
			if d > 0 {
				left = append(left, g.Nodes[i])
			}
		}
		return order, &CycleError{Graph: g.Name, Nodes: left}
	}
	return order, nil
}

// nodeDeps appends to ds the positions of the distinct producers n
// depends on, marking each in mark with stamp (a value no other node's
// call uses), so a node of thousands of inputs is linear too.
func nodeDeps(g *Graph, n *Node, at func(*Node) int, mark []int32, stamp int32, ds []int32) []int32 {
	add := func(v *Value) {
		if v == nil || v.Producer == nil {
			return
		}
		j := at(v.Producer)
		if j < 0 || mark[j] == stamp {
			return
		}
		mark[j] = stamp
		ds = append(ds, int32(j))
	}
	for _, in := range n.Inputs {
		add(in)
	}
	if hasSubgraph(n) {
		n.EachCaptured(add) // mark dedups, keeping first-read order
	}
	return ds
}

// SortNodes reorders g.Nodes topologically (stable), or returns the cycle.
// A graph already in order (what the pass driver re-sorts after every
// pass, most passes keeping the order) is checked in one linear walk that
// allocates one int32 per node ID, and left as it is: Topo is stable, so
// it would return the same order.
func SortNodes(g *Graph) error {
	if inOrder(g) {
		return nil
	}
	order, err := Topo(g)
	if err != nil {
		return err
	}
	copy(g.Nodes, order)
	return nil
}

// inOrder reports whether every node of g comes after the producers, in
// g, of its inputs and of the outer values its subgraphs capture (and no
// node is listed twice or belongs to another graph). It does not detect a
// cycle: a graph with one is never in order.
func inOrder(g *Graph) bool {
	// seen[ID] = position+1 of a node already walked (0: not yet).
	seen := make([]int32, g.nextNode)
	ok := true
	dep := func(v *Value) {
		if v == nil || v.Producer == nil || v.Producer.Graph != g {
			return
		}
		if id := v.Producer.ID; id < 0 || id >= len(seen) || seen[id] == 0 {
			ok = false
		}
	}
	for i, n := range g.Nodes {
		if n.Graph != g || n.ID < 0 || n.ID >= len(seen) || seen[n.ID] != 0 {
			return false
		}
		for _, in := range n.Inputs {
			dep(in)
		}
		if hasSubgraph(n) {
			n.EachCaptured(dep) // a repeat cannot change ok
		}
		if !ok {
			return false
		}
		seen[n.ID] = int32(i + 1)
	}
	return true
}

// hasSubgraph reports whether n holds a graph attribute.
func hasSubgraph(n *Node) bool {
	for _, a := range n.Attrs {
		if a.Type == AttrGraph || a.Type == AttrGraphs {
			return true
		}
	}
	return false
}
