package ir

import "testing"

func TestInferAttention(t *testing.T) {
	f := Float32
	h := Float16
	ms := "com.microsoft"
	cxRunAll(t, []cxCase{
		{name: "onnx 4d with past", op: "Attention", opset: 23,
			in:   []Type{cxT(f, "B", 8, "S", 16), cxT(f, "B", 2, "S", 16), cxT(f, "B", 2, "S", 32), {}, cxT(f, "B", 2, "P", 16), cxT(f, "B", 2, "P", 32)},
			nout: 4, want: []string{"float32[B,8,S,32]", "float32[B,2,P+S,16]", "float32[B,2,P+S,32]", "float32[B,8,S,P+S]"}},
		{name: "onnx 3d", op: "Attention", opset: 23,
			in:    []Type{cxT(f, 2, 4, 64), cxT(f, 2, 6, 32), cxT(f, 2, 6, 32)},
			attrs: []*Attr{cxAttrI("q_num_heads", 4), cxAttrI("kv_num_heads", 2)},
			nout:  3, want: []string{"float32[2,4,64]", "float32[2,2,6,16]", "float32[2,2,6,16]"}},
		{name: "rotary", op: "RotaryEmbedding", opset: 23, in: []Type{cxT(f, "B", "S", 64), cxT(f, 32, 8), cxT(f, 32, 8), cxT(Int64, "B", "S")}, want: []string{"float32[B,S,64]"}},
		{name: "linear attention", op: "LinearAttention", opset: 27, in: []Type{cxT(f, 2, 4, 64), cxT(f, 2, 4, 32), cxT(f, 2, 4, 32)},
			attrs: []*Attr{cxAttrI("q_num_heads", 8), cxAttrI("kv_num_heads", 4)}, nout: 2, want: []string{"float32[2,4,64]", "float32[2,4,8,8]"}},
		{name: "flex", op: "FlexAttention", domain: "ai.onnx.preview", in: []Type{cxT(f, 2, 8, 4, 16), cxT(f, 2, 2, 6, 16), cxT(f, 2, 2, 6, 32)}, want: []string{"float32[2,8,4,32]"}},
		{name: "ms attention past", op: "Attention", domain: ms,
			in:    []Type{cxT(f, "B", "S", 32), cxT(f, 32, 96), cxT(f, 96), cxT(Int32, "B", "T"), cxT(f, 2, "B", 4, "P", 8)},
			attrs: []*Attr{cxAttrI("num_heads", 4)}, nout: 2, want: []string{"float32[B,S,32]", "float32[2,B,4,P+S,8]"}},
		{name: "ms attention shared buffer", op: "Attention", domain: ms,
			in:    []Type{cxT(f, "B", 1, 32), cxT(f, 32, 96), cxT(f, 96), {}, cxT(f, 2, "B", 4, 128, 8)},
			attrs: []*Attr{cxAttrI("num_heads", 4), cxAttrI("past_present_share_buffer", 1)}, nout: 2, want: []string{"float32[B,1,32]", "float32[2,B,4,128,8]"}},
		{name: "ms attention no past", op: "Attention", domain: ms, in: []Type{cxT(f, 1, 5, 32), cxT(f, 32, 96), cxT(f, 96)},
			attrs: []*Attr{cxAttrI("num_heads", 4)}, nout: 2, want: []string{"float32[1,5,32]", "float32[2,1,4,5,8]"}},
		{name: "qattention", op: "QAttention", domain: ms,
			in:    []Type{cxT(Uint8, 5, 1, 384), cxT(Int8, 384, 1152), cxT(f, 1152), cxT(f), cxT(f), cxT(Int32, 5, 31), cxT(Uint8), cxT(Int8), cxT(f, 2, 5, 6, 30, 64)},
			attrs: []*Attr{cxAttrI("num_heads", 6)}, nout: 2, want: []string{"float32[5,1,384]", "float32[2,5,6,31,64]"}},
		{name: "mha", op: "MultiHeadAttention", domain: ms,
			in:    []Type{cxT(h, "B", "S", 64), cxT(h, "B", "S", 64), cxT(h, "B", "S", 64), {}, {}, {}, cxT(h, "B", 4, "P", 16), cxT(h, "B", 4, "P", 16)},
			attrs: []*Attr{cxAttrI("num_heads", 4)}, nout: 3, want: []string{"float16[B,S,64]", "float16[B,4,P+S,16]", "float16[B,4,P+S,16]"}},
		{name: "gqa decode known total", op: "GroupQueryAttention", domain: ms,
			in:     []Type{cxT(f, 1, 1, 64), cxT(f, 1, 1, 32), cxT(f, 1, 1, 32), cxT(f, 1, 2, 5, 16), cxT(f, 1, 2, 5, 16), cxT(Int32, 1)},
			consts: []*Tensor{cxInts(true, 6)},
			attrs:  []*Attr{cxAttrI("num_heads", 4), cxAttrI("kv_num_heads", 2)}, nout: 3, want: []string{"float32[1,1,64]", "float32[1,2,6,16]", "float32[1,2,6,16]"}},
		{name: "gqa unknown total", op: "GroupQueryAttention", domain: ms,
			in:    []Type{cxT(f, 1, 1, 64), cxT(f, 1, 1, 32), cxT(f, 1, 1, 32), cxT(f, 1, 2, 5, 16), cxT(f, 1, 2, 5, 16), cxT(Int32, 1), cxT(Int32)},
			attrs: []*Attr{cxAttrI("num_heads", 4), cxAttrI("kv_num_heads", 2)}, nout: 3, want: []string{"float32[1,1,64]", "float32[1,2,?,16]", "float32[1,2,?,16]"}},
		{name: "decoder masked mha", op: "DecoderMaskedMultiHeadAttention", domain: ms,
			in:    []Type{cxT(h, "B", 1, 64), cxT(h, "B", 1, 64), cxT(h, "B", 1, 64), {}, {}, cxT(h, "B", 4, 256, 16), cxT(h, "B", 4, 256, 16)},
			attrs: []*Attr{cxAttrI("num_heads", 4)}, nout: 3, want: []string{"float16[B,1,64]", "float16[B,4,256,16]", "float16[B,4,256,16]"}},
		{name: "skip layernorm", op: "SkipLayerNormalization", domain: ms, in: []Type{cxT(h, "B", "S", 32), cxT(h, "B", "S", 32), cxT(h, 32)}, nout: 4,
			want: []string{"float16[B,S,32]", "float32[B,S,1]", "float32[B,S,1]", "float16[B,S,32]"}},
		{name: "embed layernorm", op: "EmbedLayerNormalization", domain: ms,
			in:   []Type{cxT(Int32, "B", "S"), cxT(Int32, "B", "S"), cxT(f, 1000, 32), cxT(f, 128, 32), cxT(f, 2, 32), cxT(f, 32), cxT(f, 32)},
			nout: 2, want: []string{"float32[B,S,32]", "int32[B]"}},
		{name: "fastgelu", op: "FastGelu", domain: ms, in: []Type{cxT(f, "B", "S", 128), cxT(f, 128)}, want: []string{"float32[B,S,128]"}},
		{name: "fastgelu contrib scalar", op: "FastGelu", domain: "ai.onnx.contrib", in: []Type{cxT(h), cxT(h)}, want: []string{"float16[]"}},
		{name: "gather block quantized", op: "GatherBlockQuantized", domain: ms, in: []Type{cxT(Uint8, 40, 32), cxT(Int64, 2, 3), cxT(f, 40, 2), cxT(Uint8, 40, 1)},
			attrs: []*Attr{cxAttrI("block_size", 32)}, want: []string{"float32[2,3,64]"}},
	})
}
