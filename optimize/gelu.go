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
	"encoding/binary"
	"math"

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
	if s := consumer(g, e, "Sum"); add == nil && s != nil && len(s.Inputs) == 2 {
		add = s // ONNX's own function body of Gelu writes the add as Sum
	}
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

// geluProbe are the points toNativeGelu checks a fused GELU body at;
// all are exact in every float type.
var geluProbe = []float64{-4, -3, -2.5, -2, -1.5, -1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 4}

// toNativeGelu turns a fused wolong:Gelu node into the standard ai.onnx
// Gelu(X) (opset 20+; approximate="tanh" for the tanh form) in place. The
// matcher does not check the constants inside the argument (the √2
// divisor, 0.044715, √(2/π)), so the body is evaluated at geluProbe and
// must agree with the GELU formula of its form; it must also read one
// float tensor x of known rank plus one-element constants of no higher
// rank, so the native op gives the same shape. Constants of a GELU nested
// in another fused body are found through the enclosing fused nodes'
// inputs. It reports false, changing nothing, otherwise.
func toNativeGelu(m *ir.Model, g *ir.Graph, n *ir.Node, fold Folder) bool {
	body := n.AttrGraph("body")
	if body == nil || n.Op != "Gelu" || n.Domain != FusedDomain || len(n.Outputs) != 1 || n.Output(0) == nil || m.Opset("") < 20 {
		return false
	}
	var x *ir.Value
	xi := -1
	args := make([]*ir.Tensor, len(n.Inputs))
	for i, v := range n.Inputs {
		if v == nil {
			return false
		}
		if t := fusedConst(g, v); t != nil {
			args[i] = t
			continue
		}
		if x != nil {
			return false
		}
		x, xi = v, i
	}
	if x == nil || !x.Type.IsTensor() || !x.Type.Shape.Known || n.Output(0).Type.DType != x.Type.DType {
		return false
	}
	for _, t := range args {
		if t == nil {
			continue
		}
		if k, ok := t.NumElements(); !ok || k != 1 || len(t.Dims) > x.Type.Shape.Rank() {
			return false
		}
	}
	approx := ""
	switch {
	case bodyHas(body, "Tanh") && !bodyHas(body, "Erf"):
		approx = "tanh"
	case bodyHas(body, "Erf") && !bodyHas(body, "Tanh"):
	default:
		return false
	}
	probe, tol := floatProbe(x.Type.DType, geluProbe)
	if probe == nil {
		return false
	}
	args[xi] = probe
	out, err := fold.Fold(m, n, args)
	if err != nil || len(out) != 1 || out[0] == nil {
		return false
	}
	got, err := out[0].Float64Values(int64(len(geluProbe)))
	if err != nil || len(got) != len(geluProbe) {
		return false
	}
	for i, v := range geluProbe {
		want := 0.5 * v * (1 + math.Erf(v/math.Sqrt2))
		if approx == "tanh" {
			want = 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
		}
		if math.IsNaN(got[i]) || math.Abs(got[i]-want) > tol*(1+math.Abs(want)) {
			return false
		}
	}
	for i := range n.Inputs {
		n.SetInput(i, nil)
	}
	n.Inputs = nil
	n.Inputs = append(n.Inputs, nil)
	n.SetInput(0, x)
	n.Op, n.Domain, n.Attrs = "Gelu", "", nil
	if approx != "" {
		n.Attrs = []*ir.Attr{{Name: "approximate", Type: ir.AttrString, S: []byte(approx)}}
	}
	return true
}

// fusedConst returns v's constant data, looking through the inputs of the
// fused nodes whose bodies enclose g.
func fusedConst(g *ir.Graph, v *ir.Value) *ir.Tensor {
	for depth := 0; depth < 64 && v != nil; depth++ {
		if v.Const != nil {
			return v.Const
		}
		p := g.ParentNode
		if p == nil || p.Domain != FusedDomain || g.Parent == nil {
			return nil
		}
		next := (*ir.Value)(nil)
		for i, in := range g.Inputs {
			if in == v && i < len(p.Inputs) {
				next = p.Inputs[i]
			}
		}
		v, g = next, g.Parent
	}
	return nil
}

// bodyHas reports whether g has a node of the ai.onnx op.
func bodyHas(g *ir.Graph, op string) bool {
	for _, n := range g.Nodes {
		if is(n, op) {
			return true
		}
	}
	return false
}

// floatProbe returns vals as a 1-D tensor of dtype dt and the relative
// tolerance a GELU computed in dt meets, or nil for other dtypes.
func floatProbe(dt ir.DType, vals []float64) (*ir.Tensor, float64) {
	var raw []byte
	tol := 1e-4
	switch dt {
	case ir.Float32:
		for _, v := range vals {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(v)))
		}
	case ir.Float64:
		for _, v := range vals {
			raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v))
		}
	case ir.Float16, ir.BFloat16:
		tol = 3e-2
		for _, v := range vals {
			h := ir.Float32ToHalf(float32(v))
			if dt == ir.BFloat16 {
				h = ir.Float32ToBFloat16(float32(v))
			}
			raw = binary.LittleEndian.AppendUint16(raw, h)
		}
	default:
		return nil, 0
	}
	return &ir.Tensor{Name: "gelu_probe", DType: dt, Dims: []int64{int64(len(vals))}, Raw: raw}, tol
}
