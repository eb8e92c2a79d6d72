package optimize

// This file implements scaled-dot-product attention fusion.
//
//	Q ──► MatMul(Q, Kᵀ) ──► [Mul(s) | Div(s)] ──► [Add(mask)] ──► Softmax ──► MatMul(·, V)
//	        ▲                                                                   ▲
//	        Kᵀ                                                                  V
//
// becomes one wolong:Attention kernel (the flash-attention schedule: the
// score matrix stays on chip). Kᵀ and V enter as inputs; a Transpose
// producing Kᵀ is left outside.

import (
	"github.com/wolong-dev/wolong/ir"
)

func attentionFuse(c *Context) ([]Rewrite, error) {
	return runPattern(c, "Attention", "attention", matchAttention)
}

func matchAttention(g *ir.Graph, sm *ir.Node) []*ir.Node {
	if !is(sm, "Softmax") {
		return nil
	}
	av := consumer(g, sm, "MatMul")
	if av == nil || av.Input(0) != sm.Output(0) {
		return nil
	}
	ms := []*ir.Node{sm, av}
	v := sm.Input(0)
	if p := producer(v, "Add"); p != nil && singleUse(g, v) {
		ms = append(ms, p)
		v = p.Input(0)
		if producer(v, "MatMul") == nil && producer(v, "Mul") == nil && producer(v, "Div") == nil {
			v = p.Input(1)
		}
	}
	for _, op := range []string{"Mul", "Div"} {
		if p := producer(v, op); p != nil && singleUse(g, v) && constOf(p.Input(1)) != nil {
			ms = append(ms, p)
			v = p.Input(0)
			break
		}
	}
	qk := producer(v, "MatMul")
	if qk == nil || !singleUse(g, v) {
		return nil
	}
	return append(ms, qk)
}
