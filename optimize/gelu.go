package optimize

// This file implements GELU fusion, erf and tanh forms.
//
// erf form (PyTorch nn.GELU export):
//
//	x ──► Div(√2) | Mul(1/√2) ──► Erf ──► Add(1) ──► Mul(x, ·) ──► Mul(0.5)
//	│                                                  ▲
//	└──────────────────────────────────────────────────┘
//
// tanh form (GPT-2 "gelu_new"):
//
//	x ──► Pow(3) ──► Mul(0.044715) ──► Add(x, ·) ──► Mul(√(2/π)) ──► Tanh
//	     ──► Add(1) ──► Mul(0.5·x | x, ·) [──► Mul(0.5)]
//
// Both become one wolong:Gelu kernel. The matcher starts at the Erf/Tanh,
// takes its single-use elementwise producers back to x (at most eight
// nodes), then the Add(1) and up to two Muls after it; the group may read
// only x and constants.

import (
	"github.com/wolong-dev/wolong/ir"
)

func geluFuse(c *Context) ([]Rewrite, error) {
	return runPattern(c, "Gelu", "gelu", matchGelu)
}

func matchGelu(g *ir.Graph, e *ir.Node) []*ir.Node {
	if !is(e, "Erf") && !is(e, "Tanh") {
		return nil
	}
	// Backward: the argument's computation from x.
	ms := []*ir.Node{e}
	in := map[*ir.Node]bool{e: true}
	var x *ir.Value
	frontier := []*ir.Value{e.Input(0)}
	for len(frontier) > 0 {
		v := frontier[0]
		frontier = frontier[1:]
		p := v.Producer
		if v.Const != nil {
			continue
		}
		if p == nil || p.Graph != g || !singleUseWithin(g, v, in) || kindOf(p) > Broadcast || len(ms) > 8 {
			if x != nil && x != v {
				return nil
			}
			x = v
			continue
		}
		if !in[p] {
			in[p] = true
			ms = append(ms, p)
			frontier = append(frontier, p.Inputs...)
		}
	}
	if x == nil {
		return nil
	}
	// Forward: Add(1), then Muls by x, 0.5 or 0.5*x.
	add := consumer(g, e, "Add")
	if add == nil || !constNear(other(add, e.Output(0)), 1) {
		return nil
	}
	ms = append(ms, add)
	cur, readsX := add, false
	for k := 0; k < 2; k++ {
		mul := consumer(g, cur, "Mul")
		if mul == nil {
			break
		}
		o := other(mul, cur.Output(0))
		switch {
		case o == x:
			readsX = true
		case constNear(o, 0.5):
		case o != nil && is(o.Producer, "Mul") && singleUse(g, o) && other(o.Producer, x) != nil && constNear(other(o.Producer, x), 0.5):
			readsX = true
			ms = append(ms, o.Producer)
		default:
			return nil
		}
		ms = append(ms, mul)
		cur = mul
	}
	if !readsX {
		return nil
	}
	return ms
}

// singleUseWithin reports whether v is not a graph output and every use
// is by a node in set (the group being built).
func singleUseWithin(g *ir.Graph, v *ir.Value, set map[*ir.Node]bool) bool {
	if g.IsOutput(v) || len(v.Uses) == 0 {
		return false
	}
	for _, u := range v.Uses {
		if !set[u.Node] {
			return false
		}
	}
	return true
}
