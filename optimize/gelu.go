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
	"math"
	"slices"

	"github.com/wolong-dev/wolong/ir"
)

func geluFuse(c *Context) ([]Rewrite, error) {
	return runPattern(c, ir.FusedGelu.Name, "gelu", matchGelu)
}

// matchGelu matches at the Erf or Tanh. It records the role X and, when
// the argument's constants are GELU's (checked by evaluating the matched
// argument at geluProbe) and the output has x's shape, the form as
// ir.FusedApproximate ("none" for erf, "tanh"); without it the group is
// still one kernel, but no lowering may write it as a GELU operator.
func matchGelu(g *ir.Graph, e *ir.Node) *match {
	if !e.Is(ir.OpErf) && !e.Is(ir.OpTanh) {
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
		if p == nil || p.Graph != g || !singleUseWithin(g, v, in) || kindOf(p) > ir.Broadcast || len(ms) > 8 {
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
	arg := append([]*ir.Node(nil), ms[1:]...)
	// Forward: Add(1), then Muls by x, 0.5 or 0.5*x.
	add := consumer(g, e, ir.OpAdd)
	if s := consumer(g, e, ir.OpSum); add == nil && s != nil && len(s.Inputs) == 2 {
		add = s // ONNX's own function body of Gelu writes the add as Sum
	}
	if add == nil || !constNear(other(add, e.Output(0)), 1) {
		return nil
	}
	ms = append(ms, add)
	cur, readsX := add, false
	for k := 0; k < 2; k++ {
		mul := consumer(g, cur, ir.OpMul)
		if mul == nil {
			break
		}
		o := other(mul, cur.Output(0))
		switch {
		case o == x:
			readsX = true
		case constNear(o, 0.5):
		case o != nil && o.Producer.Is(ir.OpMul) && singleUse(g, o) && other(o.Producer, x) != nil && constNear(other(o.Producer, x), 0.5):
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
	mt := &match{members: ms, roles: map[*ir.Value]string{x: "X"}}
	form := "none"
	if e.Is(ir.OpTanh) {
		form = "tanh"
	}
	if out := cur.Output(0); out != nil && x.Type.Shape.Known && out.Type.Shape.Identical(x.Type.Shape) &&
		out.Type.DType == x.Type.DType && geluArgument(x, arg, e.Input(0), form) {
		mt.attrs = []*ir.Attr{{Name: ir.FusedApproximate, Type: ir.AttrString, S: []byte(form)}}
	}
	return mt
}

// geluArgument reports whether nodes (elementwise ops of x and one-element
// constants) compute arg as GELU's form does: x/√2 for erf,
// √(2/π)(x + 0.044715x³) for tanh, checked at every geluProbe point to
// within the rounding of half-precision constants.
func geluArgument(x *ir.Value, nodes []*ir.Node, arg *ir.Value, form string) bool {
	for _, p := range geluProbe {
		vals := map[*ir.Value]float64{x: p}
		got, ok := scalarEval(arg, vals, nodes)
		want := p / math.Sqrt2
		if form == "tanh" {
			want = math.Sqrt(2/math.Pi) * (p + 0.044715*p*p*p)
		}
		if !ok || math.IsNaN(got) || math.Abs(got-want) > 2e-3*(1+math.Abs(want)) {
			return false
		}
	}
	return true
}

// scalarOps are the ops scalarEval computes, with their input count.
var scalarOps = map[ir.OpKey]struct {
	args int
	f    func(a []float64) float64
}{
	ir.OpIdentity: {1, func(a []float64) float64 { return a[0] }},
	ir.OpNeg:      {1, func(a []float64) float64 { return -a[0] }},
	ir.OpSqrt:     {1, func(a []float64) float64 { return math.Sqrt(a[0]) }},
	ir.OpAdd:      {2, func(a []float64) float64 { return a[0] + a[1] }},
	ir.OpSub:      {2, func(a []float64) float64 { return a[0] - a[1] }},
	ir.OpMul:      {2, func(a []float64) float64 { return a[0] * a[1] }},
	ir.OpDiv:      {2, func(a []float64) float64 { return a[0] / a[1] }},
	ir.OpPow:      {2, func(a []float64) float64 { return math.Pow(a[0], a[1]) }},
}

// scalarEval evaluates v at one point: vals holds the known values, nodes
// the elementwise ops allowed to compute the rest (one-element constants
// read as their value).
func scalarEval(v *ir.Value, vals map[*ir.Value]float64, nodes []*ir.Node) (float64, bool) {
	if f, ok := vals[v]; ok {
		return f, true
	}
	if f, ok := scalarOf(v); ok {
		return f, true
	}
	p := v.Producer
	if p == nil || !slices.Contains(nodes, p) || len(p.Outputs) != 1 {
		return 0, false
	}
	args := make([]float64, len(p.Inputs))
	for i, in := range p.Inputs {
		f, ok := scalarEval(in, vals, nodes)
		if !ok {
			return 0, false
		}
		args[i] = f
	}
	op, ok := scalarOps[p.Key()]
	if !ok || len(args) != op.args {
		return 0, false
	}
	r := op.f(args)
	vals[v] = r
	return r, true
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

// geluProbe are the points matchGelu checks a GELU's argument at.
var geluProbe = []float64{-4, -3, -2.5, -2, -1.5, -1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 4}
