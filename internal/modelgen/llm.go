package modelgen

// This file implements the decoder-only transformer generator: any
// Decoder (simulate/llm's Transformer converts to one; its presets: GPT-3
// sizes, Llama 2/3, Mixtral) as an
// opset-23 ONNX graph whose weights live in a sparse external-data file,
// so a 405B-parameter model takes a few MB of disk and no memory.
//
// One block, for input x [B, S, h]:
//
//	n = Norm(x)                                RMSNormalization | LayerNormalization
//	q, k, v = n Wq, n Wk, n Wv (+ biases)      MatMul [h, heads*d], [h, kv*d]
//	q, k = RotaryEmbedding(q), (k)             unless learned positions
//	a = Attention(q, k, v; causal, GQA)        opset-23 Attention, 3-D form
//	x = x + a Wo (+ bias)
//	n = Norm(x)
//	x = x + MLP(n)                             SwiGLU: (silu(n Wg) * n Wu) Wd;
//	                                           GELU: gelu(n W1 + b1) W2 + b2
//
// Attention is the standard op (q_num_heads / kv_num_heads / is_causal
// attributes) rather than MatMul-Softmax-MatMul: it states grouped-query
// heads and causality where the cost model and the architecture detection
// (simulate/llm.TransformerOf) read them, and no [B, heads, S, S] score tensor
// appears as a graph value (at 8K tokens and 128 heads it would be
// 17 GB per layer in the memory simulation, where a fused kernel keeps it
// on chip).
//
// A mixture-of-experts MLP routes with static shapes (expert choice,
// Zhou et al., NeurIPS 2022): router logits [T, E] (T = B x S tokens),
// softmax, each expert takes its top C = T x topk / E tokens (TopK over the
// transposed probabilities), the experts run as one batched MatMul over
// stacked weights [E, h, f], and ScatterND adds the weighted results
// back. The FLOPs and bytes equal token-choice top-k routing at capacity
// factor 1.

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// Decoder is a decoder-only transformer's architecture: Layers blocks of
// (norm, attention, residual, norm, MLP or mixture of experts, residual)
// between a token embedding and a language-model head. Its fields are
// simulate/llm.Transformer's, in the same order, so that one converts to
// the other (modelgen.Decoder(t)) without this package importing the
// planner; see there for each field's meaning. Dropout and Source are
// carried and not used (the graph is an inference graph).
type Decoder struct {
	Name             string
	Layers           int
	Hidden           int
	Heads            int
	KVHeads          int
	HeadDim          int // 0: Hidden / Heads
	FFN              int // each expert's under MoE
	Gated            bool
	Vocab            int
	Seq              int
	Experts          int
	TopK             int
	TiedEmbeddings   bool
	Bias             bool
	RMSNorm          bool
	LearnedPositions bool
	Dropout          bool
	// DeepSeek-V2/V3-class fields (simulate/llm.Transformer's; the
	// generator writes none of them: a decoder with any is refused).
	QLoRARank, KVLoRARank, RopeHeadDim, VHeadDim int
	SharedExperts, DenseLayers, DenseFFN         int
	MTPLayers                                    int
	Source                                       string
}

// maxDecoderDim bounds every dimension (larger values are input errors).
const maxDecoderDim = 1 << 24

// validate checks that the dimensions describe a model.
func (t *Decoder) validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"layers", t.Layers}, {"hidden", t.Hidden}, {"heads", t.Heads}, {"kv heads", t.KVHeads}, {"ffn", t.FFN}, {"vocab", t.Vocab}, {"seq", t.Seq}} {
		if f.v < 1 || f.v > maxDecoderDim {
			return fmt.Errorf("decoder %q: %s %d out of range 1..%d", t.Name, f.name, f.v, maxDecoderDim)
		}
	}
	switch {
	case t.HeadDim < 0 || t.HeadDim > maxDecoderDim:
		return fmt.Errorf("decoder %q: head dim %d out of range 0..%d", t.Name, t.HeadDim, maxDecoderDim)
	case t.HeadDim == 0 && t.Hidden%t.Heads != 0:
		return fmt.Errorf("decoder %q: hidden %d is not a multiple of heads %d (give head_dim)", t.Name, t.Hidden, t.Heads)
	case t.KVHeads > t.Heads || t.Heads%t.KVHeads != 0:
		return fmt.Errorf("decoder %q: kv heads %d must divide heads %d", t.Name, t.KVHeads, t.Heads)
	case t.Experts < 0 || t.Experts > 1<<16 || (t.Experts > 1 && (t.TopK < 1 || t.TopK > t.Experts)):
		return fmt.Errorf("decoder %q: experts %d / top-k %d out of range", t.Name, t.Experts, t.TopK)
	case t.QLoRARank != 0 || t.KVLoRARank != 0 || t.RopeHeadDim != 0 || t.VHeadDim != 0 || t.SharedExperts != 0 || t.DenseLayers != 0 || t.DenseFFN != 0 || t.MTPLayers != 0:
		return fmt.Errorf("decoder %q: latent attention, shared experts, dense first layers and multi-token prediction are not generated", t.Name)
	}
	return nil
}

// Dh returns the head dimension.
func (t *Decoder) Dh() int {
	if t.HeadDim > 0 {
		return t.HeadDim
	}
	return t.Hidden / max(1, t.Heads)
}

// MoE reports whether the MLPs are mixtures of experts.
func (t *Decoder) MoE() bool { return t.Experts > 1 }

// LLMOptions steer LLM. Zero values are the defaults.
type LLMOptions struct {
	// Batch is the static batch (sequences; default 1).
	Batch int
	// Seq overrides the architecture's sequence length.
	Seq int
	// DType is the weights' and activations' element type: bfloat16
	// (default), float16 or float32 (ONNX Runtime's CPU provider runs
	// float32 only).
	DType ir.DType
}

// LLMMaxTokens bounds Batch x Seq.
const LLMMaxTokens = 1 << 24

// LLM builds t as an ONNX model (opset 23) with its weights in a
// SparseFile at dataPath: inputs input_ids and position_ids (int64 [B, S]),
// output logits [B, S, vocab], shapes inferred. Names follow the Hugging Face layout
// (model.layers.N.self_attn.q_proj.weight, ...), stored [in, out] as
// MatMul reads them. The model's Close closes the file.
func LLM(t Decoder, dataPath string, o LLMOptions) (*ir.Model, error) {
	if o.Seq > 0 {
		t.Seq = o.Seq
	}
	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("modelgen: %w", err)
	}
	if o.Batch == 0 {
		o.Batch = 1
	}
	if o.DType == ir.Undefined {
		o.DType = ir.BFloat16
	}
	if o.Batch < 1 || int64(o.Batch)*int64(t.Seq) > LLMMaxTokens {
		return nil, fmt.Errorf("modelgen: batch %d x seq %d: want 1..%d tokens", o.Batch, t.Seq, LLMMaxTokens)
	}
	if t.MoE() && (int64(o.Batch)*int64(t.Seq)*int64(t.TopK))%int64(t.Experts) != 0 {
		return nil, fmt.Errorf("modelgen: batch x seq x top-k (%d x %d x %d) must be a multiple of the %d experts (expert capacity)", o.Batch, t.Seq, t.TopK, t.Experts)
	}
	sf, err := NewSparseFile(dataPath)
	if err != nil {
		return nil, err
	}
	g := &llmGen{t: t, o: o, sf: sf, b: New(llmName(t), 23)}
	m, err := g.build()
	if err == nil {
		err = sf.Finish()
	}
	if err == nil {
		if w := ir.InferModel(m, ir.InferOptions{}).Warnings(); len(w) > 0 {
			err = fmt.Errorf("modelgen: %s: shape inference: %s", m.Graph.Name, w[0])
		}
	}
	if err != nil {
		sf.Close()
		return nil, err
	}
	m.Closer = sf
	return m, nil
}

func llmName(t Decoder) string {
	if t.Name != "" {
		return t.Name
	}
	return fmt.Sprintf("decoder_%dl_%d", t.Layers, t.Hidden)
}

// llmGen carries the state of one generation; the first weight error
// stops it (err), later calls return nil values that are never used.
type llmGen struct {
	t   Decoder
	o   LLMOptions
	sf  *SparseFile
	b   *Builder
	err error
	// shared constants
	cos, sin, pos, flat, zero, emb *ir.Value
}

// w adds a weight (random head, zeros after).
func (g *llmGen) w(name string, dims ...int64) *ir.Value {
	if g.err != nil {
		return nil
	}
	v, err := g.sf.WeightOf(g.b, name, g.o.DType, dims...)
	g.err = err
	return v
}

// values adds a tensor of the given values.
func (g *llmGen) values(name string, dims []int64, vals []float32) *ir.Value {
	if g.err != nil {
		return nil
	}
	v, err := g.sf.ValuesOf(g.b, name, g.o.DType, dims, vals)
	g.err = err
	return v
}

func (g *llmGen) op(op string, in []*ir.Value, attrs ...*ir.Attr) *ir.Value {
	return g.b.Op(op, in, attrs...)
}

func (g *llmGen) build() (*ir.Model, error) {
	t, b := g.t, g.b
	B, S, h := g.o.Batch, int64(t.Seq), int64(t.Hidden)
	ids := b.Input("input_ids", ir.Int64, B, int(S))
	g.pos = b.Input("position_ids", ir.Int64, B, int(S))
	g.emb = g.w("model.embed_tokens.weight", int64(t.Vocab), h)
	x := g.op("Gather", []*ir.Value{g.emb, ids}, Int("axis", 0))
	if t.LearnedPositions {
		x = g.op("Add", []*ir.Value{x, g.w("model.embed_positions.weight", S, h)})
	} else {
		g.rope()
	}
	for l := 0; l < t.Layers && g.err == nil; l++ {
		p := fmt.Sprintf("model.layers.%d.", l)
		a := g.attention(p, g.norm(p+"input_layernorm", x))
		x = g.op("Add", []*ir.Value{x, a})
		n := g.norm(p+"post_attention_layernorm", x)
		if t.MoE() {
			x = g.op("Add", []*ir.Value{x, g.moe(p+"block_sparse_moe.", n)})
		} else {
			x = g.op("Add", []*ir.Value{x, g.mlp(p+"mlp.", n)})
		}
	}
	x = g.norm("model.norm", x)
	logits := g.head(x)
	if g.err != nil {
		return nil, g.err
	}
	logits.Name = "logits"
	b.Output(logits)
	return b.Model(), nil
}

// norm is RMSNormalization or LayerNormalization over the last axis.
func (g *llmGen) norm(name string, x *ir.Value) *ir.Value {
	h := int64(g.t.Hidden)
	if g.t.RMSNorm {
		return g.op("RMSNormalization", []*ir.Value{x, g.w(name+".weight", h)}, Int("axis", -1), Float("epsilon", 1e-5))
	}
	return g.op("LayerNormalization", []*ir.Value{x, g.w(name+".weight", h), g.w(name+".bias", h)}, Int("axis", -1), Float("epsilon", 1e-5))
}

// linear is x W (+ b) with W stored [in, out].
func (g *llmGen) linear(name string, x *ir.Value, in, out int64) *ir.Value {
	y := g.op("MatMul", []*ir.Value{x, g.w(name+".weight", in, out)})
	if g.t.Bias {
		y = g.op("Add", []*ir.Value{y, g.w(name+".bias", out)})
	}
	return y
}

// rope adds the rotary caches: cos and sin of position x inverse
// frequency 10000^(-2i/d), [S, d/2].
func (g *llmGen) rope() {
	S, d := g.t.Seq, g.t.Dh()
	half := d / 2
	cos, sin := make([]float32, S*half), make([]float32, S*half)
	for p := 0; p < S; p++ {
		for i := 0; i < half; i++ {
			a := float64(p) * math.Pow(10000, -2*float64(i)/float64(d))
			cos[p*half+i], sin[p*half+i] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	g.cos = g.values("rope.cos_cache", []int64{int64(S), int64(half)}, cos)
	g.sin = g.values("rope.sin_cache", []int64{int64(S), int64(half)}, sin)
}

// attention is the projections, rotary embedding, causal grouped-query
// attention and output projection.
func (g *llmGen) attention(p string, n *ir.Value) *ir.Value {
	t := g.t
	h, d := int64(t.Hidden), int64(t.Dh())
	qd, kvd := int64(t.Heads)*d, int64(t.KVHeads)*d
	q := g.linear(p+"self_attn.q_proj", n, h, qd)
	k := g.linear(p+"self_attn.k_proj", n, h, kvd)
	v := g.linear(p+"self_attn.v_proj", n, h, kvd)
	if !t.LearnedPositions {
		q = g.op("RotaryEmbedding", []*ir.Value{q, g.cos, g.sin, g.pos}, Int("num_heads", int64(t.Heads)))
		k = g.op("RotaryEmbedding", []*ir.Value{k, g.cos, g.sin, g.pos}, Int("num_heads", int64(t.KVHeads)))
	}
	a := g.op("Attention", []*ir.Value{q, k, v}, Int("is_causal", 1),
		Int("q_num_heads", int64(t.Heads)), Int("kv_num_heads", int64(t.KVHeads)))
	return g.linear(p+"self_attn.o_proj", a, qd, h)
}

// mlp is the dense MLP: SwiGLU or GELU.
func (g *llmGen) mlp(p string, n *ir.Value) *ir.Value {
	h, f := int64(g.t.Hidden), int64(g.t.FFN)
	if g.t.Gated {
		gate := g.linear(p+"gate_proj", n, h, f)
		up := g.linear(p+"up_proj", n, h, f)
		return g.linear(p+"down_proj", g.swiglu(gate, up), f, h)
	}
	u := g.op("Gelu", []*ir.Value{g.linear(p+"up_proj", n, h, f)})
	return g.linear(p+"down_proj", u, f, h)
}

// swiglu is silu(gate) * up, silu written as x * sigmoid(x) (wolong
// fuses it into wolong:SiLU).
func (g *llmGen) swiglu(gate, up *ir.Value) *ir.Value {
	silu := g.op("Mul", []*ir.Value{gate, g.op("Sigmoid", []*ir.Value{gate})})
	return g.op("Mul", []*ir.Value{silu, up})
}

// moe is the expert-choice mixture of experts (see the file comment).
func (g *llmGen) moe(p string, n *ir.Value) *ir.Value {
	t, b := g.t, g.b
	h, f, E := int64(t.Hidden), int64(t.FFN), int64(t.Experts)
	T := int64(g.o.Batch) * int64(t.Seq)
	C := T * int64(t.TopK) / E
	if g.flat == nil {
		g.flat = b.ConstI("moe.flat_shape", []int64{2}, -1, h)
		g.zero = g.values("moe.zero", nil, []float32{0})
	}
	x := g.op("Reshape", []*ir.Value{n, g.flat}) // [T, h]
	probs := g.op("Softmax", []*ir.Value{g.op("MatMul", []*ir.Value{x, g.w(p+"gate.weight", h, E)})}, Int("axis", -1))
	probsT := g.op("Transpose", []*ir.Value{probs}, Ints("perm", 1, 0)) // [E, T]
	topk := b.OpN("TopK", 2, []*ir.Value{probsT, b.ConstI(p+"capacity", []int64{1}, C)}, Int("axis", -1))
	weight, idx := topk[0], topk[1]                               // [E, C]
	tokens := g.op("Gather", []*ir.Value{x, idx}, Int("axis", 0)) // [E, C, h]
	var y *ir.Value
	if t.Gated {
		gate := g.op("MatMul", []*ir.Value{tokens, g.w(p+"experts.w1", E, h, f)})
		up := g.op("MatMul", []*ir.Value{tokens, g.w(p+"experts.w3", E, h, f)})
		y = g.op("MatMul", []*ir.Value{g.swiglu(gate, up), g.w(p+"experts.w2", E, f, h)})
	} else {
		u := g.op("Gelu", []*ir.Value{g.op("MatMul", []*ir.Value{tokens, g.w(p+"experts.w1", E, h, f)})})
		y = g.op("MatMul", []*ir.Value{u, g.w(p+"experts.w2", E, f, h)})
	}
	y = g.op("Mul", []*ir.Value{y, g.op("Unsqueeze", []*ir.Value{weight, b.ConstI(p+"unsq_axes", []int64{1}, -1)})})
	updates := g.op("Reshape", []*ir.Value{y, g.flat})                                        // [E*C, h]
	where := g.op("Reshape", []*ir.Value{idx, b.ConstI(p+"index_shape", []int64{2}, E*C, 1)}) // [E*C, 1]
	out := g.op("ScatterND", []*ir.Value{g.op("Mul", []*ir.Value{x, g.zero}), where, updates}, Str("reduction", "add"))
	return g.op("Reshape", []*ir.Value{out, b.ConstI(p+"unflat_shape", []int64{3}, int64(g.o.Batch), int64(t.Seq), h)})
}

// head is the language-model head: x W_lm, or with tied embeddings
// Gemm(x, E, transB) on the embedding table (no transposed copy of it).
func (g *llmGen) head(x *ir.Value) *ir.Value {
	t, b := g.t, g.b
	h, V := int64(t.Hidden), int64(t.Vocab)
	if !t.TiedEmbeddings {
		return g.op("MatMul", []*ir.Value{x, g.w("lm_head.weight", h, V)})
	}
	x2 := g.op("Reshape", []*ir.Value{x, b.ConstI("head.flat_shape", []int64{2}, -1, h)})
	logits := g.op("Gemm", []*ir.Value{x2, g.emb}, Int("transB", 1))
	return g.op("Reshape", []*ir.Value{logits, b.ConstI("head.logits_shape", []int64{3}, int64(g.o.Batch), int64(t.Seq), V)})
}

// ValuesOf adds a tensor of element type dt holding vals (written whole).
func (s *SparseFile) ValuesOf(b *Builder, name string, dt ir.DType, dims []int64, vals []float32) (*ir.Value, error) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	if n != int64(len(vals)) {
		return nil, fmt.Errorf("modelgen: %s: %d values for dims %v", name, len(vals), dims)
	}
	return s.write(b, name, dt, dims, encodeFloats(dt, vals))
}
