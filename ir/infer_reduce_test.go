package ir

import "testing"

func TestInferReduce(t *testing.T) {
	f := Float32
	x := cxT(f, "N", 3, 4)
	cxRunAll(t, []cxCase{
		{name: "axes attr keepdims", op: "ReduceMean", opset: 13, in: []Type{x}, attrs: []*Attr{cxAttrIs("axes", -1)}, want: []string{"float32[N,3,1]"}},
		{name: "axes attr drop", op: "ReduceMax", opset: 11, in: []Type{x}, attrs: []*Attr{cxAttrIs("axes", 1, 2), cxAttrI("keepdims", 0)}, want: []string{"float32[N]"}},
		{name: "all axes keepdims", op: "ReduceL2", opset: 11, in: []Type{x}, want: []string{"float32[1,1,1]"}},
		{name: "all axes scalar", op: "ReduceProd", opset: 11, in: []Type{x}, attrs: []*Attr{cxAttrI("keepdims", 0)}, want: []string{"float32[]"}},
		{name: "sum axes input 13", op: "ReduceSum", opset: 13, in: []Type{x}, consts: []*Tensor{cxInts(false, 0)}, attrs: []*Attr{cxAttrI("keepdims", 0)}, want: []string{"float32[3,4]"}},
		{name: "sum axes attr 11", op: "ReduceSum", opset: 11, in: []Type{x}, attrs: []*Attr{cxAttrIs("axes", 0)}, want: []string{"float32[1,3,4]"}},
		{name: "mean axes input 18", op: "ReduceMean", opset: 18, in: []Type{x}, consts: []*Tensor{cxInts(false, 2)}, want: []string{"float32[N,3,1]"}},
		{name: "empty axes input", op: "ReduceSum", opset: 13, in: []Type{x, cxT(Int64, 0)}, want: []string{"float32[1,1,1]"}},
		{name: "unknown axes keeps ones", op: "ReduceMax", opset: 18, in: []Type{cxT(f, 1, "S", 4), cxT(Int64, 1)}, want: []string{"float32[1,?,?]"}},
		{name: "noop empty axes", op: "ReduceSum", opset: 13, in: []Type{x}, attrs: []*Attr{cxAttrI("noop_with_empty_axes", 1)}, want: []string{"float32[N,3,4]"}},
		{name: "unknown axes keepdims", op: "ReduceSum", opset: 13, in: []Type{x, cxT(Int64, 1)}, want: []string{"float32[?,?,?]"}},
		{name: "unknown axes drop one", op: "ReduceSum", opset: 13, in: []Type{x, cxT(Int64, 1)}, attrs: []*Attr{cxAttrI("keepdims", 0)}, want: []string{"float32[?,?]"}},
		{name: "axes attr kept at 18", op: "ReduceMean", opset: 18, in: []Type{x}, attrs: []*Attr{cxAttrIs("axes", 1)}, want: []string{"float32[N,1,4]"}},
		{name: "reduceprod known", op: "ReduceProd", opset: 13, consts: []*Tensor{cxInts(false, 2, 3, 4)}, want: []string{"int64[1]"}, known: "[24]"},
		{name: "reducesum known scalar", op: "ReduceSum", opset: 13, consts: []*Tensor{cxInts(false, 2, 3, 4)}, attrs: []*Attr{cxAttrI("keepdims", 0)}, want: []string{"int64[]"}, known: "[9]"},
		{name: "reducemean no known", op: "ReduceMean", opset: 13, consts: []*Tensor{cxInts(false, 2, 3, 4)}, known: "<nil>"},
		{name: "bad axis", op: "ReduceSum", opset: 11, in: []Type{x}, attrs: []*Attr{cxAttrIs("axes", 3)}, err: CodeAxis},
		{name: "argmax", op: "ArgMax", in: []Type{x}, attrs: []*Attr{cxAttrI("axis", 1), cxAttrI("keepdims", 0)}, want: []string{"int64[N,4]"}},
		{name: "argmin keep", op: "ArgMin", in: []Type{x}, want: []string{"int64[1,3,4]"}},
		{name: "softmax", op: "Softmax", in: []Type{x}, want: []string{"float32[N,3,4]"}},
		{name: "softmax bad axis", op: "Softmax", in: []Type{x}, attrs: []*Attr{cxAttrI("axis", 5)}, err: CodeAxis},
		{name: "cumsum", op: "CumSum", in: []Type{x, cxT(Int64)}, want: []string{"float32[N,3,4]"}},
		{name: "nll mean", op: "NegativeLogLikelihoodLoss", in: []Type{cxT(f, 3, 5), cxT(Int64, 3)}, want: []string{"float32[]"}},
		{name: "nll none", op: "NegativeLogLikelihoodLoss", in: []Type{cxT(f, 3, 5, 2), cxT(Int64, 3, 2)}, attrs: []*Attr{cxAttrS("reduction", "none")}, want: []string{"float32[3,2]"}},
		{name: "sce log_prob", op: "SoftmaxCrossEntropyLoss", in: []Type{cxT(f, 3, 5), cxT(Int64, 3)}, nout: 2, want: []string{"float32[]", "float32[3,5]"}},
		{name: "det", op: "Det", in: []Type{cxT(f, "B", 3, 3)}, want: []string{"float32[B]"}},
	})
}
