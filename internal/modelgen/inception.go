package modelgen

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// Inception is an Inception-like multi-branch CNN over N x 3 x size x
// size images: a stem convolution, then blocks of four parallel branches
// (1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3 max-pool -> 1x1) concatenated along
// channels, each convolution with bias and ReLU; global pooling and a
// linear head.
func Inception(blocks, size int) *ir.Model {
	b := New(fmt.Sprintf("inception_%d", blocks), 17)
	x := b.Input("image", ir.Float32, "N", 3, size, size)
	conv := func(in *ir.Value, cin, cout, k int64) *ir.Value {
		i := b.count["Conv"]
		w := b.Weight(fmt.Sprintf("conv%d.weight", i), cout, cin, k, k)
		bias := b.Weight(fmt.Sprintf("conv%d.bias", i), cout)
		p := k / 2
		y := b.Op("Conv", []*ir.Value{in, w, bias}, Ints("kernel_shape", k, k), Ints("pads", p, p, p, p))
		return b.Op("Relu", []*ir.Value{y})
	}
	h := conv(x, 3, 32, 3)
	c := int64(32)
	for blk := 0; blk < blocks; blk++ {
		b1 := conv(h, c, 16, 1)
		b2 := conv(conv(h, c, 16, 1), 16, 24, 3)
		b3 := conv(conv(h, c, 8, 1), 8, 8, 5)
		p := b.Op("MaxPool", []*ir.Value{h}, Ints("kernel_shape", 3, 3), Ints("pads", 1, 1, 1, 1), Ints("strides", 1, 1))
		b4 := conv(p, c, 16, 1)
		h = b.Op("Concat", []*ir.Value{b1, b2, b3, b4}, Int("axis", 1))
		c = 16 + 24 + 8 + 16
	}
	h = b.Op("Flatten", []*ir.Value{b.Op("GlobalAveragePool", []*ir.Value{h})}, Int("axis", 1))
	y := b.Op("Gemm", []*ir.Value{h, b.Weight("fc.weight", 10, c), b.Weight("fc.bias", 10)}, Int("transB", 1))
	y.Name = "logits"
	b.Output(y)
	return b.Model()
}
