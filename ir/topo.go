package ir

// This file implements topological ordering with cycle detection.

import (
	"container/heap"
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
	return fmt.Sprintf("ir: graph %q has a cycle through %d node(s): %s", e.Graph, len(e.Nodes), strings.Join(names, ", "))
}

// Deps returns the nodes of g that n depends on: producers, within g, of
// its inputs and of the outer values its subgraphs capture. A node that
// reads the same value twice lists its producer once.
func Deps(g *Graph, n *Node) []*Node {
	var deps []*Node
	add := func(v *Value) {
		if v == nil || v.Producer == nil || v.Producer.Graph != g {
			return
		}
		for _, d := range deps {
			if d == v.Producer {
				return
			}
		}
		deps = append(deps, v.Producer)
	}
	for _, in := range n.Inputs {
		add(in)
	}
	if len(n.Subgraphs()) > 0 {
		for _, v := range n.CapturedValues() {
			add(v)
		}
	}
	return deps
}

type posHeap []int

func (h posHeap) Len() int           { return len(h) }
func (h posHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h posHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *posHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *posHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Topo returns g's nodes in a topological order. The order is stable:
// among the nodes ready at any point, the one earliest in g.Nodes comes
// first, so an already sorted graph keeps its order. On a cycle it returns
// a *CycleError naming the nodes left over.
func Topo(g *Graph) ([]*Node, error) {
	pos := make(map[*Node]int, len(g.Nodes))
	for i, n := range g.Nodes {
		pos[n] = i
	}
	indeg := make([]int, len(g.Nodes))
	users := make([][]int, len(g.Nodes))
	for i, n := range g.Nodes {
		for _, d := range Deps(g, n) {
			j, ok := pos[d]
			if !ok {
				continue // producer not in the node list: the verifier reports it
			}
			indeg[i]++
			users[j] = append(users[j], i)
		}
	}
	h := &posHeap{}
	for i, d := range indeg {
		if d == 0 {
			*h = append(*h, i)
		}
	}
	heap.Init(h)
	order := make([]*Node, 0, len(g.Nodes))
	for h.Len() > 0 {
		i := heap.Pop(h).(int)
		order = append(order, g.Nodes[i])
		for _, u := range users[i] {
			indeg[u]--
			if indeg[u] == 0 {
				heap.Push(h, u)
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

// SortNodes reorders g.Nodes topologically (stable), or returns the cycle.
func SortNodes(g *Graph) error {
	order, err := Topo(g)
	if err != nil {
		return err
	}
	copy(g.Nodes, order)
	return nil
}
