package llm

// This file implements serving a decoder transformer: the prefill of a
// batch of prompts (one forward over every prompt token, flash attention,
// the head on each sequence's last token) and the decode steps after it
// (one token per sequence per step: the weights and the KV cache streamed
// from memory), under tensor parallelism inside a replica and replicas
// over the rest of the cluster; the time to first token, the time per
// output token, tokens/s per GPU and the memory (weights, KV cache, the
// prefill's working set). It does not model continuous batching's mix of
// prefill and decode in one step, speculative decoding, paged-attention
// fragmentation or pipeline-parallel serving.

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/cost"
)

// ServeOptions is one serving configuration (`profile --cluster --serve`).
type ServeOptions struct {
	// TP is the tensor-parallel degree of one replica (default 1); the
	// cluster's GPUs / TP replicas serve independent batches.
	TP int
	// Batch is the sequences decoded together (default 1; 0 with
	// MaxBatch: the most that fit).
	Batch int
	// MaxBatch serves the largest batch whose KV cache fits.
	MaxBatch bool
	// Prompt and Output are the input and generated tokens per sequence
	// (defaults 1024 and 256).
	Prompt, Output int
	// DType is the weights' and KV cache's type and the arithmetic's
	// (default bfloat16; float16; float8e4m3fn: 1-byte weights and cache).
	DType ir.DType
	// MemoryGB overrides the GPU's memory (0: the preset's).
	MemoryGB float64
	// Load, when set, runs requests through an in-flight-batching
	// scheduler (llm_serve_run.go) instead of one static batch.
	Load *ServeLoad
}

// ServeResult is a predicted serving run.
type ServeResult struct {
	Model    string `json:"model"`
	Cluster  string `json:"cluster"`
	GPU      string `json:"gpu"`
	GPUs     int    `json:"gpus"`
	TP       int    `json:"tp"`
	Replicas int    `json:"replicas"`
	Batch    int    `json:"batch"`
	Prompt   int    `json:"prompt"`
	Output   int    `json:"output"`
	DType    string `json:"dtype"`

	// TTFTMs is the prefill of the whole batch: the time to first token.
	TTFTMs float64 `json:"ttft_ms"`
	// TPOTMs is the mean decode step (time per output token), at the
	// mean context length; DecodeFirstMs and DecodeLastMs bound it.
	TPOTMs        float64 `json:"tpot_ms"`
	DecodeFirstMs float64 `json:"decode_first_ms"`
	DecodeLastMs  float64 `json:"decode_last_ms"`
	// RequestMs is one request's latency: TTFT + (Output-1) x TPOT.
	RequestMs float64 `json:"request_ms"`
	// TokensPerS counts generated tokens over the cluster (batches run
	// back to back on each replica); per GPU divides by the GPUs.
	TokensPerS       float64 `json:"tokens_per_s"`
	TokensPerSPerGPU float64 `json:"tokens_per_s_per_gpu"`
	// DecodeTokensPerSPerGPU leaves the prefill out (a disaggregated
	// decode pool).
	DecodeTokensPerSPerGPU float64 `json:"decode_tokens_per_s_per_gpu"`
	// TPCommMs is the decode step's tensor-parallel all-reduces.
	TPCommMs float64 `json:"tp_comm_ms"`
	// MaxBatch is the largest batch whose KV cache fits.
	MaxBatch int    `json:"max_batch"`
	Memory   Memory `json:"memory_per_gpu"`
	// Requests is the request-level run (ServeOptions.Load).
	Requests *RequestStats `json:"requests,omitempty"`
	// Search is the layout search that chose this run (SearchServe).
	Search *ServeSearch `json:"search,omitempty"`

	cluster.Caveats
}

// DefaultPrompt and DefaultOutput are ServeOptions' Prompt and Output
// when not given.
const (
	DefaultPrompt = 1024
	DefaultOutput = 256
)

// maxServeTokens bounds prompt + output (a context beyond it is an input
// error, not a model).
const maxServeTokens = 1 << 24

func (o ServeOptions) withDefaults(t *Transformer, gpus int) (ServeOptions, error) {
	if o.TP < 0 || o.Batch < 0 || o.Prompt < 0 || o.Output < 0 || o.MemoryGB < 0 {
		return o, fmt.Errorf("serving tp, batch, prompt, output and memory must be >= 0")
	}
	if o.TP == 0 {
		o.TP = 1
	}
	if o.Prompt == 0 {
		o.Prompt = DefaultPrompt
	}
	if o.Output == 0 {
		o.Output = DefaultOutput
	}
	if o.Prompt+o.Output > maxServeTokens {
		return o, fmt.Errorf("prompt %d + output %d tokens is more than %d", o.Prompt, o.Output, maxServeTokens)
	}
	if o.Batch == 0 && !o.MaxBatch {
		o.Batch = 1
	}
	if gpus%o.TP != 0 {
		return o, fmt.Errorf("tp %d does not divide the cluster's %d GPUs", o.TP, gpus)
	}
	var err error
	if o.DType, err = llmDType("serving", o.DType); err != nil {
		return o, err
	}
	return o, t.checkLayout(LLMOptions{TP: o.TP, PP: 1, DP: 1, CP: 1, EP: 1, VirtualStages: 1})
}

// SimulateServe predicts serving t on c under o.
func SimulateServe(t *Transformer, c *cluster.Cluster, o ServeOptions) (*ServeResult, error) {
	if t == nil || c == nil {
		return nil, fmt.Errorf("no model or cluster")
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if o.Load != nil {
		return simulateServeLoad(t, c, o)
	}
	o, err := o.withDefaults(t, c.GPUs())
	if err != nil {
		return nil, err
	}
	k := newKernels(c.GPU, o.DType)
	res := &ServeResult{Model: t.Name, Cluster: c.String(), GPU: c.GPU.Name, GPUs: c.GPUs(), TP: o.TP, Replicas: c.GPUs() / o.TP,
		Prompt: o.Prompt, Output: o.Output, DType: o.DType.String()}
	capacity := c.GPU.MemoryGB
	if o.MemoryGB > 0 {
		capacity = o.MemoryGB
	}
	res.MaxBatch = serveMaxBatch(t, o, k.bytes, capacity)
	if o.MaxBatch {
		o.Batch = max(1, res.MaxBatch)
	}
	res.Batch = o.Batch
	tpG := c.Group(o.TP, 1)
	B := float64(o.Batch)

	// prefill: the layers' forward over every prompt token
	s := layerShape{tp: o.TP, cp: 1, ep: 1, mb: o.Batch, seq: o.Prompt, attn: FlashAttention, dtype: o.DType}
	lt := k.layer(t, s, false)
	T := B * float64(o.Prompt)
	h := float64(t.Hidden)
	prefill := float64(t.Layers) * (lt.FwdS + 2*c.AllReduceS(k.bytes*T*h, tpG))
	prefill += k.headStep(t, o.TP, B) + c.AllReduceS(4*B*float64(t.Vocab)/float64(o.TP), tpG) // logits gathered
	res.TTFTMs = prefill * 1e3

	// decode at the first, mean and last context lengths
	step := func(ctx float64) (total, comm float64) {
		comm = float64(t.Layers) * 2 * c.AllReduceS(k.bytes*B*h, tpG)
		total = float64(t.Layers)*k.decodeLayer(t, o.TP, B, ctx) + k.headStep(t, o.TP, B) + comm
		return total, comm
	}
	first, _ := step(float64(o.Prompt))
	last, _ := step(float64(o.Prompt + o.Output - 1))
	mean, comm := step(float64(o.Prompt) + float64(o.Output-1)/2)
	res.DecodeFirstMs, res.DecodeLastMs, res.TPOTMs, res.TPCommMs = first*1e3, last*1e3, mean*1e3, comm*1e3
	req := prefill + float64(o.Output-1)*mean
	res.RequestMs = req * 1e3
	n := float64(c.GPUs())
	res.TokensPerS = float64(res.Replicas) * B * float64(o.Output) / req
	res.TokensPerSPerGPU = res.TokensPerS / n
	res.DecodeTokensPerSPerGPU = B / mean / float64(o.TP)
	res.Memory = serveMemory(t, o, k.bytes, capacity)
	res.Assumptions = []string{
		fmt.Sprintf("model %s", t),
		fmt.Sprintf("kernels costed by wolong's cost model on the %s preset: prefill as the training forward (flash attention, causal), decode as GEMMs of batch rows streaming the weights and an attention streaming the KV cache, one launch per kernel (CUDA graphs: no host dispatch)", c.GPU.Name),
		fmt.Sprintf("tensor parallelism inside a replica: two all-reduces of the hidden state per layer (%s)", tpDomain(c, o.TP)),
		"static batching: the batch's prompts prefill together, then decode in lockstep; no continuous batching, speculative decoding or paged-cache fragmentation",
	}
	if !res.Memory.Fits {
		res.Warnings = append(res.Warnings, fmt.Sprintf("does not fit: %s (at most %d sequences of %d tokens fit)", res.Memory, res.MaxBatch, o.Prompt+o.Output))
	}
	if g := c.Group(o.TP, 1); g.Domains() > 1 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("tp %d spans %d NVLink domains: every layer's all-reduces cross the network", o.TP, g.Domains()))
	}
	return res, nil
}

func tpDomain(c *cluster.Cluster, tp int) string {
	if g := c.Group(tp, 1); g.Domains() > 1 {
		return "across NVLink domains"
	}
	return "over NVLink"
}

// decodeLayer is one layer's forward for b sequences of one new token each
// with ctx tokens cached.
func (k *kernels) decodeLayer(t *Transformer, tp int, b, ctx float64) float64 {
	k.s, k.flops = 0, 0
	p := float64(tp)
	h, f, d := float64(t.Hidden), float64(t.FFN), float64(t.Dh())
	hq := float64(t.Heads) / p
	hkv := math.Max(1, float64(t.KVHeads)/p)
	e := k.bytes
	k.memory(cost.Normalization, 2*e*b*h, 5*b*h)
	k.linear(b, (hq+2*hkv)*d, h, false)
	k.memory(cost.Elementwise, e*b*(hq+3*hkv)*d, 6*b*(hq+hkv)*d) // rotary, append to the cache
	// attention over the cache: read K and V, the query and output; split
	// over sequences, kv heads and 256-token blocks of the cache (flash-
	// decoding's split-KV)
	af := 4 * b * hq * ctx * d
	k.run(cost.Cost{Class: cost.Attention, FLOPs: af, Bytes: e * (2*b*ctx*hkv*d + 2*b*hq*d),
		Work: []cost.Work{{FLOPs: af, Tiles: b * hkv * math.Ceil(ctx/256), Count: 1}}})
	k.linear(b, h, hq*d, false)
	k.memory(cost.Elementwise, 3*e*b*h, b*h)
	k.memory(cost.Normalization, 2*e*b*h, 5*b*h)
	up := 1.0
	if t.Gated {
		up = 2
	}
	if t.MoE() {
		E, K := float64(t.Experts), float64(t.TopK)
		k.linear(b, E, h, false)
		touched := math.Min(E, b*K) // experts that receive a token this step
		per := b * K / touched
		for i := 0; i < int(math.Min(touched, 1024)); i++ {
			k.linear(per, up*f/p, h, false)
			k.memory(cost.Elementwise, e*per*f/p*(up+1), 8*per*f/p)
			k.linear(per, h, f/p, false)
		}
	} else {
		k.linear(b, up*f/p, h, false)
		k.memory(cost.Elementwise, e*b*f/p*(up+1), 8*b*f/p)
		k.linear(b, h, f/p, false)
	}
	k.memory(cost.Elementwise, 3*e*b*h, b*h)
	return k.s
}

// headStep is the final norm and the head on b tokens (vocabulary split
// over tp).
func (k *kernels) headStep(t *Transformer, tp int, b float64) float64 {
	k.s = 0
	h := float64(t.Hidden)
	k.memory(cost.Normalization, 2*k.bytes*b*h, 5*b*h)
	k.linear(b, float64(t.Vocab)/float64(tp), h, false)
	return k.s
}

// kvBytesPerToken is one token's keys and values on one GPU.
func kvBytesPerToken(t *Transformer, tp int, e float64) float64 {
	return float64(t.Layers) * t.kvElemsPerToken(tp) * e
}

// serveFixedBytes is what a serving GPU holds besides the KV cache: the
// weights (split over tp; embeddings and head too) and the working set of
// the whole batch's prefill at once (hidden states, the MLP's
// intermediate, fp32 logits of the last tokens; a server that chunks its
// prefills needs less).
func serveFixedBytes(t *Transformer, tp, batch, prompt int, e float64) (weights, work float64) {
	weights = t.Params() / float64(tp) * e
	T := float64(batch) * float64(prompt)
	up := 1.0
	if t.Gated {
		up = 2
	}
	work = e*T*(4*float64(t.Hidden)+(up+1)*float64(t.FFN)/float64(tp)) + 4*float64(batch)*float64(t.Vocab)/float64(tp)
	return weights, work
}

// serveMemory is one GPU's memory while serving.
func serveMemory(t *Transformer, o ServeOptions, e, capacity float64) Memory {
	w, work := serveFixedBytes(t, o.TP, o.Batch, o.Prompt, e)
	var m Memory
	m.WeightsGB = w / 1e9
	m.ActivationsGB = work / 1e9
	m.KVCacheGB = kvBytesPerToken(t, o.TP, e) * float64(o.Batch) * float64(o.Prompt+o.Output) / 1e9
	m.CommBuffersGB = 2 * 16 * 4 * (1 << 20) / 1e9 // one communicator's NCCL buffers
	m.RuntimeGB = runtimeGB
	m.sum(capacity)
	return m
}

// serveMaxBatch is the largest batch that fits (0: not even one).
func serveMaxBatch(t *Transformer, o ServeOptions, e, capacity float64) int {
	fits := func(b int) bool {
		oo := o
		oo.Batch = b
		return serveMemory(t, oo, e, capacity).Fits
	}
	if !fits(1) {
		return 0
	}
	lo, hi := 1, 2
	for hi < 1<<24 && fits(hi) {
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
