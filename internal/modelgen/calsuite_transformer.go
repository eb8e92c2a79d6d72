package modelgen

// This file generates the calibration suite's transformer and recurrent
// models beyond the generic ones: the fused operators ONNX Runtime's
// exporters and optimizers emit (com.microsoft Attention,
// MultiHeadAttention, SkipLayerNormalization, FastGelu, BiasGelu), the
// standard Attention of opset 23, and recurrent layers as speech and VAD
// models use them (bidirectional, with states passed in and out, one step
// at a time). Small sizes on purpose: for a decoder step or a wake-word
// model, their fixed cost per call is most of their time.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// msDomain is ONNX Runtime's contrib-op domain.
const msDomain = "com.microsoft"

// OpDomain adds a node of op in domain with n outputs (importing the
// domain at version 1 when the model does not yet).
func (b *Builder) OpDomain(domain, op string, n int, inputs []*ir.Value, attrs ...*ir.Attr) []*ir.Value {
	have := false
	for _, o := range b.M.Opsets {
		have = have || o.Domain == domain
	}
	if !have {
		b.M.Opsets = append(b.M.Opsets, ir.OpsetID{Domain: domain, Version: 1})
	}
	return b.addNode(domain, op, n, false, inputs, attrs)
}

// transformerSuite adds the attention, contrib and recurrent models.
func transformerSuite(add func(group, name string, two bool, m *ir.Model)) {
	for _, c := range []struct{ seq, hidden, heads int64 }{{1, 192, 4}, {16, 64, 4}, {64, 128, 4}, {128, 256, 8}} {
		add("attention", fmt.Sprintf("Attention_%dx%dh%d", c.seq, c.hidden, c.heads), false, msAttentionChain(c.seq, c.hidden, c.heads))
	}
	for _, c := range []struct{ seq, hidden, heads int64 }{{16, 64, 4}, {64, 256, 8}} {
		add("attention", fmt.Sprintf("MultiHeadAttention_%dx%dh%d", c.seq, c.hidden, c.heads), false, mhaChain(c.seq, c.hidden, c.heads))
	}
	for _, c := range []struct{ heads, seq, dim int64 }{{4, 16, 16}, {8, 64, 32}} {
		add("attention", fmt.Sprintf("Attention23_h%dx%dx%d", c.heads, c.seq, c.dim), false, onnxAttentionChain(c.heads, c.seq, c.dim))
	}
	for _, c := range []struct{ rows, cols int64 }{{1, 192}, {16, 256}, {128, 768}} {
		add("norm", fmt.Sprintf("SkipLayerNorm_%dx%d", c.rows, c.cols), false, skipLayerNormChain(c.rows, c.cols))
	}
	for _, n := range []int64{1024, 1 << 14, 1 << 18} {
		add("elementwise", fmt.Sprintf("FastGelu_%d", n), false, biasActChain("FastGelu", n))
		add("elementwise", fmt.Sprintf("BiasGelu_%d", n), false, biasActChain("BiasGelu", n))
	}
	for _, c := range []struct{ m, k, n, bits int64 }{{1, 1024, 1024, 4}, {16, 512, 512, 4}, {4, 768, 192, 2}, {1, 1024, 1024, 2}, {1, 1024, 1024, 8}} {
		add("gemm", fmt.Sprintf("MatMulNBits%d_%dx%dx%d", c.bits, c.m, c.k, c.n), false, MatMulNBitsChain(c.m, c.k, c.n, c.bits))
	}
	add("rnn", "lstm_bidi_8x1x64x64", false, rnnBidi("LSTM", 8, 64, 64))
	add("rnn", "gru_bidi_16x1x32x32", false, rnnBidi("GRU", 16, 32, 32))
	add("rnn", "lstm_state_1x1x600x300", false, lstmStep(600, 300))
	add("rnn", "lstm_state_1x1x24x24", false, lstmStep(24, 24))
	// one-step layers: a CPU library's fixed time per call and direction
	// (about 10 us on ORT 1.30) dominates them, as in streaming speech
	// and byte-level models
	add("rnn", "lstm_1x1x16x48", false, rnnModel("LSTM", 1, 1, 16, 48))
	add("rnn", "lstm_bidi_1x1x80x40", false, rnnBidi("LSTM", 1, 80, 40))
	add("rnn", "gru_1x1x128x256", false, rnnModel("GRU", 1, 1, 128, 256))
	add("rnn", "gru_bidi_1x1x64x64", false, rnnBidi("GRU", 1, 64, 64))
	add("rnn", "lstm_bidi_4x1x256x64", false, rnnBidi("LSTM", 4, 256, 64))
	for _, c := range []struct{ batch, seq, hidden, heads, past int64 }{{1, 8, 128, 4, 0}, {1, 32, 384, 6, 0}, {2, 1, 256, 4, 32}} {
		add("attention", fmt.Sprintf("QAttention_%dx%dx%dh%dp%d", c.batch, c.seq, c.hidden, c.heads, c.past), false, qAttentionBlock(c.batch, c.seq, c.hidden, c.heads, c.past, false))
	}
	// weights quantized at run time: ONNX Runtime packs them in every call
	add("attention", "QAttention_runtime_w_2x1x384h6p16", false, qAttentionBlock(2, 1, 384, 6, 16, true))
}

// qAttentionBlock is a dynamically quantized attention layer as ONNX
// Runtime's quantizer writes it (a BERT's): DynamicQuantizeLinear of the
// float input, then com.microsoft QAttention over int8 weights with
// per-tensor scales and zero points; with past > 0 a decoder step over a
// [2, batch, heads, past, hidden/heads] key/value cache (a graph input).
//
// With runtimeW the int8 weights are computed in the run (QuantizeLinear
// of float weights) instead of being an initializer, so the runtime
// cannot pack them once at session creation.
func qAttentionBlock(batch, seq, hidden, heads, past int64, runtimeW bool) *ir.Model {
	b := New(fmt.Sprintf("qattention_%dx%dx%d", batch, seq, hidden), suiteOpset)
	x := b.Input("x", ir.Float32, int(batch), int(seq), int(hidden))
	q := b.OpN("DynamicQuantizeLinear", 3, []*ir.Value{x})
	wScale := b.ConstF("w_scale", nil, 0.01)
	wZero := b.G.AddInitializer(&ir.Tensor{Name: "w_zero", DType: ir.Int8, Raw: []byte{0}})
	var w *ir.Value
	if runtimeW {
		w = b.Op("QuantizeLinear", []*ir.Value{b.Weight("w_float", hidden, 3*hidden), wScale, wZero})
	} else {
		w = b.bytesInitOf("w", []int64{hidden, 3 * hidden}, ir.Int8)
	}
	ins := []*ir.Value{q[0], w, b.Weight("bias", 3*hidden), q[1], wScale, nil, q[2], wZero}
	if past == 0 {
		return b.outputY(b.OpDomain(msDomain, "QAttention", 1, ins, Int("num_heads", heads))[0])
	}
	ins = append(ins, b.Input("past", ir.Float32, 2, int(batch), int(heads), int(past), int(hidden/heads)))
	outs := b.OpDomain(msDomain, "QAttention", 2, ins, Int("num_heads", heads), Int("unidirectional", 1))
	outs[0].Name, outs[1].Name = "y", "present"
	b.Output(outs...)
	return b.Model()
}

// msAttentionChain is two com.microsoft Attention layers over [1, seq,
// hidden] (QKV projection inside the op).
func msAttentionChain(seq, hidden, heads int64) *ir.Model {
	b := New(fmt.Sprintf("ms_attention_%dx%d", seq, hidden), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(seq), int(hidden))
	for i := 0; i < 2; i++ {
		h = b.OpDomain(msDomain, "Attention", 1, []*ir.Value{h, b.Weight(fmt.Sprintf("w%d", i), hidden, 3*hidden), b.Weight(fmt.Sprintf("b%d", i), 3*hidden)},
			Int("num_heads", heads))[0]
	}
	return b.outputY(h)
}

// mhaChain is two com.microsoft MultiHeadAttention layers: the output
// queries the same keys and values again.
func mhaChain(seq, hidden, heads int64) *ir.Model {
	b := New(fmt.Sprintf("mha_%dx%d", seq, hidden), suiteOpset)
	q := b.Input("q", ir.Float32, 1, int(seq), int(hidden))
	k := b.Input("k", ir.Float32, 1, int(seq), int(hidden))
	v := b.Input("v", ir.Float32, 1, int(seq), int(hidden))
	for i := 0; i < 2; i++ {
		q = b.OpDomain(msDomain, "MultiHeadAttention", 1, []*ir.Value{q, k, v}, Int("num_heads", heads))[0]
	}
	return b.outputY(q)
}

// onnxAttentionChain is two opset-23 Attention ops over [1, heads, seq,
// dim] queries, keys and values.
func onnxAttentionChain(heads, seq, dim int64) *ir.Model {
	b := New(fmt.Sprintf("attention23_%dx%dx%d", heads, seq, dim), 23)
	q := b.Input("q", ir.Float32, 1, int(heads), int(seq), int(dim))
	k := b.Input("k", ir.Float32, 1, int(heads), int(seq), int(dim))
	v := b.Input("v", ir.Float32, 1, int(heads), int(seq), int(dim))
	for i := 0; i < 2; i++ {
		q = b.Op("Attention", []*ir.Value{q, k, v})
	}
	return b.outputY(q)
}

// skipLayerNormChain is repeat com.microsoft SkipLayerNormalization ops
// over [1, rows, cols], each adding the same skip input.
func skipLayerNormChain(rows, cols int64) *ir.Model {
	b := New(fmt.Sprintf("skip_layernorm_%dx%d", rows, cols), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(rows), int(cols))
	skip := b.Input("skip", ir.Float32, 1, int(rows), int(cols))
	for i := 0; i < repeat; i++ {
		h = b.OpDomain(msDomain, "SkipLayerNormalization", 1, []*ir.Value{h, skip, b.Weight(fmt.Sprintf("g%d", i), cols), b.Weight(fmt.Sprintf("b%d", i), cols), b.Weight(fmt.Sprintf("bias%d", i), cols)},
			Float("epsilon", 1e-5))[0]
	}
	return b.outputY(h)
}

// biasActChain is repeat com.microsoft FastGelu or BiasGelu ops (input
// plus a bias, then the activation) over [1, n/256, 256].
func biasActChain(op string, n int64) *ir.Model {
	b := New(fmt.Sprintf("%s_%d", op, n), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(n/256), 256)
	for i := 0; i < repeat; i++ {
		h = b.OpDomain(msDomain, op, 1, []*ir.Value{h, b.Weight(fmt.Sprintf("bias%d", i), 256)})[0]
	}
	return b.outputY(h)
}

// rnnBidi is a bidirectional LSTM or GRU over [seq, 1, input] returning
// its whole output sequence.
func rnnBidi(op string, seq, input, hidden int64) *ir.Model {
	b := New(fmt.Sprintf("%s_bidi_%dx%dx%d", op, seq, input, hidden), suiteOpset)
	x := b.Input("x", ir.Float32, int(seq), 1, int(input))
	gates := int64(4)
	if op == "GRU" {
		gates = 3
	}
	outs := b.OpN(op, 2, []*ir.Value{x, b.Weight("W", 2, gates*hidden, input), b.Weight("R", 2, gates*hidden, hidden), b.Weight("B", 2, 2*gates*hidden)},
		Int("hidden_size", hidden), Str("direction", "bidirectional"))
	outs[0].Name = "y"
	b.Output(outs[0])
	return b.Model()
}

// lstmStep is two stacked one-step LSTMs whose states come in and go out
// as graph inputs and outputs, as a streaming speech model runs them
// (DTLN, VAD).
func lstmStep(input, hidden int64) *ir.Model {
	b := New(fmt.Sprintf("lstm_step_%dx%d", input, hidden), suiteOpset)
	x := b.Input("x", ir.Float32, 1, 1, int(input))
	var outs []*ir.Value
	in := input
	for i := 0; i < 2; i++ {
		h0 := b.Input(fmt.Sprintf("h%d", i), ir.Float32, 1, 1, int(hidden))
		c0 := b.Input(fmt.Sprintf("c%d", i), ir.Float32, 1, 1, int(hidden))
		o := b.OpN("LSTM", 3, []*ir.Value{x, b.Weight(fmt.Sprintf("W%d", i), 1, 4*hidden, in), b.Weight(fmt.Sprintf("R%d", i), 1, 4*hidden, hidden),
			b.Weight(fmt.Sprintf("B%d", i), 1, 8*hidden), nil, h0, c0}, Int("hidden_size", hidden))
		o[1].Name, o[2].Name = fmt.Sprintf("h%d_out", i), fmt.Sprintf("c%d_out", i)
		outs = append(outs, o[1], o[2])
		x = b.Op("Squeeze", []*ir.Value{o[0], b.ConstI(fmt.Sprintf("ax%d", i), []int64{1}, 1)})
		in = hidden
	}
	x.Name = "y"
	b.Output(append([]*ir.Value{x}, outs...)...)
	return b.Model()
}

// MatMulNBitsChain is two com.microsoft MatMulNBits ops (block-quantized
// weights of bits bits, blocks of 32, with zero points) over [1, m, k]: the
// LLM weight format of a decoder step.
func MatMulNBitsChain(m, k, n, bits int64) *ir.Model {
	b := New(fmt.Sprintf("matmulnbits%d_%dx%dx%d", bits, m, k, n), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(m), int(k))
	const block = 32
	for i, dims := range [][2]int64{{k, n}, {n, k}} {
		kk, nn := dims[0], dims[1]
		blocks := (kk + block - 1) / block
		packed := b.bytesInit(fmt.Sprintf("B%d", i), []int64{nn, blocks, block * bits / 8})
		zp := b.bytesInit(fmt.Sprintf("zp%d", i), []int64{nn * ((blocks*bits + 7) / 8)}) // per row, packed
		scales := b.Weight(fmt.Sprintf("scales%d", i), nn*blocks)
		h = b.OpDomain(msDomain, "MatMulNBits", 1, []*ir.Value{h, packed, scales, zp},
			Int("K", kk), Int("N", nn), Int("bits", bits), Int("block_size", block))[0]
	}
	return b.outputY(h)
}

// bytesInit adds a uint8 initializer of seeded random bytes.
func (b *Builder) bytesInit(name string, dims []int64) *ir.Value {
	return b.bytesInitOf(name, dims, ir.Uint8)
}

// bytesInitOf is bytesInit of a one-byte dtype dt (uint8 or int8).
func (b *Builder) bytesInitOf(name string, dims []int64, dt ir.DType) *ir.Value {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	r := b.rng(name)
	raw := make([]byte, n)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	return b.G.AddInitializer(&ir.Tensor{Name: name, DType: dt, Dims: dims, Raw: raw})
}
