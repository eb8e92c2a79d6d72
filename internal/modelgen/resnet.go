package modelgen

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// ResNet50 is ResNet-50 v1.5 (He et al., CVPR 2016, with the stride of
// each downsampling bottleneck on its 3x3 convolution, as torchvision and
// NVIDIA's DeepLearningExamples build it) over N x 3 x 224 x 224 images:
// a 7x7/2 stem and 3x3/2 max pool, bottleneck stages of 3, 4, 6 and 3
// blocks (widths 64, 128, 256, 512, expansion 4), global average pooling
// and a 1000-way linear head. Every convolution is bias-free and followed
// by BatchNormalization, as exported from PyTorch; 25.6 M parameters,
// 4.09 G multiply-adds per image.
func ResNet50() *ir.Model {
	b := New("resnet50_v1.5", 17)
	x := b.Input("image", ir.Float32, "N", 3, 224, 224)
	convBN := func(in *ir.Value, cin, cout, k, stride int64) *ir.Value {
		return b.batchNorm(b.conv(in, cin, cout, k, stride, false), cout)
	}
	h := b.Op("Relu", []*ir.Value{convBN(x, 3, 64, 7, 2)})
	h = b.Op("MaxPool", []*ir.Value{h}, Ints("kernel_shape", 3, 3), Ints("strides", 2, 2), Ints("pads", 1, 1, 1, 1))
	cin := int64(64)
	for stage, blocks := range []int{3, 4, 6, 3} {
		width := int64(64) << stage
		for blk := 0; blk < blocks; blk++ {
			stride := int64(1)
			if blk == 0 && stage > 0 {
				stride = 2
			}
			y := b.Op("Relu", []*ir.Value{convBN(h, cin, width, 1, 1)})
			y = b.Op("Relu", []*ir.Value{convBN(y, width, width, 3, stride)})
			y = convBN(y, width, 4*width, 1, 1)
			short := h
			if blk == 0 {
				short = convBN(h, cin, 4*width, 1, stride)
			}
			h = b.Op("Relu", []*ir.Value{b.Op("Add", []*ir.Value{y, short})})
			cin = 4 * width
		}
	}
	h = b.Op("Flatten", []*ir.Value{b.Op("GlobalAveragePool", []*ir.Value{h})}, Int("axis", 1))
	y := b.Op("Gemm", []*ir.Value{h, b.Weight("fc.weight", 1000, cin), b.Weight("fc.bias", 1000)}, Int("transB", 1))
	y.Name = "logits"
	b.Output(y)
	return b.Model()
}

// conv adds a square k x k convolution from cin to cout channels with
// the given stride and same padding (k/2), its weights named after the
// number of convolutions so far, with a bias when bias is set.
func (b *Builder) conv(in *ir.Value, cin, cout, k, stride int64, bias bool) *ir.Value {
	i := b.count["Conv"]
	ins := []*ir.Value{in, b.Weight(fmt.Sprintf("conv%d.weight", i), cout, cin, k, k)}
	if bias {
		ins = append(ins, b.Weight(fmt.Sprintf("conv%d.bias", i), cout))
	}
	p := k / 2
	return b.Op("Conv", ins, Ints("kernel_shape", k, k), Ints("strides", stride, stride), Ints("pads", p, p, p, p))
}

// batchNorm adds an inference BatchNormalization over c channels with
// unit scale and variance, zero mean and a random shift.
func (b *Builder) batchNorm(in *ir.Value, c int64) *ir.Value {
	i := b.count["BatchNormalization"]
	ones := make([]float32, c)
	zeros := make([]float32, c)
	for j := range ones {
		ones[j] = 1
	}
	scale := b.ConstF(fmt.Sprintf("bn%d.scale", i), []int64{c}, ones...)
	shift := b.Weight(fmt.Sprintf("bn%d.bias", i), c)
	mean := b.ConstF(fmt.Sprintf("bn%d.mean", i), []int64{c}, zeros...)
	vr := b.ConstF(fmt.Sprintf("bn%d.var", i), []int64{c}, ones...)
	return b.Op("BatchNormalization", []*ir.Value{in, scale, shift, mean, vr}, Float("epsilon", 1e-5))
}
