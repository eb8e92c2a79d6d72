package optimize

// This file implements SiLU (Swish) fusion.
//
//	x ──► Sigmoid ──► Mul(x, ·)
//	│                   ▲
//	└───────────────────┘
//
// becomes one wolong:SiLU kernel (the generic fuser would find the same
// group; this pass names it).

import (
	"github.com/wolong-dev/wolong/ir"
)

func siluFuse(c *Context) ([]Rewrite, error) {
	return runPattern(c, ir.FusedSiLU.Name, "silu", matchSiLU)
}

// matchSiLU matches at the Sigmoid; it records the role X and alpha 1
// (SiLU is x*sigmoid(alpha*x) with alpha 1).
func matchSiLU(g *ir.Graph, s *ir.Node) *match {
	if !s.Is(ir.OpSigmoid) {
		return nil
	}
	mul := consumer(g, s, ir.OpMul)
	if mul == nil || other(mul, s.Output(0)) != s.Input(0) {
		return nil
	}
	return &match{members: []*ir.Node{s, mul}, roles: map[*ir.Value]string{s.Input(0): "X"},
		attrs: []*ir.Attr{{Name: ir.FusedAlpha, Type: ir.AttrFloat, F: 1}}}
}
