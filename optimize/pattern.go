package optimize

// This file classifies ops in the TVM manner: an ordered lattice of
// fusion patterns, so rules read "kind <= injective".

import (
	"github.com/wolong-dev/wolong/ir"
)

// Kind is an op's fusion pattern. The order matters: a rule that accepts
// a kind accepts every smaller one.
type Kind uint8

// Fusion patterns, from most to least fusable.
const (
	ElemWise        Kind = iota // y[i] = f(x[i])
	Broadcast                   // y[i] = f(x[bcast(i)], ...)
	Injective                   // y[i] = x[g(i)]: reshapes, transposes, slices, concats
	CommReduce                  // reductions (and softmax-like normalizations)
	OutEWiseFusable             // GEMM-like anchors whose output takes an elementwise epilogue
	Opaque                      // never fused
)

var kindNames = [...]string{"elemwise", "broadcast", "injective", "reduce", "out-elemwise-fusable", "opaque"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// fusedKinds is the pattern of the kernels the pattern passes create.
var fusedKinds = map[string]Kind{"Gelu": ElemWise, "SiLU": ElemWise, "LayerNorm": CommReduce, "RMSNorm": CommReduce}

// opKinds is the pattern of each ai.onnx op; ops not listed are Opaque.
var opKinds = map[string]Kind{}

func init() {
	set := func(k Kind, ops ...string) {
		for _, op := range ops {
			opKinds[op] = k
		}
	}
	set(ElemWise, "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Neg", "Abs", "Erf",
		"Reciprocal", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos",
		"Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "LeakyRelu", "Elu", "Selu",
		"HardSigmoid", "HardSwish", "Softplus", "Softsign", "Clip", "Cast", "Not", "IsNaN",
		"IsInf", "Mish", "Gelu", "ThresholdedRelu", "Celu", "Identity", "BitwiseNot")
	set(Broadcast, "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Where",
		"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
		"Mod", "PRelu", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BatchNormalization")
	set(Injective, "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Expand",
		"Slice", "Concat", "Split", "Gather", "Tile", "Pad", "DepthToSpace", "SpaceToDepth")
	set(CommReduce, "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp",
		"GlobalAveragePool", "GlobalMaxPool", "Softmax", "LogSoftmax",
		"LayerNormalization", "RMSNormalization")
	set(OutEWiseFusable, "Conv", "ConvTranspose", "MatMul", "Gemm", "MaxPool", "AveragePool")
}

// kindOf returns n's fusion pattern. Nodes outside ai.onnx (fused groups
// included), nodes with subgraphs, nodes whose output is not a tensor of
// known dtype, and nodes with secondary outputs in use (MaxPool indices,
// BatchNormalization training stats) are opaque. A broadcast op whose
// inputs all have the output's shape is elementwise.
func kindOf(n *ir.Node) Kind {
	var k Kind
	var ok bool
	switch {
	case len(n.Outputs) == 0:
		return Opaque
	case n.Domain == FusedDomain:
		// Pattern kernels keep their semantics: a GELU or SiLU is still
		// elementwise (it may join a GEMM epilogue), a LayerNorm/RMSNorm
		// still a row reduction (it may take its residual Add).
		k, ok = fusedKinds[n.Op]
	case !isDefault(n) || hasSubgraph(n):
		return Opaque
	default:
		k, ok = opKinds[n.Op]
	}
	if !ok {
		return Opaque
	}
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		if !o.Type.IsTensor() || o.Type.DType == ir.Undefined || o.Type.DType == ir.String {
			return Opaque
		}
		if i > 0 && n.Op != "Split" && (len(o.Uses) > 0 || o.Graph.IsOutput(o)) {
			return Opaque
		}
	}
	if n.Op == "BatchNormalization" && n.AttrInt("training_mode", 0) != 0 {
		return Opaque
	}
	if k == Broadcast {
		out := n.Outputs[0]
		same := true
		for _, in := range n.Inputs {
			if in != nil && !in.Type.Shape.Identical(out.Type.Shape) {
				same = false
			}
		}
		if same && out.Type.Shape.Known {
			return ElemWise
		}
	}
	return k
}
