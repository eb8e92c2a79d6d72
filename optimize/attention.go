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
	return runPattern(c, ir.FusedAttention.Name, "attention", matchAttention)
}

// matchAttention matches at the Softmax; it records the roles Q, K
// (already transposed), V and Mask, and the scale when one is applied.
func matchAttention(g *ir.Graph, sm *ir.Node) *match {
	if !sm.Is(ir.OpSoftmax) {
		return nil
	}
	av := consumer(g, sm, ir.OpMatMul)
	if av == nil || av.Input(0) != sm.Output(0) {
		return nil
	}
	ms := []*ir.Node{sm, av}
	mt := &match{roles: map[*ir.Value]string{av.Input(1): "V"}}
	v := sm.Input(0)
	if p := producer(v, ir.OpAdd); p != nil && singleUse(g, v) {
		ms = append(ms, p)
		v = p.Input(0)
		if producer(v, ir.OpMatMul) == nil && producer(v, ir.OpMul) == nil && producer(v, ir.OpDiv) == nil {
			v = p.Input(1)
		}
		mt.roles[other(p, v)] = "Mask"
	}
	for _, op := range []ir.OpKey{ir.OpMul, ir.OpDiv} {
		if p := producer(v, op); p != nil && singleUse(g, v) && constOf(p.Input(1)) != nil {
			ms = append(ms, p)
			if s, ok := scalarOf(p.Input(1)); ok && s != 0 {
				if op == ir.OpDiv {
					s = 1 / s
				}
				mt.attrs = append(mt.attrs, &ir.Attr{Name: ir.FusedAlpha, Type: ir.AttrFloat, F: float32(s)})
			}
			v = p.Input(0)
			break
		}
	}
	qk := producer(v, ir.OpMatMul)
	if qk == nil || !singleUse(g, v) {
		return nil
	}
	mt.roles[qk.Input(0)], mt.roles[qk.Input(1)] = "Q", "K"
	mt.members = append(ms, qk)
	return mt
}
