package llm

// This file implements request-level serving (`profile --serve` with
// --requests, --rate or --workload): a workload of requests through a
// deployment of replicas (each tp x pp GPUs; pipeline stages run as pp
// virtual engines, as vLLM and TensorRT-LLM run pipeline-parallel
// serving), behind a router, or through disaggregated prefill and decode
// pools with the KV cache sent between them; every replica an iteration-
// level scheduler (llm_serve_sched.go) whose iterations are costed for
// their exact mix (llm_serve_iter.go). It reports the latency
// distributions, throughput, goodput under SLOs, KV utilisation and
// preemptions.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cluster"
)

// Router assigns requests to data-parallel replicas.
type Router string

// Routers.
const (
	RouteRoundRobin  Router = "round-robin"
	RouteLeastLoaded Router = "least-loaded" // the replica with the fewest requests queued or running
)

// ParseRouter types --router ("" is round-robin).
func ParseRouter(s string) (Router, error) {
	if s == "" {
		return RouteRoundRobin, nil
	}
	return parseName("router", s, RouteRoundRobin, RouteLeastLoaded)
}

// SLO is a latency objective: a request meets it when its time to first
// token and its mean time per output token are both within (0: no bound).
type SLO struct {
	TTFTMs float64 `json:"ttft_ms"`
	TPOTMs float64 `json:"tpot_ms"`
}

// ServeLoad makes ServeOptions a request-level simulation.
type ServeLoad struct {
	// Requests is the number generated (ignored with Workload); Rate the
	// Poisson arrival rate, requests/s (0 or +Inf: all at once, the
	// offline / max-load scenario).
	Requests int
	Rate     float64
	Workload []WorkloadRequest
	// LengthDist varies the prompt and output lengths about ServeOptions'
	// Prompt and Output; PrefixTokens > 0 gives every generated prompt the
	// same first tokens.
	LengthDist   LengthDist
	PrefixTokens int
	Seed         uint64
	// Runtime is the serving runtime (nil: trtllm); the scheduler fields
	// override its defaults (0: the runtime's).
	Runtime          *ServeRuntime
	MaxSeqs          int
	MaxBatchedTokens int
	BlockSize        int
	KVFraction       float64
	NoChunkedPrefill bool
	// MaxTokens is each request's max_tokens (0: its output length): what
	// a reserving scheduler (trtllm) sets aside for its output.
	MaxTokens     int
	Preemption    Preemption
	PrefixCaching bool
	// PP is the pipeline-parallel degree of a replica (0: 1); Replicas
	// the data-parallel replicas (0: the GPUs / (tp x pp)); Router how
	// requests reach them.
	PP       int
	Replicas int
	Router   Router
	// DisaggPrefill and DisaggDecode > 0 split the replicas into a
	// prefill pool and a decode pool (--disagg P:D).
	DisaggPrefill, DisaggDecode int
	SLO                         SLO
	// KV is the KV cache's type (Undefined: as the weights' precision
	// says); FP8Attention runs attention in fp8.
	KV           ir.DType
	FP8Attention bool
	// KeepIterations keeps every iteration for a trace.
	KeepIterations bool
}

// Dist is a latency distribution, ms.
type Dist struct {
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// distOf summarizes xs (seconds; sorted in place).
func distOf(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	sort.Float64s(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	pct := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(xs)))) - 1
		return xs[max(0, min(len(xs)-1, i))] * 1e3
	}
	return Dist{MeanMs: sum / float64(len(xs)) * 1e3, P50Ms: pct(0.5), P90Ms: pct(0.9), P99Ms: pct(0.99), MaxMs: xs[len(xs)-1] * 1e3}
}

// ServeTimeParts splits the replicas' time, summed over engines, ms:
// kernels, exposed collectives, exposed host time, swaps, and idle time
// (an engine waiting for requests) up to the end of the run.
type ServeTimeParts struct {
	ComputeMs float64 `json:"compute_ms"`
	CommMs    float64 `json:"comm_ms"`
	HostMs    float64 `json:"host_ms"`
	SwapMs    float64 `json:"swap_ms"`
	IdleMs    float64 `json:"idle_ms"`
}

// RequestStats is a request-level serving run.
type RequestStats struct {
	Requests int `json:"requests"`
	// RateRPS is the arrival rate (0: all at once, offline).
	RateRPS    float64 `json:"rate_rps"`
	Offline    bool    `json:"offline"`
	LengthDist string  `json:"length_dist"`
	Runtime    string  `json:"runtime"`
	Precision  string  `json:"precision"`
	// The scheduler of each engine.
	MaxSeqs          int    `json:"max_seqs"`
	MaxBatchedTokens int    `json:"max_batched_tokens"`
	ChunkedPrefill   bool   `json:"chunked_prefill"`
	BlockSize        int    `json:"block_size"`
	KVBlocks         int    `json:"kv_blocks"`
	KVTokens         int    `json:"kv_tokens"`
	Preemption       string `json:"preemption"`
	PrefixCaching    bool   `json:"prefix_caching"`
	// The deployment.
	PP       int    `json:"pp"`
	Replicas int    `json:"replicas"`
	Engines  int    `json:"engines"`
	Router   string `json:"router"`
	Disagg   string `json:"disagg,omitempty"`

	TTFT Dist `json:"ttft"`
	// TPOT is each request's mean time per output token after the first
	// (its inter-token latency); MaxGap the longest wait between two of a
	// request's tokens; E2E the request latency.
	TPOT   Dist `json:"tpot"`
	MaxGap Dist `json:"max_gap"`
	E2E    Dist `json:"e2e"`

	DurationS              float64 `json:"duration_s"`
	RequestsPerS           float64 `json:"requests_per_s"`
	OutputTokensPerS       float64 `json:"output_tokens_per_s"`
	TotalTokensPerS        float64 `json:"total_tokens_per_s"`
	OutputTokensPerSPerGPU float64 `json:"output_tokens_per_s_per_gpu"`
	TotalTokensPerSPerGPU  float64 `json:"total_tokens_per_s_per_gpu"`

	SLO *SLO `json:"slo,omitempty"`
	// SLOAttainment is the fraction of requests meeting the SLO; goodput
	// their rate and their output tokens' (per GPU too).
	SLOAttainment        float64 `json:"slo_attainment"`
	GoodputRPS           float64 `json:"goodput_rps"`
	GoodputTokensPerS    float64 `json:"goodput_tokens_per_s"`
	GoodputTokensPerSGPU float64 `json:"goodput_tokens_per_s_per_gpu"`

	KVUtilMean      float64 `json:"kv_util_mean"`
	KVUtilPeak      float64 `json:"kv_util_peak"`
	Preemptions     int     `json:"preemptions"`
	Swaps           int     `json:"swaps"`
	PrefixHitTokens int     `json:"prefix_hit_tokens"`
	Iterations      int     `json:"iterations"`
	// MeanBatchTokens and MeanDecodes: an iteration's tokens and decoding
	// sequences on average.
	MeanBatchTokens float64        `json:"mean_batch_tokens"`
	MeanDecodes     float64        `json:"mean_decodes"`
	TimeParts       ServeTimeParts `json:"time_parts"`
	// Trace holds each engine's iterations when asked for.
	Trace [][]ServeIteration `json:"-"`
}

// ServeIteration is one iteration of an engine (for a trace).
type ServeIteration struct {
	StartMs, DurMs                   float64
	ComputeMs, CommMs, HostMs        float64
	Prefills, Decodes, Tokens, KVUse int
}

// deployment is a checked request-level configuration.
type deployment struct {
	prec             servePrecision
	rt               ServeRuntime
	cfg              schedConfig
	tp, pp, replicas int
	pre, dec         int // disaggregated pools' replicas
	router           Router
	mem              Memory
	gpus             int
}

// planDeployment checks o's load and sizes the KV cache.
func planDeployment(t *Transformer, c *cluster.Cluster, o ServeOptions) (*deployment, error) {
	l := o.Load
	d := &deployment{tp: o.TP, pp: max(1, l.PP)}
	var err error
	if d.prec, err = newServePrecision(c.GPU, o.DType, l.KV, l.FP8Attention); err != nil {
		return nil, err
	}
	rt := l.Runtime
	if rt == nil {
		rt, _ = ServeRuntimePreset("")
	}
	d.rt = *rt
	per := d.tp * d.pp
	if c.GPUs()%per != 0 {
		return nil, fmt.Errorf("tp %d x pp %d does not divide the cluster's %d GPUs", d.tp, d.pp, c.GPUs())
	}
	if d.pp > t.Layers {
		return nil, fmt.Errorf("pp %d is more stages than the %d layers", d.pp, t.Layers)
	}
	d.replicas = l.Replicas
	if d.replicas == 0 {
		d.replicas = c.GPUs() / per
	}
	if d.replicas*per > c.GPUs() {
		return nil, fmt.Errorf("%d replicas of tp %d x pp %d need %d GPUs, the cluster has %d", d.replicas, d.tp, d.pp, d.replicas*per, c.GPUs())
	}
	if l.DisaggPrefill > 0 || l.DisaggDecode > 0 {
		if l.DisaggPrefill < 1 || l.DisaggDecode < 1 {
			return nil, fmt.Errorf("--disagg P:D needs at least one prefill and one decode replica")
		}
		if l.Replicas == 0 {
			d.replicas = l.DisaggPrefill + l.DisaggDecode
		}
		if l.DisaggPrefill+l.DisaggDecode != d.replicas || d.replicas*per > c.GPUs() {
			return nil, fmt.Errorf("--disagg %d:%d is %d replicas of %d GPUs; the cluster has %d GPUs", l.DisaggPrefill, l.DisaggDecode, l.DisaggPrefill+l.DisaggDecode, per, c.GPUs())
		}
		d.pre, d.dec = l.DisaggPrefill, l.DisaggDecode
	}
	d.gpus = d.replicas * per
	if d.router, err = ParseRouter(string(l.Router)); err != nil {
		return nil, err
	}
	cfg := schedConfig{MaxSeqs: pick(l.MaxSeqs, rt.MaxSeqs), MaxBatchedTokens: pick(l.MaxBatchedTokens, rt.MaxBatchedTokens), BlockSize: pick(l.BlockSize, rt.BlockSize),
		ChunkedPrefill: rt.ChunkedPrefill && !l.NoChunkedPrefill, ReserveFull: rt.ReserveFull, MaxTokens: l.MaxTokens, Preemption: l.Preemption, PrefixCaching: l.PrefixCaching, SwapGBs: hostLinkGBs}
	if cfg.Preemption == "" {
		cfg.Preemption = PreemptRecompute
	}
	if cfg.Preemption != PreemptRecompute && cfg.Preemption != PreemptSwap {
		return nil, fmt.Errorf("preemption %q (want recompute or swap)", cfg.Preemption)
	}
	frac := rt.KVFraction
	if l.KVFraction != 0 {
		frac = l.KVFraction
	}
	if frac <= 0 || frac > 1 {
		return nil, fmt.Errorf("kv cache memory fraction %g (want 0 < f <= 1)", frac)
	}
	capacity := c.GPU.MemoryGB
	if o.MemoryGB > 0 {
		capacity = o.MemoryGB
	}
	if err := d.sizeKV(t, &cfg, frac, capacity); err != nil {
		return nil, err
	}
	d.cfg = cfg
	return d, nil
}

// hostLinkGBs is the host link a swap crosses: PCIe 5.0 x16 at about
// 50 GB/s achieved per direction (an assumption).
const hostLinkGBs = 50

func pick(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// sizeKV fills cfg's KV blocks from one GPU's memory: the weights of its
// stage's share, the working set of one iteration (MaxBatchedTokens
// tokens' activations, the logits of MaxSeqs sequences), NCCL buffers and
// the runtime, then frac of what is left. A layout without room for a
// single block, or whose weights overflow, is an error saying which part
// overflows and what would fit.
func (d *deployment) sizeKV(t *Transformer, cfg *schedConfig, frac, capacity float64) error {
	p := d.prec
	shards := float64(d.tp * d.pp)
	var m Memory
	m.WeightsGB = t.Params() / shards * p.wb / 1e9
	up := 1.0
	if t.Gated {
		up = 2
	}
	T := float64(cfg.MaxBatchedTokens)
	m.ActivationsGB = (p.ab*T*(4*float64(t.Hidden)+(up+1)*float64(t.FFN)/float64(d.tp)) + 4*float64(cfg.MaxSeqs)*float64(t.Vocab)/float64(d.tp)) / 1e9
	m.CommBuffersGB = 2 * 16 * 4 * (1 << 20) / 1e9
	m.RuntimeGB = runtimeGB
	fixed := m.WeightsGB + m.ActivationsGB + m.CommBuffersGB + m.RuntimeGB
	perToken := d.kvPerToken(t)
	left := capacity - fixed
	if left <= 0 || int(frac*left*1e9/(perToken*float64(cfg.BlockSize))) < 1 {
		m.sum(capacity)
		return &NotFitError{Memory: m, Why: d.notFit(t, m, capacity)}
	}
	kvGB := frac * left
	cfg.KVBlocks = int(kvGB * 1e9 / (perToken * float64(cfg.BlockSize)))
	m.KVCacheGB = float64(cfg.KVBlocks*cfg.BlockSize) * perToken / 1e9
	m.sum(capacity)
	d.mem = m
	return nil
}

// kvPerToken is one token's cache on one GPU of a stage.
func (d *deployment) kvPerToken(t *Transformer) float64 {
	return float64(t.Layers) / float64(d.pp) * t.kvElemsPerToken(d.tp) * d.prec.kb
}

// notFit says which part overflows and what would fit.
func (d *deployment) notFit(t *Transformer, m Memory, capacity float64) string {
	var b strings.Builder
	fixed := m.WeightsGB + m.ActivationsGB + m.CommBuffersGB + m.RuntimeGB
	if m.WeightsGB+m.CommBuffersGB+m.RuntimeGB >= capacity {
		fmt.Fprintf(&b, "the weights (%.1f GB per GPU at tp %d x pp %d, %s) overflow the %.0f GB GPU", m.WeightsGB, d.tp, d.pp, d.prec.Weights, capacity)
	} else {
		fmt.Fprintf(&b, "the weights (%.1f GB) and one iteration's working set (%.1f GB) leave %.1f GB of the %.0f GB GPU, no room for the KV cache", m.WeightsGB, m.ActivationsGB, capacity-fixed, capacity)
	}
	for n := 2 * d.tp * d.pp; n <= 1024; n *= 2 {
		w := t.Params() / float64(n) * d.prec.wb / 1e9
		if w+m.ActivationsGB+m.CommBuffersGB+m.RuntimeGB < 0.8*capacity {
			fmt.Fprintf(&b, "; %d GPUs per replica (tp x pp) would fit (%.1f GB of weights each)", n, w)
			break
		}
	}
	if d.prec.Weights != ir.Float8E4M3FN && d.prec.Weights != ir.Float4E2M1 {
		if w := t.Params() / float64(d.tp*d.pp) / 1e9; w+m.ActivationsGB+m.CommBuffersGB+m.RuntimeGB < 0.8*capacity {
			fmt.Fprintf(&b, "; or fp8 weights (%.1f GB)", w)
		}
	}
	return b.String()
}

// NotFitError is a layout that does not fit in GPU memory: the memory
// breakdown and what overflows.
type NotFitError struct {
	Memory Memory
	Why    string
}

func (e *NotFitError) Error() string { return "does not fit: " + e.Why }
