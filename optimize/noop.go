package optimize

// This file implements no-op elimination.

import (
	"github.com/wolong-dev/wolong/ir"
)

// noopElim removes nodes that return their input unchanged:
//
//   - Identity; Dropout at inference (no mask consumer, training_mode not
//     a constant true);
//   - Cast to the input's own dtype;
//   - Reshape, Flatten, Squeeze, Unsqueeze and Expand whose static output
//     shape equals the static input shape;
//   - Add/Sub of a constant 0 and Mul/Div by a constant 1 that broadcast to
//     the input's own shape and dtype;
//   - Transpose(Transpose(x, p), q) where q undoes p (the inner one goes
//     too when nothing else reads it; dce removes it).
//
// Uses of the output are relinked to the input; a graph output keeps its
// name (when the input is a graph input the node stays). dce deletes what
// is left.
func noopElim(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	order := nodesInOrder(g)
	var rw []Rewrite
	eq := constChecks{}
	for _, n := range order {
		if !isDefault(n) || len(n.Outputs) == 0 || n.Outputs[0] == nil {
			continue
		}
		src, why := noopSource(n, eq)
		if src == nil {
			continue
		}
		out := n.Outputs[0]
		for _, o := range n.Outputs[1:] {
			if o != nil && (len(o.Uses) > 0 || g.IsOutput(o)) {
				src = nil
			}
		}
		if src == nil || !c.substitute(out, src) {
			continue
		}
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, Remark: why})
	}
	return rw, nil
}

// constChecks memoizes allEqual by tensor and value for one run of the
// pass: a model's Adds often share one bias (a 100k-node model reads it
// 25k times, and allEqual widens it to a fresh []float64 each time).
type constChecks map[constCheck]bool

type constCheck struct {
	t    *ir.Tensor
	want float64
}

// allEqual is allEqual(t, want), computed once per tensor and value.
func (e constChecks) allEqual(t *ir.Tensor, want float64) bool {
	if t == nil {
		return false
	}
	k := constCheck{t, want}
	r, ok := e[k]
	if !ok {
		r = allEqual(t, want)
		e[k] = r
	}
	return r
}

// noopSource returns the value n passes through unchanged and why, or nil
// (eq answers allEqual).
func noopSource(n *ir.Node, eq constChecks) (*ir.Value, string) {
	in := n.Input(0)
	out := n.Output(0)
	if in == nil {
		return nil, ""
	}
	switch n.Key() {
	case ir.OpIdentity:
		return in, "Identity"
	case ir.OpDropout:
		if t := constOf(n.Input(2)); t != nil {
			if v, err := t.Int64Values(1); err != nil || len(v) != 1 || v[0] != 0 {
				return nil, ""
			}
		} else if n.Input(2) != nil {
			return nil, ""
		}
		return in, "Dropout at inference"
	case ir.OpCast:
		if in.Type.IsTensor() && in.Type.DType != ir.Undefined && ir.DType(n.AttrInt("to", 0)) == in.Type.DType {
			return in, "Cast to the same type"
		}
	case ir.OpReshape, ir.OpFlatten, ir.OpSqueeze, ir.OpUnsqueeze, ir.OpExpand:
		if sameStatic(in, out) {
			return in, n.Op + " to the same shape"
		}
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv:
		if len(n.Inputs) != 2 || !sameStatic(in, out) {
			return nil, ""
		}
		want := 0.0
		if n.IsAny(ir.OpMul, ir.OpDiv) {
			want = 1
		}
		if eq.allEqual(constOf(n.Input(1)), want) {
			return in, n.Op + " of the identity constant"
		}
		if n.IsAny(ir.OpAdd, ir.OpMul) && eq.allEqual(constOf(in), want) && sameStatic(n.Input(1), out) {
			return n.Input(1), n.Op + " of the identity constant"
		}
	case ir.OpTranspose:
		p := in.Producer
		if !p.Is(ir.OpTranspose) || p.Input(0) == nil {
			return nil, ""
		}
		a, ok1 := p.AttrInts("perm")
		b, ok2 := n.AttrInts("perm")
		if !ok1 || !ok2 || len(a) != len(b) {
			return nil, ""
		}
		for i := range b {
			if b[i] < 0 || int(b[i]) >= len(a) || a[b[i]] != int64(i) {
				return nil, ""
			}
		}
		return p.Input(0), "inverse Transpose pair"
	}
	return nil, ""
}

// sameStatic reports whether a and b have the same static shape and dtype.
func sameStatic(a, b *ir.Value) bool {
	if a == nil || b == nil || !a.Type.IsTensor() || !b.Type.IsTensor() || a.Type.DType != b.Type.DType {
		return false
	}
	x, ok1 := a.Type.Shape.Ints()
	y, ok2 := b.Type.Shape.Ints()
	if !ok1 || !ok2 || len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// noopMaxElems is the largest constant allEqual reads.
const noopMaxElems = 4096

// allEqual reports whether every element of a small constant is want.
func allEqual(t *ir.Tensor, want float64) bool {
	if t == nil {
		return false
	}
	n, ok := t.NumElements()
	if !ok || n == 0 || n > noopMaxElems {
		return false
	}
	vals, err := t.Float64Values(n)
	if err != nil {
		return false
	}
	for _, v := range vals {
		if v != want {
			return false
		}
	}
	return true
}
