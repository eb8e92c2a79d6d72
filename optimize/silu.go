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
	return runPattern(c, "SiLU", "silu", matchSiLU)
}

func matchSiLU(g *ir.Graph, s *ir.Node) []*ir.Node {
	if !is(s, "Sigmoid") {
		return nil
	}
	mul := consumer(g, s, "Mul")
	if mul == nil || other(mul, s.Output(0)) != s.Input(0) {
		return nil
	}
	return []*ir.Node{s, mul}
}
