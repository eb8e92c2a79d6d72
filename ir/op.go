package ir

// This file defines an operator's identity: OpKey, the canonical
// (domain, name) pair that every op registry is keyed by (inference in
// this package, kernels in eval, costs in simulate/cost, the facts in
// ops.go), and the predicates code uses instead of comparing op names as
// strings.
//
// A file may spell the default domain "" or "ai.onnx"; the importer makes
// it "" once (CanonicalDomain), so the rest of wolong compares domains as
// they are. Other input boundaries that name ops (calibration tables,
// runtime profiles) canonicalize with the same function.

// OnnxDomain is the name a file may give the default (ai.onnx) domain,
// which the IR keeps as "".
const OnnxDomain = "ai.onnx"

// CanonicalDomain returns domain as the IR keeps it: "" for ai.onnx,
// any other domain unchanged.
func CanonicalDomain(domain string) string {
	if domain == OnnxDomain {
		return ""
	}
	return domain
}

// OpKey identifies an operator: its domain ("" for ai.onnx) and its name.
// It is comparable, so it keys maps.
type OpKey struct {
	Domain string
	Name   string
}

// Key returns the key of op name in domain, the domain made canonical.
func Key(domain, name string) OpKey { return OpKey{CanonicalDomain(domain), name} }

// String returns "Name" for ai.onnx and "domain:Name" otherwise.
func (k OpKey) String() string {
	if k.Domain == "" {
		return k.Name
	}
	return k.Domain + ":" + k.Name
}

// ParseKey reads "Name" or "domain:Name" (the form String writes).
func ParseKey(s string) OpKey {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return Key(s[:i], s[i+1:])
		}
	}
	return OpKey{Name: s}
}

// Key returns n's op key.
func (n *Node) Key() OpKey { return OpKey{n.Domain, n.Op} }

// Is reports whether n is an application of op k.
func (n *Node) Is(k OpKey) bool { return n != nil && n.Op == k.Name && n.Domain == k.Domain }

// IsAny reports whether n is an application of one of ks.
func (n *Node) IsAny(ks ...OpKey) bool {
	for _, k := range ks {
		if n.Is(k) {
			return true
		}
	}
	return false
}

// Keys of the ai.onnx ops that code outside the op tables names: graph
// building, pattern matchers and the few ops with a special role (a
// Constant is data, an If's branches are alternatives, ...).
var (
	OpAdd                = OpKey{Name: "Add"}
	OpBatchNormalization = OpKey{Name: "BatchNormalization"}
	OpCast               = OpKey{Name: "Cast"}
	OpCastLike           = OpKey{Name: "CastLike"}
	OpClip               = OpKey{Name: "Clip"}
	OpConstant           = OpKey{Name: "Constant"}
	OpConv               = OpKey{Name: "Conv"}
	OpDequantizeLinear   = OpKey{Name: "DequantizeLinear"}
	OpDiv                = OpKey{Name: "Div"}
	OpDropout            = OpKey{Name: "Dropout"}
	OpErf                = OpKey{Name: "Erf"}
	OpExpand             = OpKey{Name: "Expand"}
	OpFlatten            = OpKey{Name: "Flatten"}
	OpGelu               = OpKey{Name: "Gelu"}
	OpGemm               = OpKey{Name: "Gemm"}
	OpHardSigmoid        = OpKey{Name: "HardSigmoid"}
	OpIdentity           = OpKey{Name: "Identity"}
	OpIf                 = OpKey{Name: "If"}
	OpLayerNormalization = OpKey{Name: "LayerNormalization"}
	OpLeakyRelu          = OpKey{Name: "LeakyRelu"}
	OpLoop               = OpKey{Name: "Loop"}
	OpMatMul             = OpKey{Name: "MatMul"}
	OpMul                = OpKey{Name: "Mul"}
	OpNeg                = OpKey{Name: "Neg"}
	OpPow                = OpKey{Name: "Pow"}
	OpQuantizeLinear     = OpKey{Name: "QuantizeLinear"}
	OpReciprocal         = OpKey{Name: "Reciprocal"}
	OpReduceMax          = OpKey{Name: "ReduceMax"}
	OpReduceMean         = OpKey{Name: "ReduceMean"}
	OpReduceMin          = OpKey{Name: "ReduceMin"}
	OpRelu               = OpKey{Name: "Relu"}
	OpReshape            = OpKey{Name: "Reshape"}
	OpScan               = OpKey{Name: "Scan"}
	OpShape              = OpKey{Name: "Shape"}
	OpSigmoid            = OpKey{Name: "Sigmoid"}
	OpSign               = OpKey{Name: "Sign"}
	OpSize               = OpKey{Name: "Size"}
	OpSoftmax            = OpKey{Name: "Softmax"}
	OpSplit              = OpKey{Name: "Split"}
	OpSqrt               = OpKey{Name: "Sqrt"}
	OpSqueeze            = OpKey{Name: "Squeeze"}
	OpSub                = OpKey{Name: "Sub"}
	OpSum                = OpKey{Name: "Sum"}
	OpTanh               = OpKey{Name: "Tanh"}
	OpTranspose          = OpKey{Name: "Transpose"}
	OpUnsqueeze          = OpKey{Name: "Unsqueeze"}
)

// MergeOpsets returns the opsets in force in a function body: the
// function's own, and the model's for the domains it does not list.
func MergeOpsets(model, fn []OpsetID) []OpsetID {
	out := append([]OpsetID(nil), fn...)
	for _, o := range model {
		found := false
		for _, f := range fn {
			found = found || f.Domain == o.Domain
		}
		if !found {
			out = append(out, o)
		}
	}
	return out
}
