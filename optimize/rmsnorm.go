package optimize

// This file implements RMSNorm fusion.
//
//	  x ──────────────────────────────┐
//	  ▼                               │
//	Pow(x, 2) | Mul(x, x)             │
//	  ▼                               │
//	ReduceMean ─► Add(eps) ─► Sqrt    │
//	                           ▼      ▼
//	             Div(x, ·)  or  Mul(x, Reciprocal(·))
//	                           ▼
//	                     [Mul(weight)]
//
// (the LLaMA/T5 export) becomes one wolong:RMSNorm kernel.

import (
	"github.com/wolong-dev/wolong/ir"
)

func rmsNormFuse(c *Context) ([]Rewrite, error) {
	return runPattern(c, ir.FusedRMSNorm.Name, "rmsnorm", matchRMSNorm)
}

// matchRMSNorm matches at the Sqrt; it records epsilon and axis as
// matchLayerNorm does, and the roles X and Scale.
func matchRMSNorm(g *ir.Graph, sqrt *ir.Node) *match {
	if !sqrt.Is(ir.OpSqrt) {
		return nil
	}
	add := producer(sqrt.Input(0), ir.OpAdd)
	if add == nil || constOf(add.Input(1)) == nil {
		return nil
	}
	mean := producer(add.Input(0), ir.OpReduceMean)
	if mean == nil {
		return nil
	}
	sq := mean.Input(0).Producer
	var x *ir.Value
	switch {
	case sq.Is(ir.OpPow) && constNear(sq.Input(1), 2):
		x = sq.Input(0)
	case sq.Is(ir.OpMul) && sq.Input(0) == sq.Input(1):
		x = sq.Input(0)
	default:
		return nil
	}
	if x.Producer != nil && x.Producer.Is(ir.OpSub) {
		return nil // a LayerNorm's variance, not an RMSNorm
	}
	ms := []*ir.Node{sq, mean, add, sqrt}
	var last *ir.Node
	if div := consumer(g, sqrt, ir.OpDiv); div != nil && div.Input(0) == x && div.Input(1) == sqrt.Output(0) {
		last = div
		ms = append(ms, div)
	} else if rec := consumer(g, sqrt, ir.OpReciprocal); rec != nil {
		mul := consumer(g, rec, ir.OpMul)
		if mul == nil || other(mul, rec.Output(0)) != x {
			return nil
		}
		last = mul
		ms = append(ms, rec, mul)
	} else {
		return nil
	}
	mt := &match{roles: map[*ir.Value]string{x: "X"}}
	if w := consumer(g, last, ir.OpMul); w != nil && constOf(other(w, last.Output(0))) != nil {
		ms = append(ms, w)
		mt.roles[other(w, last.Output(0))] = "Scale"
	}
	mt.members, mt.attrs = ms, normAttrs(x, add.Input(1), mean)
	return mt
}
