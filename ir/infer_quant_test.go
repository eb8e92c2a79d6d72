package ir

import "testing"

func TestInferQuant(t *testing.T) {
	f := Float32
	ms := "com.microsoft"
	cxRunAll(t, []cxCase{
		{name: "quantize zp dtype", op: "QuantizeLinear", opset: 13, in: []Type{cxT(f, "N", 8), cxT(f), cxT(Int8)}, want: []string{"int8[N,8]"}},
		{name: "quantize default uint8", op: "QuantizeLinear", opset: 13, in: []Type{cxT(f, 8), cxT(f)}, want: []string{"uint8[8]"}},
		{name: "quantize output_dtype", op: "QuantizeLinear", opset: 21, in: []Type{cxT(f, 8), cxT(f)}, attrs: []*Attr{cxAttrI("output_dtype", int64(Int4))}, want: []string{"int4[8]"}},
		{name: "dequantize fp16 scale", op: "DequantizeLinear", opset: 19, in: []Type{cxT(Int8, 8), cxT(Float16)}, want: []string{"float16[8]"}},
		{name: "dynamic quantize", op: "DynamicQuantizeLinear", in: []Type{cxT(f, 3, 4)}, nout: 3, want: []string{"uint8[3,4]", "float32[]", "uint8[]"}},
		{name: "qlinearconv", op: "QLinearConv", in: []Type{cxT(Uint8, 1, 3, 8, 8), cxT(f), cxT(Uint8), cxT(Uint8, 16, 3, 3, 3), cxT(f), cxT(Uint8), cxT(f), cxT(Uint8)}, attrs: []*Attr{cxAttrIs("pads", 1, 1, 1, 1)}, want: []string{"uint8[1,16,8,8]"}},
		{name: "qlinearadd", op: "QLinearAdd", domain: ms, in: []Type{cxT(Uint8, 1, 8, 4, 4), cxT(f), cxT(Uint8), cxT(Uint8, 8, 1, 1), cxT(f), cxT(Uint8), cxT(f), cxT(Uint8)}, want: []string{"uint8[1,8,4,4]"}},
		{name: "qlinear gap", op: "QLinearGlobalAveragePool", domain: ms, in: []Type{cxT(Uint8, 1, 8, 7, 7), cxT(f), cxT(Uint8), cxT(f), cxT(Uint8)}, want: []string{"uint8[1,8,1,1]"}},
		{name: "qlinear gap nhwc", op: "QLinearGlobalAveragePool", domain: ms, in: []Type{cxT(Uint8, 1, 7, 7, 8), cxT(f), cxT(Uint8), cxT(f), cxT(Uint8)}, attrs: []*Attr{cxAttrI("channels_last", 1)}, want: []string{"uint8[1,1,1,8]"}},
		{name: "qlinearconcat", op: "QLinearConcat", domain: ms, in: []Type{cxT(f), cxT(Uint8), cxT(Uint8, 1, 2, 4), cxT(f), cxT(Uint8), cxT(Uint8, 1, 3, 4), cxT(f), cxT(Uint8)}, attrs: []*Attr{cxAttrI("axis", 1)}, want: []string{"uint8[1,5,4]"}},
	})
}
