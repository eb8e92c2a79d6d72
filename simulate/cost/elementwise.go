package cost

// This file implements the cost of elementwise and broadcast ops: FLOPs
// per output element (a transcendental counts several), bytes of all
// inputs and outputs.

func registerElementwise() {
	perElem := func(k float64) Func {
		return func(c *Ctx) (Cost, error) {
			n, err := c.OutElems(0)
			if err != nil {
				return Cost{}, err
			}
			return c.Simple(k * n)
		}
	}
	// variadic: n-1 ops per element for n inputs (Mean adds a scale)
	variadic := func(extra float64) Func {
		return func(c *Ctx) (Cost, error) {
			n, err := c.OutElems(0)
			if err != nil {
				return Cost{}, err
			}
			k := float64(len(c.Node.Inputs)) - 1 + extra
			if k < 1 {
				k = 1
			}
			return c.Simple(k * n)
		}
	}
	ew := func(domain string, k float64, ops ...string) { Register(domain, perElem(k), ops...) }

	// broadcasting binary ops: also the spans a CPU runtime loops over
	bcast := func(k float64) Func {
		return func(c *Ctx) (Cost, error) {
			cost, err := perElem(k)(c)
			if err == nil && c.cpuLibrary() {
				cost.Spans = broadcastSpans(c)
			}
			return cost, err
		}
	}
	// 1 FLOP per element: arithmetic, comparison, selection, casts.
	Register("", bcast(1), "Add", "Sub", "Mul", "Div", "And", "Or", "Xor", "Equal", "Less", "Greater",
		"LessOrEqual", "GreaterOrEqual")
	ew("", 1, "Abs", "Neg", "Relu", "LeakyRelu", "Floor", "Ceil", "Round",
		"Sign", "Not", "Reciprocal", "IsNaN", "IsInf", "Clip", "ThresholdedRelu", "Shrink", "BitwiseNot",
		"Cast", "CastLike", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Where")
	ew("", 2, "PRelu", "Mod", "DequantizeLinear", "Affine", "ImageScaler", "ScaledTanh")
	ew("", 3, "HardSigmoid", "Softsign", "QuantizeLinear")
	ew("", 4, "HardSwish", "Elu", "Selu", "Celu", "Sqrt")
	ew("", 8, "Exp", "Log", "Sigmoid", "Tanh", "Erf", "Pow", "Softplus", "Sin", "Cos", "Tan", "Asin", "Acos",
		"Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "ParametricSoftplus")
	ew("", 16, "Gelu", "Mish")
	ew("", 9, "Swish")
	ew("", 10, "SwiGLU")
	ew("ai.onnx.ml", 1, "Binarizer")
	// optimizer steps over their tensors (training opsets)
	ew("ai.onnx.preview.training", 12, "Adam")
	ew("ai.onnx.preview.training", 6, "Adagrad")
	ew("ai.onnx.preview.training", 4, "Momentum")
	Register("", variadic(0), "Sum", "Max", "Min")
	Register("", variadic(1), "Mean")
	ew("", 6, "RotaryEmbedding")

	ew("com.microsoft", 1, "BiasAdd")
	ew("com.microsoft", 4, "QLinearAdd", "QLinearMul", "QLinearLeakyRelu")
	ew("com.microsoft", 8, "QuickGelu", "QLinearSigmoid")
	ew("com.microsoft", 16, "FastGelu", "BiasGelu", "Gelu")
	ew("com.microsoft", 6, "RotaryEmbedding")
}

// broadcastSpans is the number of spans ONNX Runtime's broadcasting loop
// (BroadcastLooper) calls its kernel on for a binary op: the output's
// innermost dims over which both inputs keep the same pattern (each
// varies along them or is constant over them) form one span; the op
// runs once per span. Equal shapes, or an input that is one element,
// are one span. 0 when a shape is not static.
func broadcastSpans(c *Ctx) float64 {
	if len(c.Node.Inputs) != 2 {
		return 0
	}
	if a, b := c.Input(0), c.Input(1); a != nil && b != nil && a.Type.Shape.Equal(b.Type.Shape) {
		return 1 // the common case, without the dims' copies
	}
	out, err := c.OutDims(0)
	if err != nil {
		return 0
	}
	var in [2][]int64
	for i := range in {
		d, err := c.InDims(i)
		if err != nil {
			return 0
		}
		in[i] = d
	}
	// varies reports whether input i varies along output axis a
	varies := func(i, a int) bool {
		j := a - (len(out) - len(in[i]))
		return j >= 0 && in[i][j] > 1
	}
	span := 1.0
	first := true
	var p0, p1 bool
	for a := len(out) - 1; a >= 0; a-- {
		if out[a] == 1 {
			continue
		}
		v0, v1 := varies(0, a), varies(1, a)
		if first {
			p0, p1, first = v0, v1, false
		} else if v0 != p0 || v1 != p1 {
			break
		}
		span *= float64(out[a])
	}
	total := 1.0
	for _, d := range out {
		total *= float64(d)
	}
	if span <= 0 {
		return 0
	}
	return total / span
}
