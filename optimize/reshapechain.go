package optimize

// This file implements reshape-chain collapsing.

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// reshapeChain collapses chains of shape-only ops (Reshape, Flatten,
// Squeeze, Unsqueeze) into one Reshape to the chain's final shape:
//
//	x ──► Reshape ──► Unsqueeze ──► Flatten ──► y   becomes   x ──► Reshape(x, [dims of y]) ──► y
//
// A node is chained to its producer only when the producer is a shape-only
// op whose output has this node as its single use and is not a graph
// output (nor referenced by name from a subgraph). The chain must have at
// least two nodes, its head input x and its final output y must have fully
// static shapes with the same element count and dtype, and y's dims must
// all be positive (a 0 in a Reshape shape means "copy the input dim"
// unless allowzero is set). Reshape nodes with allowzero=1 break the chain.
// The last node is rewritten in place, so y keeps its value and name (a
// graph output stays one); the others are deleted. When y's shape equals
// x's the chain is removed outright, as the noop pass (which runs before
// this one) would.
func reshapeChain(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	order := nodesInOrder(g)
	// Visit tails last-first so a chain is taken whole from its end.
	done := map[*ir.Node]bool{}
	var rw []Rewrite
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		if done[n] || !shapeOnly(n) {
			continue
		}
		chain := []*ir.Node{n}
		for {
			p := chain[0].Input(0).Producer
			v := chain[0].Input(0)
			if p == nil || p.Graph != g || done[p] || !shapeOnly(p) || !singleUse(g, v) || c.pinned(v) {
				break
			}
			chain = append([]*ir.Node{p}, chain...)
		}
		// The longest chain ending at n that collapses; when none does, n
		// is dropped and its producer is tried as a tail in turn.
		y := n.Output(0)
		var dims []int64
		ok := false
		for len(chain) >= 2 {
			if dims, ok = collapsible(chain[0].Input(0), y); ok {
				break
			}
			chain = chain[1:]
		}
		if !ok {
			continue
		}
		for _, m := range chain {
			done[m] = true
		}
		x := chain[0].Input(0)
		before := names(chain)
		remark := fmt.Sprintf("%s to %s", strings.Join(ops(chain), "+"), dimsString(dims))
		if sameStatic(x, y) && c.substitute(y, x) {
			for _, m := range chain {
				removeNode(g, m)
			}
			rw = append(rw, Rewrite{Before: before, Remark: remark + ", the input's own shape"})
			continue
		}
		shape := g.AddInitializer(i64Tensor(c.newName(y.Name+"_shape"), dims))
		for k := range n.Inputs {
			setInput(n, k, nil)
		}
		n.Inputs = nil
		n.Op, n.Domain, n.Attrs = "Reshape", "", nil
		n.Name = c.newName("reshape")
		for k, v := range []*ir.Value{x, shape} {
			n.Inputs = append(n.Inputs, nil)
			setInput(n, k, v)
		}
		for _, m := range chain[:len(chain)-1] {
			removeNode(g, m)
		}
		rw = append(rw, Rewrite{Before: before, After: []string{n.Name}, Remark: remark})
	}
	sweepNodes(g)
	return rw, nil
}

// shapeOnly reports whether n only reinterprets its first input's shape:
// a single-output Reshape (allowzero unset or 0), Flatten, Squeeze or
// Unsqueeze of the default domain.
func shapeOnly(n *ir.Node) bool {
	if !isDefault(n) || len(n.Outputs) != 1 || n.Output(0) == nil || n.Input(0) == nil || hasSubgraph(n) {
		return false
	}
	switch n.Key() {
	case ir.OpReshape:
		return n.AttrInt("allowzero", 0) == 0
	case ir.OpFlatten, ir.OpSqueeze, ir.OpUnsqueeze:
		return true
	}
	return false
}

// collapsible returns y's dims when one Reshape of x to them computes y:
// both static, same dtype and element count, every dim of y positive.
func collapsible(x, y *ir.Value) ([]int64, bool) {
	if !x.Type.IsTensor() || !y.Type.IsTensor() || x.Type.DType != y.Type.DType || x.Type.DType == ir.Undefined {
		return nil, false
	}
	xd, ok1 := staticDims(x)
	yd, ok2 := staticDims(y)
	if !ok1 || !ok2 {
		return nil, false
	}
	nx, ny := int64(1), int64(1)
	for _, d := range xd {
		nx *= d
	}
	for _, d := range yd {
		if d <= 0 {
			return nil, false
		}
		ny *= d
	}
	if nx != ny {
		return nil, false
	}
	return yd, true
}

func ops(ns []*ir.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Op
	}
	return out
}

func setOf(ns []*ir.Node) map[*ir.Node]bool {
	m := make(map[*ir.Node]bool, len(ns))
	for _, n := range ns {
		m[n] = true
	}
	return m
}

func dimsString(d []int64) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(s, ",") + "]"
}
