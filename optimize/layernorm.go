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
	return runPattern(c, "LayerNorm", "layernorm", matchLayerNorm)
}

// matchLayerNorm matches at the Div.
func matchLayerNorm(g *ir.Graph, div *ir.Node) []*ir.Node {
	if !is(div, "Div") {
		return nil
	}
	sub := producer(div.Input(0), "Sub")
	sqrt := producer(div.Input(1), "Sqrt")
	if sub == nil || sqrt == nil {
		return nil
	}
	x := sub.Input(0)
	mean := producer(sub.Input(1), "ReduceMean")
	if mean == nil || mean.Input(0) != x {
		return nil
	}
	addEps := producer(sqrt.Input(0), "Add")
	if addEps == nil {
		return nil
	}
	varMean := producer(addEps.Input(0), "ReduceMean")
	if varMean == nil {
		return nil
	}
	d := sub.Output(0)
	sq := varMean.Input(0).Producer
	switch {
	case is(sq, "Pow") && sq.Input(0) == d && constNear(sq.Input(1), 2):
	case is(sq, "Mul") && sq.Input(0) == d && sq.Input(1) == d:
	default:
		return nil
	}
	ms := []*ir.Node{mean, sub, sq, varMean, addEps, sqrt, div}
	if mul := consumer(g, div, "Mul"); mul != nil && constOf(other(mul, div.Output(0))) != nil {
		ms = append(ms, mul)
		if add := consumer(g, mul, "Add"); add != nil && constOf(other(add, mul.Output(0))) != nil {
			ms = append(ms, add)
		}
	}
	return ms
}
