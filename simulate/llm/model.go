package llm

// This file implements the decoder-only transformer description the LLM
// planner works on (train.go, serve.go): its dimensions, parameter
// count and FLOPs per token. TransformerOf (detect.go) reads one from
// an ONNX graph; TransformerPreset (presets.go) returns published
// architectures.

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/internal/fieldcheck"
)

// Transformer is a decoder-only transformer: Layers blocks of (norm,
// attention, residual, norm, MLP or mixture of experts, residual) between a
// token embedding and a language-model head.
type Transformer struct {
	Name    string `json:"name,omitempty"`
	Layers  int    `json:"layers"`
	Hidden  int    `json:"hidden"`
	Heads   int    `json:"heads"`
	KVHeads int    `json:"kv_heads"` // key/value heads: Heads (multi-head) or fewer (grouped-query)
	HeadDim int    `json:"head_dim"` // 0: Hidden / Heads
	// FFN is the MLP's inner size (each expert's under MoE); Gated says
	// the MLP is SwiGLU (gate and up projections and a down projection:
	// three matrices) rather than GELU (up and down: two).
	FFN   int  `json:"ffn"`
	Gated bool `json:"gated"`
	Vocab int  `json:"vocab"`
	// Seq is the sequence length the model is trained (or served) at.
	Seq int `json:"seq"`
	// Experts > 1 makes every MLP a mixture of Experts, TopK of them per
	// token, chosen by a router (a Hidden x Experts matrix).
	Experts int `json:"experts,omitempty"`
	TopK    int `json:"top_k,omitempty"`
	// TiedEmbeddings: the language-model head reuses the token embedding
	// (no separate Vocab x Hidden matrix).
	TiedEmbeddings bool `json:"tied_embeddings"`
	// Bias: linear layers carry biases (GPT-2/3); RMSNorm: norms have a
	// scale only (Llama), else LayerNorm with scale and shift;
	// LearnedPositions: a Seq x Hidden position table (GPT), else rotary
	// embeddings with no weights; Dropout: training applies dropout after
	// attention probabilities and on each residual branch (GPT-3 and the
	// Megatron runs; Llama has none).
	Bias             bool `json:"bias"`
	RMSNorm          bool `json:"rms_norm"`
	LearnedPositions bool `json:"learned_positions"`
	Dropout          bool `json:"dropout"`
	// DeepSeek-V2/V3-class architecture (all 0: none). KVLoRARank > 0
	// is multi-head latent attention: keys and values are projected to a
	// KVLoRARank latent plus RopeHeadDim rotary key dims shared by the
	// heads (what the KV cache holds), and expanded per head to HeadDim
	// position-free key dims and VHeadDim value dims; queries go through a
	// QLoRARank latent when it is > 0 and carry RopeHeadDim rotary dims.
	QLoRARank   int `json:"q_lora_rank,omitempty"`
	KVLoRARank  int `json:"kv_lora_rank,omitempty"`
	RopeHeadDim int `json:"rope_head_dim,omitempty"`
	VHeadDim    int `json:"v_head_dim,omitempty"`
	// SharedExperts are experts every token passes through besides its
	// TopK routed ones (each of FFN).
	SharedExperts int `json:"shared_experts,omitempty"`
	// DenseLayers: the first DenseLayers layers have a dense MLP of
	// DenseFFN instead of experts.
	DenseLayers int `json:"dense_layers,omitempty"`
	DenseFFN    int `json:"dense_ffn,omitempty"`
	// MTPLayers is multi-token-prediction modules (each one more layer
	// and a 2h x h projection, sharing the embedding and head), trained
	// beside the model; Params leaves them out (MTPParams counts them).
	MTPLayers int `json:"mtp_layers,omitempty"`
	// Source cites where the architecture comes from (presets).
	Source string `json:"source,omitempty"`
}

// maxDim bounds every dimension: larger values are input errors, not
// models (and would overflow the products below).
const maxDim = 1 << 24

// Validate checks that the dimensions describe a model.
func (t *Transformer) Validate() error {
	var ck fieldcheck.Check
	pos := func(name string, v int) { ck.IntIn(name, v, 1, maxDim) }
	pos("layers", t.Layers)
	pos("hidden", t.Hidden)
	pos("heads", t.Heads)
	pos("kv heads", t.KVHeads)
	pos("ffn", t.FFN)
	pos("vocab", t.Vocab)
	pos("seq", t.Seq)
	ck.IntIn("head dim", t.HeadDim, 0, maxDim)
	if t.HeadDim == 0 && t.Heads > 0 && t.Hidden%t.Heads != 0 {
		ck.Addf("hidden %d is not a multiple of heads %d (give head_dim)", t.Hidden, t.Heads)
	}
	if t.KVHeads > 0 && t.Heads > 0 && (t.KVHeads > t.Heads || t.Heads%t.KVHeads != 0) {
		ck.Addf("kv heads %d must divide heads %d", t.KVHeads, t.Heads)
	}
	if t.Experts < 0 || t.Experts > 1<<16 || t.TopK < 0 {
		ck.Addf("experts %d / top-k %d out of range", t.Experts, t.TopK)
	} else if t.Experts > 1 && (t.TopK < 1 || t.TopK > t.Experts) {
		ck.Addf("top-k %d must be in 1..experts (%d)", t.TopK, t.Experts)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"q lora rank", t.QLoRARank}, {"kv lora rank", t.KVLoRARank}, {"rope head dim", t.RopeHeadDim}, {"v head dim", t.VHeadDim},
		{"shared experts", t.SharedExperts}, {"dense ffn", t.DenseFFN}, {"mtp layers", t.MTPLayers}} {
		ck.IntIn(f.name, f.v, 0, maxDim)
	}
	switch {
	case t.DenseLayers < 0 || t.DenseLayers > t.Layers:
		ck.Addf("dense layers %d must be in 0..layers (%d)", t.DenseLayers, t.Layers)
	case t.DenseLayers > 0 && (t.DenseFFN < 1 || !t.MoE()):
		ck.Addf("dense layers %d need dense_ffn and experts (the other layers' MLPs)", t.DenseLayers)
	case t.SharedExperts > 0 && !t.MoE():
		ck.Addf("shared experts %d need routed experts", t.SharedExperts)
	case !t.MLA() && (t.QLoRARank > 0 || t.RopeHeadDim > 0):
		ck.Addf("q_lora_rank and rope_head_dim are multi-head latent attention's: give kv_lora_rank")
	case t.MLA() && t.KVHeads != t.Heads:
		ck.Addf("multi-head latent attention expands every head: kv heads %d must equal heads %d", t.KVHeads, t.Heads)
	}
	if len(ck.Bad) == 0 {
		return nil
	}
	name := t.Name
	if name == "" {
		name = "transformer"
	}
	return ck.Err("invalid " + name)
}

// Dh returns the head dimension.
func (t *Transformer) Dh() int {
	if t.HeadDim > 0 {
		return t.HeadDim
	}
	return t.Hidden / max(1, t.Heads)
}

// MoE reports whether the MLPs are mixtures of experts.
func (t *Transformer) MoE() bool { return t.Experts > 1 }

// activeExperts is the experts one token passes through (1 when dense).
func (t *Transformer) activeExperts() float64 {
	if t.MoE() {
		return float64(t.TopK)
	}
	return 1
}

// mlpMatrices is the number of weight matrices of one MLP (or expert).
func (t *Transformer) mlpMatrices() float64 {
	if t.Gated {
		return 3
	}
	return 2
}

// normParams is the weights of one norm.
func (t *Transformer) normParams() float64 {
	if t.RMSNorm {
		return float64(t.Hidden)
	}
	return 2 * float64(t.Hidden)
}

// AttentionParams is the weights of one attention block (Q, K, V and
// output projections, with biases when the model has them).
func (t *Transformer) AttentionParams() float64 {
	if t.MLA() {
		h, H := float64(t.Hidden), float64(t.Heads)
		qr, kvr, r := float64(t.QLoRARank), float64(t.KVLoRARank), float64(t.RopeHeadDim)
		qk, v := float64(t.Dh())+r, float64(t.vDim())
		q := h * H * qk
		if qr > 0 {
			q = h*qr + qr + qr*H*qk // down, its norm, up
		}
		return q + h*(kvr+r) + kvr + kvr*H*(float64(t.Dh())+v) + H*v*h
	}
	h, q, kv := float64(t.Hidden), float64(t.Heads*t.Dh()), float64(t.KVHeads*t.Dh())
	p := h*(q+2*kv) + q*h
	if t.Bias {
		p += q + 2*kv + h
	}
	return p
}

// ExpertParams is the weights of one MLP (one expert under MoE).
func (t *Transformer) ExpertParams() float64 {
	h, f := float64(t.Hidden), float64(t.FFN)
	p := t.mlpMatrices() * h * f
	if t.Bias {
		p += (t.mlpMatrices()-1)*f + h
	}
	return p
}

// RouterParams is the weights of one layer's router (0 when dense).
func (t *Transformer) RouterParams() float64 {
	if !t.MoE() {
		return 0
	}
	return float64(t.Hidden) * float64(t.Experts)
}

// LayerParams is the weights of one transformer block (a mixture-of-
// experts block when the model has experts: routed and shared).
func (t *Transformer) LayerParams() float64 {
	e := 1.0
	if t.MoE() {
		e = float64(t.Experts + t.SharedExperts)
	}
	return t.AttentionParams() + e*t.ExpertParams() + t.RouterParams() + 2*t.normParams()
}

// MLA reports multi-head latent attention.
func (t *Transformer) MLA() bool { return t.KVLoRARank > 0 }

// vDim is the value head dimension.
func (t *Transformer) vDim() int {
	if t.VHeadDim > 0 {
		return t.VHeadDim
	}
	return t.Dh()
}

// qkDim is the query / key head dimension (with the rotary dims under
// MLA).
func (t *Transformer) qkDim() int { return t.Dh() + t.RopeHeadDim }

// denseLayerParams is one of the first DenseLayers blocks.
func (t *Transformer) denseLayerParams() float64 {
	return t.AttentionParams() + t.mlpMatrices()*float64(t.Hidden)*float64(t.DenseFFN) + 2*t.normParams()
}

// moeLayers is the layers with experts (all of a MoE model's but the
// dense first ones).
func (t *Transformer) moeLayers() float64 { return float64(t.Layers - t.DenseLayers) }

// MTPParams is the multi-token-prediction modules' weights.
func (t *Transformer) MTPParams() float64 {
	h := float64(t.Hidden)
	return float64(t.MTPLayers) * (t.LayerParams() + 2*h*h + 3*t.normParams())
}

// kvElemsPerToken is the cached elements of one token in one layer on one
// GPU of tp: keys and values of its kv heads, or (MLA) the latent and the
// rotary key, which every tensor-parallel rank holds whole.
func (t *Transformer) kvElemsPerToken(tp int) float64 {
	if t.MLA() {
		return float64(t.KVLoRARank + t.RopeHeadDim)
	}
	return 2 * max(1, float64(t.KVHeads)/float64(tp)) * float64(t.Dh())
}

// EmbeddingParams is the token (and learned position) embedding.
func (t *Transformer) EmbeddingParams() float64 {
	p := float64(t.Vocab) * float64(t.Hidden)
	if t.LearnedPositions {
		p += float64(t.Seq) * float64(t.Hidden)
	}
	return p
}

// HeadParams is the final norm and the language-model head (its matrix
// only when not tied to the embedding).
func (t *Transformer) HeadParams() float64 {
	p := t.normParams()
	if !t.TiedEmbeddings {
		p += float64(t.Vocab) * float64(t.Hidden)
	}
	return p
}

// Params is the total number of weights.
func (t *Transformer) Params() float64 {
	return t.moeLayers()*t.LayerParams() + float64(t.DenseLayers)*t.denseLayerParams() + t.EmbeddingParams() + t.HeadParams()
}

// ActiveParams is the weights one token's forward pass multiplies with
// (MoE: TopK experts of each layer, not all).
func (t *Transformer) ActiveParams() float64 {
	if !t.MoE() {
		return t.Params()
	}
	inactive := float64(t.Experts-t.TopK) * t.ExpertParams()
	return t.Params() - t.moeLayers()*inactive
}

// ModelFLOPsPerToken is the training FLOPs (forward and backward, no
// recomputation) per token at sequence length seq: 6 x the multiplied
// weights (every matrix of a layer, the TopK experts, the router and the
// language-model head) plus the attention scores and their weighting,
// 12 x layers x seq x heads x head_dim (the full square: the convention of
// Megatron-LM's and PaLM's model-FLOPs formulas, which count causal
// attention unmasked).
func (t *Transformer) ModelFLOPsPerToken(seq int) float64 {
	return 3 * t.ForwardFLOPsPerToken(seq)
}

// ForwardFLOPsPerToken is the forward pass's share of ModelFLOPsPerToken.
func (t *Transformer) ForwardFLOPsPerToken(seq int) float64 {
	h, v := float64(t.Hidden), float64(t.Vocab)
	matrices := t.AttentionParams() + (t.activeExperts()+float64(t.SharedExperts))*t.ExpertParams() + t.RouterParams()
	if t.Bias { // biases are adds, not multiplies
		matrices -= float64(t.Heads*t.Dh()+2*t.KVHeads*t.Dh()) + h + t.activeExperts()*((t.mlpMatrices()-1)*float64(t.FFN)+h)
	}
	scores := 2 * float64(seq) * float64(t.Heads) * float64(t.qkDim()+t.vDim()) // Q K^T and P V
	perLayer := 2*matrices + scores
	dense := 2*(t.AttentionParams()+t.mlpMatrices()*h*float64(t.DenseFFN)) + scores
	return t.moeLayers()*perLayer + float64(t.DenseLayers)*dense + 2*h*v
}

// String summarizes t in one line.
func (t *Transformer) String() string {
	var b strings.Builder
	if t.Name != "" {
		fmt.Fprintf(&b, "%s: ", t.Name)
	}
	fmt.Fprintf(&b, "%d layers, hidden %d, %d heads", t.Layers, t.Hidden, t.Heads)
	if t.KVHeads != t.Heads {
		fmt.Fprintf(&b, " (%d kv)", t.KVHeads)
	}
	mlp := "gelu"
	if t.Gated {
		mlp = "swiglu"
	}
	fmt.Fprintf(&b, ", ffn %d %s", t.FFN, mlp)
	if t.MoE() {
		fmt.Fprintf(&b, ", %d experts top-%d", t.Experts, t.TopK)
		if t.SharedExperts > 0 {
			fmt.Fprintf(&b, " + %d shared", t.SharedExperts)
		}
		if t.DenseLayers > 0 {
			fmt.Fprintf(&b, " (first %d layers dense, ffn %d)", t.DenseLayers, t.DenseFFN)
		}
	}
	if t.MLA() {
		fmt.Fprintf(&b, ", latent attention (kv latent %d + rope %d", t.KVLoRARank, t.RopeHeadDim)
		if t.QLoRARank > 0 {
			fmt.Fprintf(&b, ", q latent %d", t.QLoRARank)
		}
		b.WriteString(")")
	}
	if t.MTPLayers > 0 {
		fmt.Fprintf(&b, ", %d MTP module(s)", t.MTPLayers)
	}
	fmt.Fprintf(&b, ", vocab %d, seq %d, %s parameters", t.Vocab, t.Seq, humanCount(t.Params()))
	if t.MoE() {
		fmt.Fprintf(&b, " (%s active)", humanCount(t.ActiveParams()))
	}
	return b.String()
}

// countSuffixes are the short scale's suffixes model sizes are named by.
var countSuffixes = [...]struct {
	scale  float64
	suffix string
}{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}}

// humanCount formats n as "405B", "7.2M".
func humanCount(n float64) string {
	for _, c := range countSuffixes {
		if n >= c.scale {
			return fmt.Sprintf("%.3g%s", n/c.scale, c.suffix)
		}
	}
	return fmt.Sprintf("%.0f", n)
}
