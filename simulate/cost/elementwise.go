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

	// 1 FLOP per element: arithmetic, comparison, selection, casts.
	ew("", 1, "Add", "Sub", "Mul", "Div", "Abs", "Neg", "Relu", "LeakyRelu", "Floor", "Ceil", "Round",
		"Sign", "Not", "Reciprocal", "IsNaN", "IsInf", "Clip", "ThresholdedRelu", "Shrink", "BitwiseNot",
		"Cast", "CastLike", "And", "Or", "Xor", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
		"BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Where")
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
