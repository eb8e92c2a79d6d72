package optimize

// This file implements quantize-dequantize pair elimination around data
// movement.

import (
	"github.com/wolong-dev/wolong/ir"
)

// qdqElim removes a DequantizeLinear -> (data movement) -> QuantizeLinear
// round trip whose two quantizations are the same (equal scalar scale and
// zero point of the same type): quantized exporters emit it around a
// Reshape or Flatten between quantized ops.
//
//	x:uint8 -> DequantizeLinear(s, z) -> Reshape -> QuantizeLinear(s, z) -> y:uint8
//	                              becomes
//	x:uint8 -> Reshape -> y:uint8
//
// Q(DQ(x)) = round(((x - z) * s) / s) + z = x exactly, and data movement
// commutes with the elementwise (de)quantization, so outputs are bit
// identical. Only per-tensor (scalar) parameters are matched; the
// dequantized value and the moved value must have no other reader. ONNX
// Runtime removes the same pairs at its extended level.
func qdqElim(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	order := nodesInOrder(g)
	var rw []Rewrite
	for _, q := range order {
		if !q.Is(ir.OpQuantizeLinear) || q.Output(0) == nil {
			continue
		}
		mv := q.Input(0)
		if mv == nil || mv.Producer == nil || !singleUse(g, mv) {
			continue
		}
		m := mv.Producer
		switch {
		case m.Is(ir.OpReshape), m.Is(ir.OpFlatten), m.Is(ir.OpSqueeze), m.Is(ir.OpUnsqueeze), m.Is(ir.OpTranspose):
		default:
			continue
		}
		dv := m.Input(0)
		if dv == nil || dv.Producer == nil || !dv.Producer.Is(ir.OpDequantizeLinear) || !singleUse(g, dv) {
			continue
		}
		d := dv.Producer
		if !sameQuant(d, q) {
			continue
		}
		x := d.Input(0)
		out := q.Output(0)
		if c.pinned(mv) || c.pinned(dv) || len(m.Outputs) != 1 {
			continue
		}
		setInput(m, 0, x)
		mv.Type = ir.Type{} // re-inferred: now the quantized type
		if !c.substitute(out, mv) {
			setInput(m, 0, dv) // undo
			continue
		}
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(d), ir.NodeLabel(m), ir.NodeLabel(q)}, After: []string{ir.NodeLabel(m)}, Sep: "+",
			Remark: "DequantizeLinear -> " + m.Op + " -> QuantizeLinear with equal scale and zero point: move the quantized data directly"})
	}
	return rw, nil
}

// sameQuant reports whether d dequantizes with the same scalar scale and
// zero point (and axis) that q quantizes with.
func sameQuant(d, q *ir.Node) bool {
	if d.AttrInt("axis", 1) != q.AttrInt("axis", 1) {
		return false
	}
	x := d.Input(0)
	if x == nil || !x.Type.IsTensor() || x.Type.DType == ir.Undefined {
		return false
	}
	ds, ok1 := scalarOf(d.Input(1))
	qs, ok2 := scalarOf(q.Input(1))
	if !ok1 || !ok2 || ds != qs || ds == 0 {
		return false
	}
	dz, qz := d.Input(2), q.Input(2)
	switch {
	case dz == nil && qz == nil:
		return x.Type.DType == ir.Uint8 // Q defaults to uint8 with zero point 0
	case dz == nil || qz == nil:
		zv, ok := scalarOf(dz)
		if dz == nil {
			zv, ok = scalarOf(qz)
		}
		return ok && zv == 0 && x.Type.DType == ir.Uint8 && (qz == nil || qz.Type.DType == ir.Uint8)
	}
	a, ok1 := scalarOf(dz)
	b, ok2 := scalarOf(qz)
	return ok1 && ok2 && a == b && dz.Type.DType == qz.Type.DType && qz.Type.DType == x.Type.DType
}
