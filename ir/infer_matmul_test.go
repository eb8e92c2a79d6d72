package ir

import "testing"

func TestInferMatMul(t *testing.T) {
	f := Float32
	ms := "com.microsoft"
	cxRunAll(t, []cxCase{
		{name: "2d", op: "MatMul", in: []Type{cxT(f, 3, 4), cxT(f, 4, 5)}, want: []string{"float32[3,5]"}},
		{name: "batch broadcast", op: "MatMul", in: []Type{cxT(f, "B", 1, "S", 64), cxT(f, 8, 64, 32)}, want: []string{"float32[B,8,S,32]"}},
		{name: "1d left", op: "MatMul", in: []Type{cxT(f, 4), cxT(f, 2, 4, 5)}, want: []string{"float32[2,5]"}},
		{name: "1d right", op: "MatMul", in: []Type{cxT(f, 2, 3, 4), cxT(f, 4)}, want: []string{"float32[2,3]"}},
		{name: "1d both", op: "MatMul", in: []Type{cxT(f, 4), cxT(f, 4)}, want: []string{"float32[]"}},
		{name: "inner mismatch", op: "MatMul", in: []Type{cxT(f, 3, 4), cxT(f, 5, 6)}, err: CodeDims},
		{name: "unknown rank", op: "MatMul", in: []Type{cxT(f, "*"), cxT(f, 5, 6)}, want: []string{"float32[*]"}},
		{name: "matmulinteger", op: "MatMulInteger", in: []Type{cxT(Uint8, "N", 4), cxT(Int8, 4, 3)}, want: []string{"int32[N,3]"}},
		{name: "qlinearmatmul", op: "QLinearMatMul", in: []Type{cxT(Uint8, 2, 4), cxT(f), cxT(Uint8), cxT(Int8, 4, 3), cxT(f), cxT(Int8), cxT(f), cxT(Int8)}, want: []string{"int8[2,3]"}},
		{name: "gemm", op: "Gemm", in: []Type{cxT(f, "N", 4), cxT(f, 10, 4), cxT(f, 10)}, attrs: []*Attr{cxAttrI("transB", 1)}, want: []string{"float32[N,10]"}},
		{name: "gemm transA", op: "Gemm", in: []Type{cxT(f, 4, 6), cxT(f, 4, 10)}, attrs: []*Attr{cxAttrI("transA", 1)}, want: []string{"float32[6,10]"}},
		{name: "gemm mismatch", op: "Gemm", in: []Type{cxT(f, 4, 6), cxT(f, 4, 10)}, err: CodeDims},
		{name: "einsum matmul", op: "Einsum", opset: 12, in: []Type{cxT(f, 3, 4), cxT(f, 4, 5)}, attrs: []*Attr{cxAttrS("equation", "ij,jk->ik")}, want: []string{"float32[3,5]"}},
		{name: "einsum batch ellipsis", op: "Einsum", opset: 12, in: []Type{cxT(f, "B", 2, 3, 4), cxT(f, "B", 2, 4, 5)}, attrs: []*Attr{cxAttrS("equation", "...ij,...jk->...ik")}, want: []string{"float32[B,2,3,5]"}},
		{name: "einsum implicit", op: "Einsum", opset: 12, in: []Type{cxT(f, 3, 4), cxT(f, 4, 5)}, attrs: []*Attr{cxAttrS("equation", "ij,jk")}, want: []string{"float32[3,5]"}},
		{name: "einsum transpose implicit", op: "Einsum", opset: 12, in: []Type{cxT(f, 3, 4)}, attrs: []*Attr{cxAttrS("equation", "ji")}, want: []string{"float32[4,3]"}},
		{name: "einsum sum", op: "Einsum", opset: 12, in: []Type{cxT(f, 3, 4)}, attrs: []*Attr{cxAttrS("equation", "ij->")}, want: []string{"float32[]"}},
		{name: "einsum diag", op: "Einsum", opset: 12, in: []Type{cxT(f, 3, 3)}, attrs: []*Attr{cxAttrS("equation", "ii->i")}, want: []string{"float32[3]"}},
		{name: "einsum one input unknown", op: "Einsum", opset: 12, in: []Type{cxT(f, "*"), cxT(f, 4, 5)}, attrs: []*Attr{cxAttrS("equation", "ij,jk->ik")}, want: []string{"float32[?,5]"}},
		{name: "einsum unknown ellipsis", op: "Einsum", opset: 12, in: []Type{cxT(f, "*"), cxT(f, 4, 5)}, attrs: []*Attr{cxAttrS("equation", "...j,jk->...k")}, want: []string{"float32[*]"}},
		{name: "einsum bad", op: "Einsum", opset: 12, in: []Type{cxT(f, 3, 3)}, attrs: []*Attr{cxAttrS("equation", "ijk->i")}, err: CodeRank},
		{name: "fc", op: "FC", opset: 1, in: []Type{cxT(f, "N", 256, 1, 1), cxT(f, 10, 256), cxT(f, 10)}, want: []string{"float32[N,10]"}},
		{name: "matmulnbits", op: "MatMulNBits", domain: ms, in: []Type{cxT(f, 1, 3, 256), cxT(Uint8, 64, 8, 8), cxT(f, 512)}, attrs: []*Attr{cxAttrI("K", 256), cxAttrI("N", 64), cxAttrI("bits", 2), cxAttrI("block_size", 32)}, want: []string{"float32[1,3,64]"}},
		{name: "cdist", op: "CDist", domain: ms, in: []Type{cxT(f, "M", 3), cxT(f, 7, 3)}, want: []string{"float32[M,7]"}},
		{name: "transposematmul transA", op: "TransposeMatMul", domain: ms, in: []Type{cxT(f, 4, 3), cxT(f, 4, 5)}, attrs: []*Attr{cxAttrI("transA", 1)}, want: []string{"float32[3,5]"}},
		{name: "fusedmatmul transB", op: "FusedMatMul", domain: ms, in: []Type{cxT(f, 2, 3, 4), cxT(f, 2, 5, 4)}, attrs: []*Attr{cxAttrI("transB", 1)}, want: []string{"float32[2,3,5]"}},
	})
}
