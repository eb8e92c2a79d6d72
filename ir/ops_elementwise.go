package ir

// This file declares the facts of the elementwise and broadcast ops of ai.onnx: arithmetic, comparisons, logic, activations, casts
// (see ops.go for what each field means).

func elementwiseOps() []OpInfo {
	return rows(
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Pattern: ElemWise, Cost: CostElementwise},
			"Abs", "Cast", "Erf", "Neg", "Relu", "Sign"),
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Pattern: ElemWise, Cost: CostElementwise, Types: floatX},
			"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Celu", "Cos", "Cosh", "Elu", "Exp", "Floor",
			"Gelu", "HardSigmoid", "HardSwish", "IsInf", "IsNaN", "LeakyRelu", "Log", "Mish", "Reciprocal", "Round",
			"Selu", "Sigmoid", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh", "ThresholdedRelu"),
		like("", OpInfo{In: ar(2, 2), Out: ar(1, 1), Pattern: Broadcast, Cost: CostElementwise},
			"Add", "Div", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Mod", "Mul", "PRelu", "Pow",
			"Sub"),
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Cost: CostElementwise, Types: floatX},
			"Affine", "ImageScaler", "Swish"),
		like("", OpInfo{In: ar(2, 2), Out: ar(1, 1), Pattern: Broadcast, Cost: CostElementwise, Types: boolOps},
			"And", "Or", "Xor"),
		like("", OpInfo{In: ar(2, 2), Out: ar(1, 1), Pattern: Broadcast, Cost: CostElementwise, Types: intOps},
			"BitwiseAnd", "BitwiseOr", "BitwiseXor"),
		like("", OpInfo{In: ar(1, -1), Out: ar(1, 1), Pattern: Broadcast, Cost: CostElementwise},
			"Max", "Mean", "Min", "Sum"),
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Cost: CostElementwise},
			"ParametricSoftplus", "ScaledTanh", "Shrink"),
		[]OpInfo{
			{Key: op("BitShift"), In: ar(2, 2), Out: ar(1, 1), Cost: CostElementwise, Types: intOps},
			{Key: op("BitwiseNot"), In: ar(1, 1), Out: ar(1, 1), Pattern: ElemWise, Cost: CostElementwise, Types: intX},
			{Key: op("CastLike"), In: ar(2, 2), Out: ar(1, 1), Cost: CostElementwise},
			{Key: op("Clip"), In: ar(1, 3), Out: ar(1, 1), Older: []Revision{{Before: 11, In: ar(1, 1), Out: ar(1, 1)}}, Pattern: ElemWise, Cost: CostElementwise},
			{Key: op("DequantizeLinear"), In: ar(2, 3), Out: ar(1, 1), Cost: CostElementwise},
			{Key: op("Not"), In: ar(1, 1), Out: ar(1, 1), Pattern: ElemWise, Cost: CostElementwise, Types: boolX},
			{Key: op("QuantizeLinear"), In: ar(2, 3), Out: ar(1, 1), Cost: CostElementwise},
			{Key: op("RotaryEmbedding"), In: ar(3, 4), Out: ar(1, 1), Cost: CostElementwise, Types: floatX},
			{Key: op("Scale"), In: ar(1, 1), Out: ar(1, 1)},
			{Key: op("SwiGLU"), In: ar(2, 2), Out: ar(1, 1), Cost: CostElementwise},
			{Key: op("Where"), In: ar(3, 3), Out: ar(1, 1), Pattern: Broadcast, Cost: CostElementwise, Types: boolX},
		},
	)
}
