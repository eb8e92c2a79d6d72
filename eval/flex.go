package eval

// This file implements ai.onnx.preview FlexAttention (score_mod and
// prob_mod subgraphs applied to the whole score / probability tensors),
// SwiGLU and MaxUnpool.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerFlex() {
	registerDomain("ai.onnx.preview", "FlexAttention", kernelFlexAttention)
	register(kernelSwiGLU, "SwiGLU")
	register(kernelMaxUnpool, "MaxUnpool")
}

// applyMod runs a one-input, one-output subgraph on t.
func (c *Ctx) applyMod(name string, t *Tensor) (*Tensor, error) {
	g := c.Graph(name)
	if g == nil {
		return t, nil
	}
	outs, err := c.RunSubgraph(g, []Value{t})
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		return nil, c.Errorf("%s must have one output", name)
	}
	r, ok := outs[0].(*Tensor)
	if !ok || !equalInts(r.Shape, t.Shape) {
		return nil, c.Errorf("%s must return a tensor of shape %v", name, t.Shape)
	}
	return r, nil
}

func kernelFlexAttention(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	qt, kt, vt := in[0], in[1], in[2]
	var err error
	if c.Graph("mask_mod") != nil {
		return nil, c.unsupported("mask_mod")
	}
	if qt.Rank() != 4 || kt.Rank() != 4 || vt.Rank() != 4 {
		return nil, c.Errorf("Q, K and V must be 4-D")
	}
	B, H, L, E := qt.Shape[0], qt.Shape[1], qt.Shape[2], qt.Shape[3]
	KH, S, Ev := kt.Shape[1], kt.Shape[2], vt.Shape[3]
	if kt.Shape[0] != B || kt.Shape[3] != E || vt.Shape[1] != KH || vt.Shape[2] != S || KH == 0 || H%KH != 0 {
		return nil, c.Errorf("Q %s, K %s and V %s do not fit", qt, kt, vt)
	}
	scale := 1 / math.Sqrt(float64(E))
	if a := c.Attr("scale"); a != nil && a.Type == ir.AttrFloat {
		scale = float64(a.F)
	}
	q, k, v := qt.f64(), kt.f64(), vt.f64()
	rep := H / KH
	shape := []int{B, H, L, S}
	if err := c.check(qt.DType, shape); err != nil {
		return nil, err
	}
	sc := make([]float64, B*H*L*S)
	for b := 0; b < B; b++ {
		for h := 0; h < H; h++ {
			kh := h / rep
			for i := 0; i < L; i++ {
				for j := 0; j < S; j++ {
					s := 0.0
					for e := 0; e < E; e++ {
						s += q[((b*H+h)*L+i)*E+e] * k[((b*KH+kh)*S+j)*E+e]
					}
					sc[((b*H+h)*L+i)*S+j] = s * scale
				}
			}
		}
	}
	scores := fromFloat64s(qt.DType, shape, sc)
	scores.normalize()
	if scores, err = c.applyMod("score_mod", scores); err != nil {
		return nil, err
	}
	sm, err := softmaxKernel(0)(&Ctx{Node: c.Node, Opset: 13, e: c.e, sc: c.sc, depth: c.depth}, []*Tensor{scores})
	if err != nil {
		return nil, err
	}
	probs := sm[0]
	probs.normalize()
	if probs, err = c.applyMod("prob_mod", probs); err != nil {
		return nil, err
	}
	pf := probs.f64()
	y := make([]float64, B*H*L*Ev)
	for b := 0; b < B; b++ {
		for h := 0; h < H; h++ {
			kh := h / rep
			for i := 0; i < L; i++ {
				for d := 0; d < Ev; d++ {
					s := 0.0
					for j := 0; j < S; j++ {
						s += pf[((b*H+h)*L+i)*S+j] * v[((b*KH+kh)*S+j)*Ev+d]
					}
					y[((b*H+h)*L+i)*Ev+d] = s
				}
			}
		}
	}
	return []*Tensor{fromFloat64s(qt.DType, []int{B, H, L, Ev}, y)}, nil
}

func kernelSwiGLU(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	alpha := float64(c.Float("alpha", 1))
	return binaryOp(func(a, b float64) float64 { return a * sigmoid(alpha*a) * b }, nil)(c, in)
}

func kernelMaxUnpool(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, it := in[0], in[1]
	idx, err := ints(it, "I")
	if err != nil {
		return nil, err
	}
	if x.Rank() < 3 || it.Len() != x.Len() {
		return nil, c.Errorf("X %s and I %s do not fit", x, it)
	}
	// Indices address the default unpooled shape; an explicit
	// output_shape only pads it.
	ks, _ := c.Ints("kernel_shape")
	st, _ := c.Ints("strides")
	pads, _ := c.Ints("pads")
	r := x.Rank() - 2
	if len(ks) != r {
		return nil, c.Errorf("kernel_shape %v does not fit %s", ks, x)
	}
	def := []int{x.Shape[0], x.Shape[1]}
	for d := 0; d < r; d++ {
		s := 1
		if d < len(st) {
			s = int(st[d])
		}
		pb, pe := 0, 0
		if len(pads) == 2*r {
			pb, pe = int(pads[d]), int(pads[d+r])
		}
		def = append(def, (x.Shape[2+d]-1)*s+int(ks[d])-pb-pe)
	}
	shape := def
	if os := optIn(in, 2); os != nil {
		v, err := ints(os, "output_shape")
		if err != nil || len(v) != x.Rank() {
			return nil, c.Errorf("output_shape must list %d dims", x.Rank())
		}
		shape = toInts(v)
		for d := range shape {
			if shape[d] < def[d] {
				return nil, c.Errorf("output_shape %v is smaller than %v", shape, def)
			}
		}
	}
	dst := strides(def)
	ost := strides(shape)
	remap := func(p int) int {
		off := 0
		for d := range def {
			off += (p / dst[d] % def[d]) * ost[d]
		}
		return off
	}
	out, err := c.alloc(x.DType, shape)
	if err != nil {
		return nil, err
	}
	for i, p := range idx {
		if p < 0 || p >= int64(numel(def)) {
			return nil, c.Errorf("index %d out of range", p)
		}
		copyElem(out, remap(int(p)), x, i)
	}
	return []*Tensor{out}, nil
}
