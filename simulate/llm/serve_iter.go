package llm

// This file costs one serving iteration for its exact mix (the scheduler
// of llm_serve_sched.go asks): the prefill chunks and decodes of the
// iteration run as one forward over all their tokens, as vLLM's and
// TensorRT-LLM's in-flight batching run them: every GEMM on the
// iteration's tokens at once (FP8 / FP4 weights where the precision says
// so), attention per sequence over its cache (chunked-prefill attention
// for the prompt chunks, paged decode attention for the decodes), the
// norms and elementwise kernels in bf16, two tensor-parallel all-reduces
// per layer, the head and the sampling on the sequences that sample, and
// the runtime's host time per iteration and per sequence.

import (
	"math"

	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/cost"
)

// ServeRuntime is what a serving runtime adds to the kernels and how its
// scheduler is configured by default.
type ServeRuntime struct {
	Name string `json:"name"`
	// IterHostUs and SeqHostUs are the host time of an iteration (the
	// scheduler, input preparation, launches not in a CUDA graph, the
	// sampler) and of each sequence in it (its bookkeeping, sampling and
	// detokenization), us. Overlap: the host work of the next iteration
	// runs while the GPU runs this one (TensorRT-LLM's overlap scheduler,
	// vLLM's async scheduling): only the part longer than the GPU's is
	// exposed.
	IterHostUs float64 `json:"iter_host_us"`
	SeqHostUs  float64 `json:"seq_host_us"`
	Overlap    bool    `json:"overlap"`
	// Scheduler defaults: sequences at once, tokens per iteration, tokens
	// per KV block, the fraction of the memory left after the weights
	// and the working set that the KV cache takes, chunked prefill.
	MaxSeqs          int     `json:"max_seqs"`
	MaxBatchedTokens int     `json:"max_batched_tokens"`
	BlockSize        int     `json:"block_size"`
	KVFraction       float64 `json:"kv_fraction"`
	ChunkedPrefill   bool    `json:"chunked_prefill"`
	// ReserveFull: admission reserves a request's whole KV cache (no
	// preemption; TensorRT-LLM's GUARANTEED_NO_EVICT).
	ReserveFull bool   `json:"reserve_full"`
	Source      string `json:"source"`
}

// serveRuntimes are the runtime presets; the host times are assumed
// figures (docs/serving.md), not fitted (the trtllm runtime's
// overlap scheduler hides them behind every iteration of the anchors).
var serveRuntimes = []ServeRuntime{
	{Name: "trtllm", IterHostUs: trtllmIterHostUs, SeqHostUs: trtllmSeqHostUs, Overlap: true, MaxSeqs: 2048, MaxBatchedTokens: 8192, BlockSize: 32, KVFraction: 0.9, ChunkedPrefill: true, ReserveFull: true,
		Source: "TensorRT-LLM 0.19-1.0 PyTorch backend (trtllm-bench throughput): max_batch_size 2048, max_num_tokens 8192, tokens_per_block 32, kv_cache_free_gpu_mem_fraction 0.9, chunked context, GUARANTEED_NO_EVICT capacity scheduling, overlap scheduler, CUDA graphs for decode; host times assumed"},
	{Name: "vllm", IterHostUs: vllmIterHostUs, SeqHostUs: vllmSeqHostUs, Overlap: false, MaxSeqs: 256, MaxBatchedTokens: 8192, BlockSize: 16, KVFraction: 0.9, ChunkedPrefill: true,
		Source: "vLLM v1 engine defaults: max_num_seqs 256, max_num_batched_tokens 8192 with chunked prefill, block_size 16, gpu_memory_utilization 0.9; host times assumed"},
}

// Assumed host times (docs/serving.md): per iteration and per scheduled
// sequence, us.
const (
	trtllmIterHostUs = 1500
	trtllmSeqHostUs  = 2
	vllmIterHostUs   = 2000
	vllmSeqHostUs    = 4
)

// ServeRuntimeNames lists the runtime presets.
func ServeRuntimeNames() []string {
	out := make([]string, len(serveRuntimes))
	for i := range serveRuntimes {
		out[i] = serveRuntimes[i].Name
	}
	return out
}

// ServeRuntimePreset returns a copy of the runtime called name ("":
// trtllm).
func ServeRuntimePreset(name string) (*ServeRuntime, error) {
	if name == "" {
		name = serveRuntimes[0].Name
	}
	for i := range serveRuntimes {
		if serveRuntimes[i].Name == name {
			r := serveRuntimes[i]
			return &r, nil
		}
	}
	v, err := parseName("serving runtime", name, ServeRuntimeNames()...)
	if err != nil {
		return nil, err
	}
	return ServeRuntimePreset(v)
}

// serveCoster costs iterations of one replica: tp GPUs per stage, the
// model's layers over pp stages run back to back (an iteration's latency
// crosses every stage; the pp micro-batches in flight are the
// scheduler's concern).
type serveCoster struct {
	t      *Transformer
	c      *cluster.Cluster
	tp, pp int
	prec   servePrecision
	rt     *ServeRuntime
	k      *kernels
	tpG    cluster.RankGroup
	cross  bool // pipeline sends cross machines
}

func newServeCoster(t *Transformer, c *cluster.Cluster, tp, pp int, prec servePrecision, rt *ServeRuntime) *serveCoster {
	return &serveCoster{t: t, c: c, tp: tp, pp: pp, prec: prec, rt: rt, k: newKernels(c.GPU, prec.Weights), tpG: c.Group(tp, 1), cross: tp*pp > c.GPUsPerMachine}
}

// mixSums are the sums over a mix the kernels need.
type mixSums struct {
	T                  float64 // tokens
	prefFLOPUnits      float64 // sum over chunks of tokens x (past + tokens / 2)
	prefKV, prefTiles  float64 // keys read by the chunks; their query tiles
	decCtx, decTiles   float64 // cache tokens read by the decodes; their split-KV tiles
	decodes, prefills  float64
	sampled            float64
	prefTokens         float64
	decodeSeqs, chunks int
}

func sumsOf(m *iterMix) mixSums {
	var s mixSums
	for _, c := range m.Prefill {
		n, p := float64(c.Tokens), float64(c.Past)
		s.prefTokens += n
		s.prefFLOPUnits += n * (p + n/2)
		s.prefKV += p + n
		s.prefTiles += math.Ceil(n / 128)
	}
	for _, ctx := range m.Decode {
		s.decCtx += float64(ctx)
		s.decTiles += math.Ceil(float64(ctx) / 256)
	}
	s.decodes = float64(len(m.Decode))
	s.prefills = float64(len(m.Prefill))
	s.T = s.prefTokens + s.decodes
	s.sampled = float64(m.Sampled)
	return s
}

// iteration costs m.
func (sc *serveCoster) iteration(m *iterMix) iterTime {
	s := sumsOf(m)
	var it iterTime
	if s.T == 0 {
		return it
	}
	layer := sc.layerS(s)
	layers := float64(sc.t.Layers)
	it.ComputeS = layers*layer + sc.headS(s)
	h := float64(sc.t.Hidden)
	it.CommS = layers * 2 * sc.c.AllReduceS(sc.prec.ab*s.T*h, sc.tpG)
	if sc.pp > 1 {
		it.CommS += float64(sc.pp-1) * sc.c.SendS(sc.prec.ab*s.T*h/float64(sc.tp), sc.cross)
	}
	if sc.tp > 1 && s.sampled > 0 {
		it.CommS += sc.c.AllReduceS(4*s.sampled*float64(sc.t.Vocab)/float64(sc.tp), sc.tpG) / 2 // logits all-gathered
	}
	host := (sc.rt.IterHostUs + sc.rt.SeqHostUs*(s.decodes+s.prefills)) * 1e-6
	if sc.rt.Overlap {
		host = math.Max(0, host-(it.ComputeS+it.CommS))
	}
	it.HostS = host
	return it
}

// gemm runs [m x kk] x [kk x n] with the precision's weights.
func (sc *serveCoster) gemm(m, n, kk float64) {
	k, p := sc.k, sc.prec
	f := 2 * m * n * kk
	k.run(cost.Cost{Class: cost.MatMul, FLOPs: f * p.gemmScale, DType: p.gemmDT,
		Bytes: p.wb*(m*kk+kk*n) + p.ab*m*n,
		Work:  []cost.Work{{FLOPs: f * p.gemmScale, Tiles: k.tiles(1, m, n), Count: 1}}})
	k.flops += f - f*p.gemmScale
}

// act runs a bf16 memory-bound kernel.
func (sc *serveCoster) act(c cost.Class, bytes, flops float64) {
	sc.k.run(cost.Cost{Class: c, Bytes: bytes, FLOPs: flops, DType: sc.prec.Attention})
}

// layerS is one layer's kernels for the mix on one GPU, averaged over
// the layers (a model with dense first layers: their share of dense
// MLPs).
func (sc *serveCoster) layerS(s mixSums) float64 {
	t, k := sc.t, sc.k
	k.s, k.flops = 0, 0
	T := s.T
	h := float64(t.Hidden)
	a := sc.prec.ab
	sc.act(cost.Normalization, 2*a*T*h, 5*T*h) // the norm (quantizing its output where the GEMM is fp8)
	if t.MLA() {
		sc.mlaAttention(s)
	} else {
		sc.attention(s)
	}
	sc.act(cost.Elementwise, 3*a*T*h, T*h)     // residual add
	sc.act(cost.Normalization, 2*a*T*h, 5*T*h) // norm
	before := k.s
	sc.mlp(T, t.MoE())
	if t.DenseLayers > 0 {
		moe := k.s - before
		k.s = before
		sc.mlp(T, false)
		dense := k.s - before
		f := float64(t.DenseLayers) / float64(t.Layers)
		k.s = before + f*dense + (1-f)*moe
	}
	sc.act(cost.Elementwise, 3*a*T*h, T*h)
	return k.s
}

// attention is grouped-query attention: the QKV projection, rotary and
// cache append, the prefill chunks' and decodes' attention, the output
// projection.
func (sc *serveCoster) attention(s mixSums) {
	t, k, p := sc.t, sc.k, sc.prec
	T, tp := s.T, float64(sc.tp)
	h, d := float64(t.Hidden), float64(t.Dh())
	hq := float64(t.Heads) / tp
	hkv := math.Max(1, float64(t.KVHeads)/tp)
	a := p.ab
	sc.gemm(T, (hq+2*hkv)*d, h)
	sc.act(cost.Elementwise, a*T*(hq+hkv)*d*2+p.kb*T*2*hkv*d, 6*T*(hq+hkv)*d) // rotary, cache append
	if s.prefills > 0 {
		// chunked-prefill attention: each chunk's queries over its cache
		// and itself (causal inside the chunk)
		af := 4 * hq * d * s.prefFLOPUnits
		k.run(cost.Cost{Class: cost.Attention, FLOPs: af, DType: p.Attention, Bytes: p.kb*2*hkv*d*s.prefKV + 2*a*hq*d*s.prefTokens,
			Work: []cost.Work{{FLOPs: af, Tiles: s.prefTiles * hq, Count: 1}}})
	}
	if s.decodes > 0 {
		// paged decode attention: each sequence's one query (per head)
		// over its cache, split over kv heads and 256-token blocks
		af := 4 * hq * d * s.decCtx
		k.run(cost.Cost{Class: cost.Attention, FLOPs: af, DType: p.Attention, Bytes: p.kb*2*hkv*d*s.decCtx + 2*a*hq*d*s.decodes,
			Work: []cost.Work{{FLOPs: af, Tiles: s.decTiles * hkv, Count: 1}}})
	}
	sc.gemm(T, h, hq*d)
}

// mlaAttention is multi-head latent attention as vLLM and TensorRT-LLM
// run it: the query (through its latent) and the compressed key/value
// latent with the shared rotary key projected for every token; prefill
// chunks expand their cache's latents to per-head keys and values and run
// flash attention over them; decodes absorb the key and value up-
// projections into the query and output (attention over the latent
// itself, every head reading the same cached latent once).
func (sc *serveCoster) mlaAttention(s mixSums) {
	t, k, p := sc.t, sc.k, sc.prec
	T, tp := s.T, float64(sc.tp)
	h := float64(t.Hidden)
	hq := float64(t.Heads) / tp
	qr, kvr, r := float64(t.QLoRARank), float64(t.KVLoRARank), float64(t.RopeHeadDim)
	dn, vd := float64(t.Dh()), float64(t.vDim())
	qk := dn + r
	a := p.ab
	if qr > 0 {
		sc.gemm(T, qr, h)
		sc.act(cost.Normalization, 2*a*T*qr, 5*T*qr)
		sc.gemm(T, hq*qk, qr)
	} else {
		sc.gemm(T, hq*qk, h)
	}
	sc.gemm(T, kvr+r, h) // the latent and the rotary key (every rank computes it whole)
	sc.act(cost.Normalization, 2*a*T*kvr, 5*T*kvr)
	sc.act(cost.Elementwise, a*T*(hq+1)*r*2+p.kb*T*(kvr+r), 6*T*(hq+1)*r) // rotary, cache append
	if s.prefills > 0 {
		sc.gemm(s.prefKV, hq*(dn+vd), kvr) // expand the chunks' cached latents
		af := 2 * hq * (qk + vd) * s.prefFLOPUnits
		k.run(cost.Cost{Class: cost.Attention, FLOPs: af, DType: p.Attention, Bytes: a*hq*(qk+vd)*s.prefKV + p.kb*(kvr+r)*s.prefKV + 2*a*hq*qk*s.prefTokens,
			Work: []cost.Work{{FLOPs: af, Tiles: s.prefTiles * hq, Count: 1}}})
	}
	if s.decodes > 0 {
		n := s.decodes
		k.gemm(hq, n, kvr, dn) // absorb W_UK into each head's query
		af := 2 * hq * s.decCtx * (kvr + r + kvr)
		k.run(cost.Cost{Class: cost.Attention, FLOPs: af, DType: p.Attention, Bytes: p.kb*(kvr+r)*s.decCtx + 2*a*hq*(kvr+r)*n,
			Work: []cost.Work{{FLOPs: af, Tiles: s.decTiles * math.Ceil(hq/16), Count: 1}}})
		k.gemm(hq, n, vd, kvr) // W_UV on each head's latent output
	}
	sc.gemm(T, h, hq*vd)
}

// mlp is the MLP of a layer: the routed and shared experts, or a dense
// MLP (DenseFFN when the model also has experts).
func (sc *serveCoster) mlp(T float64, experts bool) {
	t, k := sc.t, sc.k
	tp := float64(sc.tp)
	h, f := float64(t.Hidden), float64(t.FFN)
	a := sc.prec.ab
	up := 1.0
	if t.Gated {
		up = 2
	}
	if !experts {
		if t.MoE() {
			f = float64(t.DenseFFN)
		}
		sc.gemm(T, up*f/tp, h)
		sc.act(cost.Elementwise, a*T*f/tp*(up+1), 8*T*f/tp)
		sc.gemm(T, h, f/tp)
		return
	}
	E, K := float64(t.Experts), float64(t.TopK)
	sc.gemm(T, E, h)
	touched := math.Min(E, T*K)
	per := T * K / touched
	before := k.s
	sc.gemm(per, up*f/tp, h)
	sc.act(cost.Elementwise, a*per*f/tp*(up+1), 8*per*f/tp)
	sc.gemm(per, h, f/tp)
	k.s += (touched - 1) * (k.s - before)
	if n := float64(t.SharedExperts); n > 0 {
		sc.gemm(T, up*n*f/tp, h)
		sc.act(cost.Elementwise, a*T*n*f/tp*(up+1), 8*T*n*f/tp)
		sc.gemm(T, h, n*f/tp)
	}
	sc.act(cost.Elementwise, 2*a*T*K*h, T*K*h) // permute, combine
}

// headS is the final norm, the head and the sampler on the sequences
// that sample.
func (sc *serveCoster) headS(s mixSums) float64 {
	if s.sampled == 0 {
		return 0
	}
	k := sc.k
	k.s = 0
	h, v := float64(sc.t.Hidden), float64(sc.t.Vocab)/float64(sc.tp)
	sc.act(cost.Normalization, 2*sc.prec.ab*s.sampled*h, 5*s.sampled*h)
	sc.gemm(s.sampled, v, h)
	sc.act(cost.Elementwise, 3*4*s.sampled*v, 5*s.sampled*v) // softmax / top-k in fp32
	return k.s
}
