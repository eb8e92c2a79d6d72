package modelgen

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// Transformer is a BERT-style post-LN transformer encoder of layers
// layers written in primitive ops only, as older exporters emit it:
// MatMul/Add projections, Reshape/Transpose into heads, MatMul-Div-Softmax-
// MatMul attention, LayerNorm as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/
// Div/Mul/Add, and the erf form of GELU. The input is [batch, seq, dModel].
func Transformer(layers, batch, seq, dModel, heads, dFF int) *ir.Model {
	b := New(fmt.Sprintf("transformer_%dl", layers), 17)
	x := b.Input("x", ir.Float32, batch, seq, dModel)
	D, S, B, H := int64(dModel), int64(seq), int64(batch), int64(heads)
	dh := D / H
	eps := b.ConstF("ln_eps", nil, 1e-5)
	two := b.ConstF("two", nil, 2)
	scale := b.ConstF("attn_scale", nil, float32(math.Sqrt(float64(dh))))
	sqrt2 := b.ConstF("sqrt2", nil, float32(math.Sqrt2))
	one := b.ConstF("one_f", nil, 1)
	half := b.ConstF("half", nil, 0.5)
	toHeads := b.ConstI("to_heads", []int64{4}, B, S, H, dh)
	fromHeads := b.ConstI("from_heads", []int64{3}, B, S, D)
	layerNorm := func(in *ir.Value, name string) *ir.Value {
		mean := b.Op("ReduceMean", []*ir.Value{in}, Ints("axes", -1))
		d := b.Op("Sub", []*ir.Value{in, mean})
		v := b.Op("ReduceMean", []*ir.Value{b.Op("Pow", []*ir.Value{d, two})}, Ints("axes", -1))
		n := b.Op("Div", []*ir.Value{d, b.Op("Sqrt", []*ir.Value{b.Op("Add", []*ir.Value{v, eps})})})
		n = b.Op("Mul", []*ir.Value{n, b.Weight(name+".gamma", D)})
		return b.Op("Add", []*ir.Value{n, b.Weight(name+".beta", D)})
	}
	linear := func(in *ir.Value, name string, din, dout int64) *ir.Value {
		return b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{in, b.Weight(name+".weight", din, dout)}), b.Weight(name+".bias", dout)})
	}
	for l := 0; l < layers; l++ {
		p := fmt.Sprintf("layer%d", l)
		q := linear(x, p+".q", D, D)
		k := linear(x, p+".k", D, D)
		v := linear(x, p+".v", D, D)
		heads := func(t *ir.Value, perm ...int64) *ir.Value {
			return b.Op("Transpose", []*ir.Value{b.Op("Reshape", []*ir.Value{t, toHeads})}, Ints("perm", perm...))
		}
		qh := heads(q, 0, 2, 1, 3)
		kh := heads(k, 0, 2, 3, 1)
		vh := heads(v, 0, 2, 1, 3)
		s := b.Op("Div", []*ir.Value{b.Op("MatMul", []*ir.Value{qh, kh}), scale})
		a := b.Op("MatMul", []*ir.Value{b.Op("Softmax", []*ir.Value{s}, Int("axis", -1)), vh})
		a = b.Op("Reshape", []*ir.Value{b.Op("Transpose", []*ir.Value{a}, Ints("perm", 0, 2, 1, 3)), fromHeads})
		a = linear(a, p+".out", D, D)
		x = layerNorm(b.Op("Add", []*ir.Value{x, a}), p+".ln1")
		f := linear(x, p+".ff1", D, int64(dFF))
		// GELU, erf form: 0.5 * f * (1 + erf(f / sqrt 2))
		e := b.Op("Add", []*ir.Value{b.Op("Erf", []*ir.Value{b.Op("Div", []*ir.Value{f, sqrt2})}), one})
		f = b.Op("Mul", []*ir.Value{b.Op("Mul", []*ir.Value{f, e}), half})
		f = linear(f, p+".ff2", int64(dFF), D)
		x = layerNorm(b.Op("Add", []*ir.Value{x, f}), p+".ln2")
	}
	return b.outputY(x)
}
