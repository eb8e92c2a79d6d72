package ir

import "testing"

func TestInferRNN(t *testing.T) {
	f := Float32
	cxRunAll(t, []cxCase{
		{name: "lstm forward", op: "LSTM", in: []Type{cxT(f, "T", "B", 10), cxT(f, 1, 80, 10), cxT(f, 1, 80, 20)}, attrs: []*Attr{cxAttrI("hidden_size", 20)}, nout: 3,
			want: []string{"float32[T,1,B,20]", "float32[1,B,20]", "float32[1,B,20]"}},
		{name: "lstm hidden from R", op: "LSTM", in: []Type{cxT(f, 5, 2, 10), cxT(f, 2, 80, 10), cxT(f, 2, 80, 20)}, attrs: []*Attr{cxAttrS("direction", "bidirectional")}, nout: 3,
			want: []string{"float32[5,2,2,20]", "float32[2,2,20]", "float32[2,2,20]"}},
		{name: "lstm layout 1", op: "LSTM", opset: 14, in: []Type{cxT(f, "B", "T", 10), cxT(f, 1, 80, 10), cxT(f, 1, 80, 20)}, attrs: []*Attr{cxAttrI("layout", 1)}, nout: 3,
			want: []string{"float32[B,T,1,20]", "float32[B,1,20]", "float32[B,1,20]"}},
		{name: "lstm only Y_h", op: "LSTM", in: []Type{cxT(f, 5, 2, 10), cxT(f, 1, 80, 10), cxT(f, 1, 80, 20)}, nout: 2, want: []string{"", "float32[1,2,20]"}},
		{name: "gru", op: "GRU", in: []Type{cxT(f, 5, 3, 4), cxT(f, 1, 15, 4), cxT(f, 1, 15, 5)}, nout: 2, want: []string{"float32[5,1,3,5]", "float32[1,3,5]"}},
		{name: "rnn hidden from W", op: "RNN", in: []Type{cxT(f, 5, 3, 4), cxT(f, 1, 7, 4), cxT(f, "*")}, want: []string{"float32[5,1,3,7]"}},
		{name: "bad direction", op: "RNN", in: []Type{cxT(f, 5, 3, 4), cxT(f, 1, 7, 4), cxT(f, 1, 7, 7)}, attrs: []*Attr{cxAttrS("direction", "sideways")}, err: CodeAttr},
		{name: "dynamic quantize lstm", op: "DynamicQuantizeLSTM", domain: "com.microsoft",
			in:    []Type{cxT(f, 1, 2, 4), cxT(Int8, 1, 4, 12), cxT(Int8, 1, 3, 12), cxT(f, 1, 24), cxT(Int32, 2), cxT(f, 1, 2, 3), cxT(f, 1, 2, 3), cxT(f, 1, 9), cxT(f, 1), cxT(Int8, 1), cxT(f, 1), cxT(Int8, 1)},
			attrs: []*Attr{cxAttrI("hidden_size", 3)}, nout: 2, want: []string{"float32[1,1,2,3]", "float32[1,2,3]"}},
	})
}
