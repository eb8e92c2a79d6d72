package modelgen

// This file generates the calibration suite's small complete CNNs: the
// shapes real vision models have (inverted residual blocks with depthwise
// convs and hard-swish, basic residual blocks with separate BatchNorms, a
// detection head that reshapes, transposes and concatenates), so the fit
// sees kernels as a real model runs them: many different weights and
// activations in turn, not one op repeated on data already in cache.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// cnnSuite adds the complete CNNs and a Scan model.
func cnnSuite(add func(group, name string, two bool, m *ir.Model)) {
	add("model", "mobilenetish_96", false, mobileNetish(96, 16))
	add("model", "mobilenetish_176", false, mobileNetish(176, 24))
	add("model", "resnetish_64", false, resNetish(64, 32))
	add("model", "dethead_36", false, detHead(36, 40))
	add("control", "scan_8x64", false, scanModel(8, 64))
	add("control", "scan_32x16", false, scanModel(32, 16))
}

// convBN is conv (no bias) + BatchNormalization, as unsimplified exports
// keep them.
func (b *Builder) convBN(in *ir.Value, cin, cout, k, stride, group int64) *ir.Value {
	i := b.count["Conv"]
	w := b.Weight(fmt.Sprintf("conv%d.w", i), cout, cin/group, k, k)
	p := k / 2
	c := b.Op("Conv", []*ir.Value{in, w}, Ints("kernel_shape", k, k), Ints("strides", stride, stride), Ints("pads", p, p, p, p), Int("group", group))
	return b.batchNorm(c, cout)
}

// hardSwish is x * clip(x + 3, 0, 6) / 6 in primitive ops (as Paddle and
// older PyTorch exports write it).
func (b *Builder) hardSwish(x *ir.Value) *ir.Value {
	i := b.count["Clip"]
	t := b.Op("Add", []*ir.Value{x, b.ConstF(fmt.Sprintf("hs%d.three", i), nil, 3)})
	t = b.Op("Clip", []*ir.Value{t, b.ConstF(fmt.Sprintf("hs%d.lo", i), nil, 0), b.ConstF(fmt.Sprintf("hs%d.hi", i), nil, 6)})
	t = b.Op("Mul", []*ir.Value{x, t})
	return b.Op("Div", []*ir.Value{t, b.ConstF(fmt.Sprintf("hs%d.six", i), nil, 6)})
}

// mobileNetish is a MobileNetV2-style classifier over a res x res image:
// a stride-2 stem, inverted residual blocks (1x1 expand, 3x3 depthwise,
// 1x1 project, BatchNorm after each, hard-swish), pooling and a linear
// head.
func mobileNetish(res, width int64) *ir.Model {
	b := New(fmt.Sprintf("mobilenetish_%d", res), suiteOpset)
	x := b.Input("x", ir.Float32, 1, 3, int(res), int(res))
	h := b.hardSwish(b.convBN(x, 3, width, 3, 2, 1))
	c := width
	for _, s := range []struct{ out, stride, n int64 }{{width, 1, 1}, {width * 3 / 2, 2, 2}, {width * 2, 2, 2}, {width * 4, 2, 2}} {
		for i := int64(0); i < s.n; i++ {
			stride := s.stride
			if i > 0 {
				stride = 1
			}
			e := c * 4
			y := b.hardSwish(b.convBN(h, c, e, 1, 1, 1))
			y = b.hardSwish(b.convBN(y, e, e, 3, stride, e))
			y = b.convBN(y, e, s.out, 1, 1, 1)
			if stride == 1 && c == s.out {
				y = b.Op("Add", []*ir.Value{y, h})
			}
			h, c = y, s.out
		}
	}
	return b.outputY(b.poolFC(h, c, 100))
}

// resNetish is a ResNet-18-style stack at res x res: two basic blocks per
// stage over three stages (conv + BatchNorm + Relu, residual Add).
func resNetish(res, width int64) *ir.Model {
	b := New(fmt.Sprintf("resnetish_%d", res), suiteOpset)
	x := b.Input("x", ir.Float32, 1, 3, int(res), int(res))
	h := b.Op("Relu", []*ir.Value{b.convBN(x, 3, width, 3, 1, 1)})
	c := width
	for stage := int64(0); stage < 3; stage++ {
		out := width << stage
		for blk := 0; blk < 2; blk++ {
			stride := int64(1)
			if blk == 0 && stage > 0 {
				stride = 2
			}
			y := b.Op("Relu", []*ir.Value{b.convBN(h, c, out, 3, stride, 1)})
			y = b.convBN(y, out, out, 3, 1, 1)
			skip := h
			if stride != 1 || c != out {
				skip = b.convBN(h, c, out, 1, stride, 1)
			}
			h = b.Op("Relu", []*ir.Value{b.Op("Add", []*ir.Value{y, skip})})
			c = out
		}
	}
	return b.outputY(b.poolFC(h, c, 10))
}

// detHead is a detector's head over a res x res feature map of width
// channels: per level (res, res/2, res/4) a conv tower, then class and box
// convs whose outputs are reshaped, transposed and concatenated over the
// levels, with a sigmoid on the scores.
func detHead(res, width int64) *ir.Model {
	b := New(fmt.Sprintf("dethead_%d", res), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(width), int(res), int(res))
	var scores, boxes []*ir.Value
	h := x
	for lvl := int64(0); lvl < 3; lvl++ {
		if lvl > 0 {
			h = b.Op("Relu", []*ir.Value{b.convBN(h, width, width, 3, 2, 1)})
		}
		t := b.hardSwish(b.convBN(h, width, width, 3, 1, width))
		t = b.hardSwish(b.convBN(t, width, width, 1, 1, 1))
		s := res >> lvl
		for _, out := range []struct {
			ch   int64
			list *[]*ir.Value
		}{{20, &scores}, {4, &boxes}} {
			i := b.count["Conv"]
			o := b.Op("Conv", []*ir.Value{t, b.Weight(fmt.Sprintf("head%d.w", i), out.ch, width, 1, 1), b.Weight(fmt.Sprintf("head%d.b", i), out.ch)}, Ints("kernel_shape", 1, 1))
			o = b.Op("Reshape", []*ir.Value{o, b.ConstI(fmt.Sprintf("shape%d", i), []int64{3}, 1, out.ch, s*s)})
			o = b.Op("Transpose", []*ir.Value{o}, Ints("perm", 0, 2, 1))
			*out.list = append(*out.list, o)
		}
	}
	sc := b.Op("Sigmoid", []*ir.Value{b.Op("Concat", scores, Int("axis", 1))})
	bx := b.Op("Concat", boxes, Int("axis", 1))
	sc.Name, bx.Name = "scores", "boxes"
	b.Output(sc, bx)
	return b.Model()
}

// scanModel runs a Scan over seq steps of a [seq, width] input, carrying
// a [1, width] state (state = tanh(state * w + x_t)) and collecting it.
func scanModel(seq, width int64) *ir.Model {
	b := New(fmt.Sprintf("scan_%d_%d", seq, width), suiteOpset)
	x := b.Input("x", ir.Float32, int(seq), 1, int(width))
	s0 := b.Input("s0", ir.Float32, 1, int(width))
	body := ir.NewGraph("body")
	st := body.AddInput("st", ir.TensorType(ir.Float32, shapeOf(1, int(width))))
	xt := body.AddInput("xt", ir.TensorType(ir.Float32, shapeOf(1, int(width))))
	w := b.Weight("w", 1, width)
	m := body.AddNode("Mul", "", "body_mul", []*ir.Value{st, w}, []string{"m"})
	a := body.AddNode("Add", "", "body_add", []*ir.Value{m.Outputs[0], xt}, []string{"a"})
	t := body.AddNode("Tanh", "", "body_tanh", []*ir.Value{a.Outputs[0]}, []string{"st_out"})
	c := body.AddNode("Identity", "", "body_copy", []*ir.Value{t.Outputs[0]}, []string{"y_t"})
	body.Outputs = []*ir.Value{t.Outputs[0], c.Outputs[0]}
	n := b.G.AddNode("Scan", "", "scan", []*ir.Value{s0, x}, []string{"s_final", "y"},
		&ir.Attr{Name: "body", Type: ir.AttrGraph, G: body}, Int("num_scan_inputs", 1))
	b.Output(n.Outputs[0], n.Outputs[1])
	return b.Model()
}

// poolFC is a classifier head over h's c channels: GlobalAveragePool,
// Flatten and a Gemm to classes outputs (weights fc.w and fc.b).
func (b *Builder) poolFC(h *ir.Value, c, classes int64) *ir.Value {
	h = b.Op("GlobalAveragePool", []*ir.Value{h})
	h = b.Op("Flatten", []*ir.Value{h}, Int("axis", 1))
	return b.Op("Gemm", []*ir.Value{h, b.Weight("fc.w", classes, c), b.Weight("fc.b", classes)}, Int("transB", 1))
}
