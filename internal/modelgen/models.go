package modelgen

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// SampleCNN is the bundled sample: a small residual CNN classifier over
// N x 3 x 32 x 32 images (stem conv, two residual blocks with BatchNorm,
// global pooling, a linear head), the shape of ResNet in miniature.
func SampleCNN() *ir.Model {
	b := New("sample_cnn", 17)
	x := b.Input("image", ir.Float32, "N", 3, 32, 32)
	conv := func(in *ir.Value, cin, cout, k, stride int64) *ir.Value {
		return b.conv(in, cin, cout, k, stride, true)
	}
	bn := b.batchNorm
	h := b.Op("Relu", []*ir.Value{bn(conv(x, 3, 16, 3, 1), 16)})
	for blk := 0; blk < 2; blk++ {
		y := b.Op("Relu", []*ir.Value{bn(conv(h, 16, 16, 3, 1), 16)})
		y = bn(conv(y, 16, 16, 3, 1), 16)
		h = b.Op("Relu", []*ir.Value{b.Op("Add", []*ir.Value{y, h})})
	}
	h = b.Op("GlobalAveragePool", []*ir.Value{h})
	h = b.Op("Flatten", []*ir.Value{h}, Int("axis", 1))
	w := b.Weight("fc.weight", 10, 16)
	bias := b.Weight("fc.bias", 10)
	logits := b.Op("Gemm", []*ir.Value{h, w, bias}, Int("transB", 1))
	logits.Name = "logits"
	b.Output(logits)
	return b.Model()
}

// Chain is a launch-bound graph: n tiny elementwise ops (alternating Add
// of a constant and Relu) over a [1, width] tensor.
func Chain(n int, width int64) *ir.Model {
	b := New(fmt.Sprintf("chain_%d", n), 17)
	h := b.Input("x", ir.Float32, 1, width)
	one := b.ConstF("one", []int64{1}, 1)
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			h = b.Op("Add", []*ir.Value{h, one})
		} else {
			h = b.Op("Relu", []*ir.Value{h})
		}
	}
	return b.outputY(h)
}

// Wide builds a large graph of about nodes nodes for benchmarks: blocks of
// MatMul + Add + Relu + elementwise ops over [batch, 64] activations,
// with a side branch every few blocks, so passes and the simulator see
// realistic fan-out.
func Wide(nodes int) *ir.Model {
	b := New(fmt.Sprintf("wide_%d", nodes), 17)
	h := b.Input("x", ir.Float32, "batch", 64)
	w := b.Weight("w", 64, 64)
	bias := b.Weight("b", 64)
	for b.G.NumNodeIDs() < nodes {
		y := b.Op("MatMul", []*ir.Value{h, w})
		y = b.Op("Add", []*ir.Value{y, bias})
		y = b.Op("Relu", []*ir.Value{y})
		if b.count["MatMul"]%4 == 0 {
			s := b.Op("Sigmoid", []*ir.Value{h})
			y = b.Op("Mul", []*ir.Value{y, s})
		}
		h = y
	}
	return b.outputY(h)
}

// Samples lists the models committed under testdata/models, by file name.
// They stay small (a few KiB to a few MiB).
func Samples() map[string]*ir.Model {
	return map[string]*ir.Model{
		"sample_cnn.onnx": SampleCNN(),
	}
}
