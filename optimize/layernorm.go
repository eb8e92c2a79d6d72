package optimize

// This file implements LayerNorm fusion.
//
// The primitive form exporters emit (PyTorch before opset 17, Keras):
//
//	  x ─────────────┬──────────────┐
//	  │              ▼              │
//	  │         ReduceMean          │
//	  │              ▼              │
//	  └──────────► Sub ◄────────────┘  d = x - mean(x)
//	                 │
//	         ┌───────┴──────────┐
//	         ▼                  │
//	    Pow(d, 2) | Mul(d, d)   │
//	         ▼                  │
//	     ReduceMean             │
//	         ▼                  │
//	     Add(eps)               │
//	         ▼                  │
//	       Sqrt                 │
//	         ▼                  ▼
//	         └─────────────► Div(d, ·)
//	                            ▼
//	                    [Mul(gamma)] ─► [Add(beta)]
//
// becomes one wolong:LayerNorm kernel: a single pass over each row
// instead of two reductions and six elementwise kernels.

import (
	"github.com/wolong-dev/wolong/ir"
)

func layerNormFuse(c *Context) ([]Rewrite, error) {
	return runPattern(c, ir.FusedLayerNorm.Name, "layernorm", matchLayerNorm)
}

// matchLayerNorm matches at the Div. It records the normalized axis and
// epsilon when they are plain (a suffix of the dims; a constant), and the
// roles X, Scale and B.
func matchLayerNorm(g *ir.Graph, div *ir.Node) *match {
	if !div.Is(ir.OpDiv) {
		return nil
	}
	sub := producer(div.Input(0), ir.OpSub)
	sqrt := producer(div.Input(1), ir.OpSqrt)
	if sub == nil || sqrt == nil {
		return nil
	}
	x := sub.Input(0)
	mean := producer(sub.Input(1), ir.OpReduceMean)
	if mean == nil || mean.Input(0) != x {
		return nil
	}
	addEps := producer(sqrt.Input(0), ir.OpAdd)
	if addEps == nil {
		return nil
	}
	varMean := producer(addEps.Input(0), ir.OpReduceMean)
	if varMean == nil {
		return nil
	}
	d := sub.Output(0)
	sq := varMean.Input(0).Producer
	switch {
	case sq.Is(ir.OpPow) && sq.Input(0) == d && constNear(sq.Input(1), 2):
	case sq.Is(ir.OpMul) && sq.Input(0) == d && sq.Input(1) == d:
	default:
		return nil
	}
	mt := &match{members: []*ir.Node{mean, sub, sq, varMean, addEps, sqrt, div}, roles: map[*ir.Value]string{x: "X"}}
	if mul := consumer(g, div, ir.OpMul); mul != nil && constOf(other(mul, div.Output(0))) != nil {
		mt.members = append(mt.members, mul)
		mt.roles[other(mul, div.Output(0))] = "Scale"
		if add := consumer(g, mul, ir.OpAdd); add != nil && constOf(other(add, mul.Output(0))) != nil {
			mt.members = append(mt.members, add)
			mt.roles[other(add, mul.Output(0))] = "B"
		}
	}
	mt.attrs = normAttrs(x, addEps.Input(1), mean, varMean)
	return mt
}

// normAttrs records a normalization's epsilon (a one-element constant)
// and its first normalized axis, when every reduction given reduces the
// same trailing axes of x (keeping dims); either is left out otherwise.
func normAttrs(x, eps *ir.Value, reductions ...*ir.Node) []*ir.Attr {
	var out []*ir.Attr
	if e, ok := scalarOf(eps); ok {
		out = append(out, &ir.Attr{Name: ir.FusedEpsilon, Type: ir.AttrFloat, F: float32(e)})
	}
	axis, ok := int64(-1), true
	for _, r := range reductions {
		a, good := trailingAxis(x, r)
		ok = ok && good && (axis < 0 || a == axis)
		axis = a
	}
	if ok && axis >= 0 {
		out = append(out, &ir.Attr{Name: ir.FusedAxis, Type: ir.AttrInt, I: axis})
	}
	return out
}

// trailingAxis returns the first axis a ReduceMean over x reduces when
// its axes are the trailing dims of x and it keeps dims.
func trailingAxis(x *ir.Value, r *ir.Node) (int64, bool) {
	rank := x.Type.Shape.Rank()
	if rank <= 0 || !x.Type.Shape.Known || r.AttrInt("keepdims", 1) != 1 {
		return 0, false
	}
	axes, ok := r.AttrInts("axes")
	if !ok {
		t := constOf(r.Input(1))
		if t == nil {
			return 0, false
		}
		var err error
		if axes, err = t.Int64Values(int64(rank)); err != nil {
			return 0, false
		}
	}
	if len(axes) == 0 || len(axes) > rank {
		return 0, false
	}
	first := int64(rank)
	seen := map[int64]bool{}
	for _, a := range axes {
		if a < 0 {
			a += int64(rank)
		}
		if a < int64(rank-len(axes)) || a >= int64(rank) || seen[a] {
			return 0, false // not a suffix of the dims
		}
		seen[a] = true
		first = min(first, a)
	}
	return first, true
}
