package modelgen

// This file generates the calibration suite's dynamically quantized
// family: convolutions and matrix products as ONNX Runtime's dynamic
// quantizer writes a float model's (quantize_dynamic): DynamicQuantizeLinear
// of the float activation, ConvInteger or MatMulInteger of the uint8
// activation and uint8 weights with their zero points, a Cast of the int32
// result to float and a Mul by the product of the two scales, chained.
// ONNX Runtime runs these ops on kernels of their own (an unsigned integer
// GEMM, im2col for the convolutions), not the float ones, so the fit gives
// ConvInteger, MatMulInteger and DynamicQuantizeLinear parameters of their
// own only when the suite measures them; without this family they took
// the float conv and matmul classes' (issue 29).
//
// Shapes come from ranges, not from any model: convolutions of 8-256
// channels on maps of 4x8 to 48x96, 3x3 and pointwise (eight: with four,
// two fits of one machine set ConvInteger's fraction 0.40 and 0.50); products of 1-32
// rows, widths 256-4096, weights from 0.25 MB (in any cache) to 2 MB each
// (4 MB in a chain: beyond a 2 MB cache).

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// quantSuite adds the dynamically quantized family.
func quantSuite(add func(group, name string, two bool, m *ir.Model)) {
	for _, c := range []struct{ ch, h, w, k int64 }{
		{16, 24, 64, 3}, {32, 24, 64, 1}, {64, 12, 32, 3}, {128, 6, 16, 1},
		{8, 48, 96, 3}, {48, 16, 48, 3}, {96, 8, 24, 1}, {256, 4, 8, 3},
	} {
		add("quant", fmt.Sprintf("ConvInteger_%d_%dx%d_k%d", c.ch, c.h, c.w, c.k), false, quantConvChain(c.ch, c.h, c.w, c.k))
	}
	for _, g := range []struct{ m, k, n int64 }{
		{1, 512, 512}, {16, 384, 384}, {32, 256, 2048}, {8, 512, 4096},
	} {
		add("quant", fmt.Sprintf("MatMulInteger_%dx%dx%d", g.m, g.k, g.n), false, quantMatMulChain(g.m, g.k, g.n))
	}
}

// uint8Scalar is a uint8 scalar initializer of value v (a zero point).
func (b *Builder) uint8Scalar(name string, v byte) *ir.Value {
	return b.G.AddInitializer(&ir.Tensor{Name: name, DType: ir.Uint8, Raw: []byte{v}})
}

// dequantized is the float result of an integer product q (int32): Cast
// to float, times xScale * wScale (both scalars), as the dynamic
// quantizer writes it.
func (b *Builder) dequantized(q, xScale *ir.Value, wScale float32, name string) *ir.Value {
	s := b.Op("Mul", []*ir.Value{xScale, b.ConstF(name+"_w_scale", nil, wScale)})
	return b.Op("Mul", []*ir.Value{b.Op("Cast", []*ir.Value{q}, Int("to", int64(ir.Float32))), s})
}

// quantConvChain chains repeat dynamically quantized convolutions of ch
// channels over an h x w map (k x k kernels, stride 1, same padding), each
// followed by its bias Add and a Relu.
func quantConvChain(ch, h, w, k int64) *ir.Model {
	b := New(fmt.Sprintf("convinteger_%d_%dx%d_k%d", ch, h, w, k), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(ch), int(h), int(w))
	for i := 0; i < repeat; i++ {
		q := b.OpN("DynamicQuantizeLinear", 3, []*ir.Value{x})
		name := fmt.Sprintf("conv%d", i)
		wt := b.bytesInit(name+"_w", []int64{ch, ch, k, k})
		y := b.Op("ConvInteger", []*ir.Value{q[0], wt, q[2], b.uint8Scalar(name+"_w_zero", 128)},
			Ints("kernel_shape", k, k), Ints("pads", k/2, k/2, k/2, k/2), Ints("strides", 1, 1))
		y = b.dequantized(y, q[1], 0.004, name)
		y = b.Op("Add", []*ir.Value{y, b.Weight(name+"_b", ch, 1, 1)})
		x = b.Op("Relu", []*ir.Value{y})
	}
	return b.outputY(x)
}

// quantMatMulChain chains repeat dynamically quantized products of m rows,
// alternating k x n and n x k uint8 weights so the chain keeps its shape,
// each followed by its bias Add.
func quantMatMulChain(m, k, n int64) *ir.Model {
	b := New(fmt.Sprintf("matmulinteger_%dx%dx%d", m, k, n), suiteOpset)
	x := b.Input("x", ir.Float32, int(m), int(k))
	for i := 0; i < repeat; i++ {
		q := b.OpN("DynamicQuantizeLinear", 3, []*ir.Value{x})
		name := fmt.Sprintf("mm%d", i)
		in, out := k, n
		if i%2 == 1 {
			in, out = n, k
		}
		wt := b.bytesInit(name+"_w", []int64{in, out})
		y := b.Op("MatMulInteger", []*ir.Value{q[0], wt, q[2], b.uint8Scalar(name+"_w_zero", 128)})
		y = b.dequantized(y, q[1], 0.004, name)
		x = b.Op("Add", []*ir.Value{y, b.Weight(name+"_b", out)})
	}
	return b.outputY(x)
}
