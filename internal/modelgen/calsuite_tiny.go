package modelgen

// This file generates the calibration suite's tiny-op zoo: for each op
// type small models commonly run (wake words, VAD, a decoder step, the
// shape arithmetic of an unsimplified export), a chain of zooLen instances
// on tensors of a few dozen elements. Such a chain's time is the runtime's
// fixed cost per call of that op, which for a model of tens of
// microseconds is most of its time, and which the larger suite models
// cannot tell apart from throughput.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// zooLen is how many instances of its op a zoo chain runs: enough that the
// op's time stands well above the per-run overhead.
const zooLen = 16

// zooSuite adds the tiny-op zoo.
func zooSuite(add func(group, name string, two bool, m *ir.Model)) {
	for _, op := range []string{"Sub", "Div", "Mul", "Pow", "Sqrt", "Neg", "Exp", "Log", "Abs", "Erf", "Sigmoid", "Tanh", "Clip", "Relu", "LeakyRelu", "HardSigmoid", "Where", "Softmax"} {
		add("tiny", op, false, tinyUnary(op))
	}
	for _, op := range []string{"Gather", "Transpose", "Cast", "Concat", "Split", "Expand", "ReduceMean", "ReduceSum", "ReduceMax", "LayerNormalization", "Pad", "Resize", "ConstantOfShape"} {
		add("tiny", op, false, tinyPair(op))
	}
	add("tiny", "MatMul", false, tinyMatMul(false))
	add("tiny", "Gemm", false, tinyMatMul(true))
	add("tiny", "Conv1d", false, tinyConv(1))
	add("tiny", "Conv2d", false, tinyConv(2))
	add("tiny", "LSTM", false, tinyRNN("LSTM"))
	add("tiny", "GRU", false, tinyRNN("GRU"))
}

// tinyUnary chains zooLen instances of a shape-preserving op over [1, 32].
func tinyUnary(op string) *ir.Model {
	b := New("tiny_"+op, suiteOpset)
	h := b.Input("x", ir.Float32, 1, 32)
	for i := 0; i < zooLen; i++ {
		c := func(name string, v float32) *ir.Value { return b.ConstF(fmt.Sprintf("%s%d", name, i), nil, v) }
		switch op {
		case "Sub", "Div", "Mul", "Pow":
			h = b.Op(op, []*ir.Value{h, c("k", 1.01)})
		case "Clip":
			h = b.Op(op, []*ir.Value{h, c("lo", -6), c("hi", 6)})
		case "Where":
			cond := b.G.AddInitializer(&ir.Tensor{Name: fmt.Sprintf("cond%d", i), DType: ir.Bool, Dims: []int64{1, 32}, Raw: make([]byte, 32)})
			h = b.Op(op, []*ir.Value{cond, c("z", 0), h})
		case "Softmax":
			h = b.Op(op, []*ir.Value{h}, Int("axis", -1))
		default:
			h = b.Op(op, []*ir.Value{h})
		}
	}
	return b.outputY(h)
}

// tinyPair chains zooLen/2 pairs of an op and the op that undoes its
// shape change (or, for ops that keep the shape, two instances), over
// [1, 4, 8].
func tinyPair(op string) *ir.Model {
	b := New("tiny_"+op, suiteOpset)
	h := b.Input("x", ir.Float32, 1, 4, 8)
	for i := 0; i < zooLen/2; i++ {
		ci := func(name string, vals ...int64) *ir.Value {
			return b.ConstI(fmt.Sprintf("%s%d", name, i), []int64{int64(len(vals))}, vals...)
		}
		switch op {
		case "Gather":
			idx := ci("idx", 3, 2, 1, 0)
			h = b.Op("Gather", []*ir.Value{h, idx}, Int("axis", 1))
			h = b.Op("Gather", []*ir.Value{h, idx}, Int("axis", 1))
		case "Transpose":
			h = b.Op("Transpose", []*ir.Value{h}, Ints("perm", 0, 2, 1))
			h = b.Op("Transpose", []*ir.Value{h}, Ints("perm", 0, 2, 1))
		case "Cast": // to int32 and back: lossy, so a runtime keeps both
			h = b.Op("Cast", []*ir.Value{h}, Int("to", int64(ir.Int32)))
			h = b.Op("Cast", []*ir.Value{h}, Int("to", int64(ir.Float32)))
		case "Concat":
			h = b.Op("Concat", []*ir.Value{h, h}, Int("axis", 2))
			h = b.Op("Slice", []*ir.Value{h, ci("st", 0), ci("en", 8), ci("ax", 2)})
		case "Split":
			parts := b.OpN("Split", 2, []*ir.Value{h, ci("sp", 4, 4)}, Int("axis", 2))
			h = b.Op("Concat", parts, Int("axis", 2))
		case "Expand":
			h = b.Op("Expand", []*ir.Value{h, ci("shape", 2, 4, 8)})
			h = b.Op("ReduceSum", []*ir.Value{h, ci("axes", 0)}, Int("keepdims", 1))
		case "ReduceSum": // axes an input from opset 13
			r := b.Op(op, []*ir.Value{h, ci("axes", 2)}, Int("keepdims", 1))
			h = b.Op("Sub", []*ir.Value{h, r})
		case "ReduceMean", "ReduceMax": // axes an attribute until opset 18
			r := b.Op(op, []*ir.Value{h}, Ints("axes", 2), Int("keepdims", 1))
			h = b.Op("Sub", []*ir.Value{h, r})
		case "LayerNormalization":
			h = b.Op(op, []*ir.Value{h, b.Weight(fmt.Sprintf("g%d", i), 8), b.Weight(fmt.Sprintf("b%d", i), 8)}, Int("axis", -1))
			h = b.Op(op, []*ir.Value{h, b.Weight(fmt.Sprintf("g2%d", i), 8), b.Weight(fmt.Sprintf("b2%d", i), 8)}, Int("axis", -1))
		case "Pad":
			h = b.Op("Pad", []*ir.Value{h, ci("pads", 0, 0, 1, 0, 0, 1)})
			h = b.Op("Slice", []*ir.Value{h, ci("st", 1), ci("en", 9), ci("ax", 2)})
		case "Resize":
			scales := b.ConstF(fmt.Sprintf("sc%d", i), []int64{3}, 1, 1, 2)
			h = b.Op("Resize", []*ir.Value{h, nil, scales}, Str("mode", "nearest"))
			h = b.Op("Slice", []*ir.Value{h, ci("st", 0), ci("en", 8), ci("ax", 2)})
		case "ConstantOfShape":
			s := b.Op("Shape", []*ir.Value{h})
			z := b.Op("ConstantOfShape", []*ir.Value{s}, &ir.Attr{Name: "value", Type: ir.AttrTensor, T: &ir.Tensor{DType: ir.Float32, Dims: []int64{1}, Raw: []byte{0, 0, 128, 63}}})
			h = b.Op("Add", []*ir.Value{h, z})
		}
	}
	return b.outputY(h)
}

// tinyMatMul chains zooLen [1, 16] x [16, 16] products (Gemm with a bias
// when gemm).
func tinyMatMul(gemm bool) *ir.Model {
	name := "tiny_MatMul"
	if gemm {
		name = "tiny_Gemm"
	}
	b := New(name, suiteOpset)
	h := b.Input("x", ir.Float32, 1, 16)
	for i := 0; i < zooLen; i++ {
		w := b.Weight(fmt.Sprintf("w%d", i), 16, 16)
		if gemm {
			h = b.Op("Gemm", []*ir.Value{h, w, b.Weight(fmt.Sprintf("b%d", i), 16)})
		} else {
			h = b.Op("MatMul", []*ir.Value{h, w})
		}
	}
	return b.outputY(h)
}

// tinyConv chains zooLen 3-wide convs of 8 channels over a 1-D signal of
// 16 samples or a 2-D map of 6 x 6.
func tinyConv(dims int) *ir.Model {
	b := New(fmt.Sprintf("tiny_conv%dd", dims), suiteOpset)
	var h *ir.Value
	kernel, pads := []int64{3}, []int64{1, 1}
	if dims == 1 {
		h = b.Input("x", ir.Float32, 1, 8, 16)
	} else {
		h = b.Input("x", ir.Float32, 1, 8, 6, 6)
		kernel, pads = []int64{3, 3}, []int64{1, 1, 1, 1}
	}
	for i := 0; i < zooLen; i++ {
		w := b.Weight(fmt.Sprintf("w%d", i), append([]int64{8, 8}, kernel...)...)
		h = b.Op("Conv", []*ir.Value{h, w, b.Weight(fmt.Sprintf("b%d", i), 8)}, Ints("kernel_shape", kernel...), Ints("pads", pads...))
	}
	return b.outputY(h)
}

// tinyRNN chains zooLen/4 one-step recurrent layers of hidden size 16.
func tinyRNN(op string) *ir.Model {
	b := New("tiny_"+op, suiteOpset)
	h := b.Input("x", ir.Float32, 1, 1, 16)
	gates := int64(4)
	if op == "GRU" {
		gates = 3
	}
	for i := 0; i < zooLen/4; i++ {
		y := b.OpN(op, 1, []*ir.Value{h, b.Weight(fmt.Sprintf("W%d", i), 1, gates*16, 16), b.Weight(fmt.Sprintf("R%d", i), 1, gates*16, 16), b.Weight(fmt.Sprintf("B%d", i), 1, 2*gates*16)},
			Int("hidden_size", 16))[0]
		h = b.Op("Squeeze", []*ir.Value{y, b.ConstI(fmt.Sprintf("ax%d", i), []int64{1}, 1)})
	}
	return b.outputY(h)
}
