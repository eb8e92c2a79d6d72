package modelgen

// This file builds one small model per fusion wolong writes as an ONNX
// Runtime operator (optimize --target ort), in the primitive form
// exporters emit, for the lowering's tests.

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// Pattern is a named model holding one fusable pattern.
type Pattern struct {
	Name  string
	Model *ir.Model
}

// ORTPatterns returns the models, each with input "x" and one output.
func ORTPatterns() []Pattern {
	var out []Pattern
	add := func(name string, opset int64, build func(b *Builder)) {
		b := New(name, opset)
		build(b)
		out = append(out, Pattern{name, b.Model()})
	}
	conv := func(b *Builder, x *ir.Value, bias bool) *ir.Value {
		ins := []*ir.Value{x, b.Weight("w", 8, 3, 3, 3)}
		if bias {
			ins = append(ins, b.Weight("b", 8))
		}
		return b.Op("Conv", ins, Ints("pads", 1, 1, 1, 1))
	}
	image := func(b *Builder) *ir.Value { return b.Input("x", ir.Float32, 1, 3, 8, 8) }
	add("conv bias relu", 13, func(b *Builder) {
		y := b.Op("Add", []*ir.Value{conv(b, image(b), false), b.Weight("cb", 8, 1, 1)})
		b.Output(b.Op("Relu", []*ir.Value{y}))
	})
	add("conv residual relu", 13, func(b *Builder) {
		x := image(b)
		y := b.Op("Conv", []*ir.Value{x, b.Weight("w", 3, 3, 3, 3), b.Weight("b", 3)}, Ints("pads", 1, 1, 1, 1))
		b.Output(b.Op("Relu", []*ir.Value{b.Op("Add", []*ir.Value{y, b.Op("Sigmoid", []*ir.Value{x})})}))
	})
	add("conv clip", 13, func(b *Builder) {
		y := conv(b, image(b), true)
		b.Output(b.Op("Clip", []*ir.Value{y, b.ConstF("lo", nil, 0), b.ConstF("hi", nil, 6)}))
	})
	add("conv leakyrelu opset 10", 10, func(b *Builder) {
		b.Output(b.Op("LeakyRelu", []*ir.Value{conv(b, image(b), true)}, Float("alpha", 0.2)))
	})
	rows := func(b *Builder) *ir.Value { return b.Input("x", ir.Float32, 4, 16) }
	add("matmul bias relu", 13, func(b *Builder) {
		y := b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{rows(b), b.Weight("w", 16, 8)}), b.Weight("bias", 8)})
		b.Output(b.Op("Relu", []*ir.Value{y}))
	})
	add("matmul bias", 13, func(b *Builder) {
		y := b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{rows(b), b.Weight("w", 16, 8)}), b.Weight("bias", 8)})
		b.Output(b.Op("Tanh", []*ir.Value{b.Op("Reshape", []*ir.Value{y, b.ConstI("s", []int64{1}, 32)})}))
	})
	add("batched matmul scale", 13, func(b *Builder) {
		x := b.Input("x", ir.Float32, 2, 4, 16)
		b.Output(b.Op("Mul", []*ir.Value{b.Op("MatMul", []*ir.Value{x, b.Weight("w", 16, 8)}), b.ConstF("s", nil, 0.125)}))
	})
	tokens := func(b *Builder) *ir.Value { return b.Input("x", ir.Float32, 2, 4, 16) }
	layerNorm := func(b *Builder, x *ir.Value) *ir.Value {
		mean := b.Op("ReduceMean", []*ir.Value{x}, Ints("axes", -1))
		d := b.Op("Sub", []*ir.Value{x, mean})
		v := b.Op("ReduceMean", []*ir.Value{b.Op("Pow", []*ir.Value{d, b.ConstF("two", nil, 2)})}, Ints("axes", -1))
		n := b.Op("Div", []*ir.Value{d, b.Op("Sqrt", []*ir.Value{b.Op("Add", []*ir.Value{v, b.ConstF("eps", nil, 1e-5)})})})
		return b.Op("Add", []*ir.Value{b.Op("Mul", []*ir.Value{n, b.Weight("gamma", 16)}), b.Weight("beta", 16)})
	}
	add("layernorm opset 13", 13, func(b *Builder) {
		b.Output(b.Op("Relu", []*ir.Value{layerNorm(b, tokens(b))}))
	})
	add("residual layernorm", 13, func(b *Builder) {
		x := tokens(b)
		h := b.Op("MatMul", []*ir.Value{x, b.Weight("w", 16, 16)})
		s := b.Op("Add", []*ir.Value{x, h})
		b.Output(b.Op("Add", []*ir.Value{layerNorm(b, s), s}))
	})
	gelu := func(b *Builder, x *ir.Value, tanh bool) *ir.Value {
		if tanh {
			c := b.Op("Mul", []*ir.Value{b.Op("Pow", []*ir.Value{x, b.ConstF("three", nil, 3)}), b.ConstF("k", nil, 0.044715)})
			u := b.Op("Mul", []*ir.Value{b.Op("Add", []*ir.Value{x, c}), b.ConstF("s", nil, float32(math.Sqrt(2/math.Pi)))})
			th := b.Op("Add", []*ir.Value{b.Op("Tanh", []*ir.Value{u}), b.ConstF("one", nil, 1)})
			return b.Op("Mul", []*ir.Value{b.Op("Mul", []*ir.Value{x, b.ConstF("half", nil, 0.5)}), th})
		}
		e := b.Op("Add", []*ir.Value{b.Op("Erf", []*ir.Value{b.Op("Div", []*ir.Value{x, b.ConstF("sqrt2", nil, float32(math.Sqrt2))})}), b.ConstF("one", nil, 1)})
		return b.Op("Mul", []*ir.Value{b.Op("Mul", []*ir.Value{x, e}), b.ConstF("half", nil, 0.5)})
	}
	for _, form := range []struct {
		name  string
		tanh  bool
		opset int64
	}{{"erf", false, 13}, {"tanh", true, 13}, {"erf", false, 20}} {
		add(fmt.Sprintf("matmul bias gelu %s opset %d", form.name, form.opset), form.opset, func(b *Builder) {
			y := b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{tokens(b), b.Weight("w", 16, 32)}), b.Weight("bias", 32)})
			b.Output(b.Op("Relu", []*ir.Value{gelu(b, y, form.tanh)}))
		})
	}
	add("rmsnorm", 13, func(b *Builder) {
		x := tokens(b)
		ms := b.Op("ReduceMean", []*ir.Value{b.Op("Mul", []*ir.Value{x, x})}, Ints("axes", -1))
		r := b.Op("Reciprocal", []*ir.Value{b.Op("Sqrt", []*ir.Value{b.Op("Add", []*ir.Value{ms, b.ConstF("eps", nil, 1e-6)})})})
		b.Output(b.Op("Relu", []*ir.Value{b.Op("Mul", []*ir.Value{b.Op("Mul", []*ir.Value{x, r}), b.Weight("w", 16)})}))
	})
	add("silu", 13, func(b *Builder) {
		h := b.Op("MatMul", []*ir.Value{tokens(b), b.Weight("w", 16, 16)})
		b.Output(b.Op("Mul", []*ir.Value{h, b.Op("Sigmoid", []*ir.Value{h})}))
	})
	add("attention", 13, func(b *Builder) {
		q := b.Input("x", ir.Float32, 1, 2, 4, 8)
		k := b.Op("Transpose", []*ir.Value{b.Op("Mul", []*ir.Value{q, b.ConstF("kq", nil, 0.5)})}, Ints("perm", 0, 1, 3, 2))
		s := b.Op("Mul", []*ir.Value{b.Op("MatMul", []*ir.Value{q, k}), b.ConstF("scale", nil, 0.35)})
		b.Output(b.Op("MatMul", []*ir.Value{b.Op("Softmax", []*ir.Value{s}, Int("axis", -1)), q}))
	})
	return out
}
