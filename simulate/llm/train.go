package llm

// This file implements one training step of a decoder transformer under a
// TP x CP x DP x PP (and EP) layout: per micro-batch the layers' compute
// (layer.go) and their exposed tensor / context / expert / ZeRO-3
// communication (simulate/cluster collective.go) on each pipeline stage; the 1F1B or
// interleaved schedule over the stages; the data-parallel gradient
// reduction and ZeRO gathers at the step's end; the optimizer; memory
// (memory.go); and the throughput, MFU and HFU.
//
// Step = m x t_max + (sum_i t_i - t_max) / v + exposed DP communication
// + optimizer, where t_i is stage i's forward + backward (+ recomputed
// forward) time for one micro-batch, m the micro-batches per step and v
// the virtual stages: the 1F1B bubble is (p-1)/v stage times (Narayanan
// et al., SC21, section 2.2), and the heaviest stage (the head's, or a
// stage with an extra layer) sets the steady state.

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// CommPart is one kind of communication in a step.
type CommPart struct {
	Kind      string  `json:"kind"` // tp, cp, ep, pp, dp, zero, embedding
	TotalMs   float64 `json:"total_ms"`
	ExposedMs float64 `json:"exposed_ms"` // not hidden behind compute
	Group     int     `json:"group"`      // ranks in the communicator
	Domains   int     `json:"domains"`    // NVLink domains it spans
}

// LLMResult is a predicted training step.
type LLMResult struct {
	Model         string    `json:"model"`
	Cluster       string    `json:"cluster"`
	GPU           string    `json:"gpu"`
	GPUs          int       `json:"gpus"`
	TP            int       `json:"tp"`
	PP            int       `json:"pp"`
	DP            int       `json:"dp"`
	EP            int       `json:"ep"`
	CP            int       `json:"cp"`
	VirtualStages int       `json:"virtual_stages"`
	SeqParallel   bool      `json:"sequence_parallel"`
	ZeRO          int       `json:"zero"`
	Recompute     Recompute `json:"recompute"`
	MicroBatch    int       `json:"micro_batch"`
	GlobalBatch   int       `json:"global_batch"`
	MicroBatches  int       `json:"micro_batches"` // per pipeline per step
	Seq           int       `json:"seq"`
	DType         string    `json:"dtype"`
	Framework     string    `json:"framework"`

	StepMs      float64 `json:"step_ms"`
	ComputeMs   float64 `json:"compute_ms"`   // the heaviest stage's compute, recomputation included
	CommMs      float64 `json:"comm_ms"`      // exposed communication
	BubbleMs    float64 `json:"bubble_ms"`    // pipeline fill and drain
	OptimizerMs float64 `json:"optimizer_ms"` // Adam update
	// OverheadMs is the framework's host time per step outside kernels and
	// modelled communication on the heaviest stage (Framework.MicroBatchOverheadMs
	// per micro-batch; 0 for frameworks without one).
	OverheadMs float64    `json:"framework_overhead_ms,omitempty"`
	Comm       []CommPart `json:"comm"`

	TokensPerS       float64 `json:"tokens_per_s"`
	TokensPerSPerGPU float64 `json:"tokens_per_s_per_gpu"`
	SamplesPerS      float64 `json:"samples_per_s"`
	// ModelTFLOPSPerGPU counts the model's FLOPs (6 x weights multiplied
	// + attention, Transformer.ModelFLOPsPerToken); HardwareTFLOPSPerGPU
	// adds the recomputed forward (the figure Megatron-LM reports).
	ModelTFLOPSPerGPU    float64 `json:"model_tflops_per_gpu"`
	HardwareTFLOPSPerGPU float64 `json:"hardware_tflops_per_gpu"`
	// MFU and HFU are those over the dtype's dense tensor-core peak, Peak.
	MFU        float64 `json:"mfu"`
	HFU        float64 `json:"hfu"`
	Peak       string  `json:"peak"`
	PeakTFLOPS float64 `json:"peak_tflops"`

	Memory Memory `json:"memory_per_gpu"`

	cluster.Caveats
}

// Layout is the result's parallel layout in one line.
func (r *LLMResult) Layout() string {
	s := fmt.Sprintf("tp %d pp %d dp %d", r.TP, r.PP, r.DP)
	if r.CP > 1 {
		s += fmt.Sprintf(" cp %d", r.CP)
	}
	if r.EP > 1 {
		s += fmt.Sprintf(" ep %d", r.EP)
	}
	if r.VirtualStages > 1 {
		s += fmt.Sprintf(" vp %d", r.VirtualStages)
	}
	if r.SeqParallel {
		s += " sp"
	}
	if r.ZeRO > 0 {
		s += fmt.Sprintf(" zero-%d", r.ZeRO)
	}
	return s + fmt.Sprintf(" recompute %s mb %d", r.Recompute, r.MicroBatch)
}

// llmRun is one evaluation: the model, cluster and the layer costs
// shared by the candidates of a search.
type llmRun struct {
	t      *Transformer
	c      *cluster.Cluster
	k      *kernels
	layers map[layerKey]layerTime
	heads  map[layerShape][3]float64
	// slow divides kernel rates: 1 / Framework.KernelEfficiency
	slow float64
}

type layerKey struct {
	s  layerShape
	do bool
}

func newLLMRun(t *Transformer, c *cluster.Cluster, dt ir.DType, fw *Framework) *llmRun {
	slow := 1.0
	if fw != nil && fw.KernelEfficiency > 0 {
		slow = 1 / fw.KernelEfficiency
	}
	k := newKernels(c.GPU, dt)
	k.deployFP8()
	return &llmRun{t: t, c: c, k: k, layers: map[layerKey]layerTime{}, heads: map[layerShape][3]float64{}, slow: slow}
}

func (r *llmRun) layer(s layerShape) layerTime {
	key := layerKey{s, r.t.Dropout}
	lt, ok := r.layers[key]
	if !ok {
		lt = r.k.layer(r.t, s, r.t.Dropout)
		for _, p := range []*float64{&lt.FwdS, &lt.BwdS, &lt.CoreFwdS, &lt.CoreBwdS, &lt.GEMMFwdS} {
			*p *= r.slow
		}
		r.layers[key] = lt
	}
	return lt
}

func (r *llmRun) head(s layerShape) (fwd, bwd, emb float64) {
	h, ok := r.heads[s]
	if !ok {
		h[0], h[1], h[2] = r.k.headTime(r.t, s)
		for i := range h {
			h[i] *= r.slow
		}
		r.heads[s] = h
	}
	return h[0], h[1], h[2]
}

// SimulateLLM predicts one training step of t on c under o.
func SimulateLLM(t *Transformer, c *cluster.Cluster, o LLMOptions) (*LLMResult, error) {
	if t == nil || c == nil {
		return nil, fmt.Errorf("no model or cluster")
	}
	o.Seq = max(o.Seq, 0)
	if o.Seq == 0 {
		o.Seq = t.Seq
	}
	tt := *t
	tt.Seq = o.Seq
	if err := tt.Validate(); err != nil {
		return nil, err
	}
	o, err := o.withDefaults(&tt, c.GPUs())
	if err != nil {
		return nil, err
	}
	r := newLLMRun(&tt, c, o.DType, o.Framework)
	res := r.simulate(o)
	res.Assumptions, res.Warnings = r.notes(o, res)
	return res, nil
}

// stageLayers splits the layers over p stages: the remainder goes to the
// middle stages first (the first stage embeds, the last runs the head),
// as Llama 3's 126 layers on 16 stages (7 on the first and last).
func stageLayers(L, p int) []int {
	out := make([]int, p)
	order := make([]int, 0, p)
	for i := 1; i < p-1; i++ {
		order = append(order, i)
	}
	order = append(order, 0)
	if p > 1 {
		order = append(order, p-1)
	}
	for i := range out {
		out[i] = L / p
	}
	for i := 0; i < L%p; i++ {
		out[order[i]]++
	}
	return out
}

// zeroPerLayer is ZeRO-2 / -3's communication per layer and micro-batch
// (total and exposed, s): the gradients' reduce-scatter in gradBytes per
// parameter, and under ZeRO-3 the weights' all-gathers (fwdPasses of
// them in the forward), prefetched behind the layer's compute where the
// framework overlaps them.
func (r *llmRun) zeroPerLayer(o LLMOptions, lt layerTime, dpG cluster.RankGroup, gradBytes, fwdPasses float64) (total, exposed float64) {
	if o.ZeRO < 2 || o.DP*o.CP <= 1 {
		return 0, 0
	}
	c, e := r.c, r.k.bytes
	layerParamBytes := r.layerParamsPerGPU(o) * e
	rs := c.ReduceScatterS(layerParamBytes/e*gradBytes, dpG)
	ag := 0.0
	if o.ZeRO == 3 {
		ag = c.ReduceScatterS(layerParamBytes, dpG) // an all-gather moves what a reduce-scatter does
	}
	fwdC, bwdC := fwdPasses*ag, ag+rs
	if o.ZeRO == 3 && o.Recompute == RecomputeFull {
		bwdC = rs + ag // the recompute's gather serves the backward too
		fwdC = 2 * ag
	}
	total = fwdC + bwdC
	if !o.Framework.OverlapParamGather {
		return total, total
	}
	return total, fwdPasses*math.Max(0, fwdC/fwdPasses-lt.FwdS) + math.Max(0, bwdC-lt.BwdS)
}

// stageCost is one stage's time for one micro-batch.
type stageCost struct {
	computeS, commS float64 // compute (with recomputation); exposed per-micro-batch communication
	overheadS       float64 // the framework's host time per micro-batch
	bwdS, fwdS      float64 // the backward and forward of one micro-batch (overlap windows)
}

// simulate predicts a step under o (defaults filled, layout checked); the
// caller adds the notes.
func (r *llmRun) simulate(o LLMOptions) *LLMResult {
	t, c, fw := r.t, r.c, o.Framework
	res := &LLMResult{Model: t.Name, Cluster: c.String(), GPU: c.GPU.Name, GPUs: c.GPUs(),
		TP: o.TP, PP: o.PP, DP: o.DP, EP: o.EP, CP: o.CP, VirtualStages: o.VirtualStages, SeqParallel: o.SequenceParallel && o.TP > 1,
		ZeRO: o.ZeRO, Recompute: o.Recompute, MicroBatch: o.MicroBatch, GlobalBatch: o.GlobalBatch, MicroBatches: o.micro(),
		Seq: o.Seq, DType: o.DType.String(), Framework: fw.Name}
	s := layerShape{tp: o.TP, cp: o.CP, ep: o.EP, mb: o.MicroBatch, seq: o.Seq, sp: res.SeqParallel, attn: fw.Attention, dtype: o.DType}
	lt := r.layer(s)
	e := r.k.bytes
	gradBytes := e
	if fw.GradFP32 {
		gradBytes = 4
	}
	T := float64(o.MicroBatch) * float64(o.Seq) / float64(o.CP)
	h := float64(t.Hidden)
	// communicators (ranks ordered tp, cp, dp, pp)
	tpG := c.Group(o.TP, 1)
	cpG := c.Group(o.CP, o.TP)
	dpG := c.Group(o.DP*o.CP, o.TP) // dense gradients reduce over dp x cp
	epG := c.Group(o.EP, o.TP)
	parts := map[string]*CommPart{}
	add := func(kind string, g cluster.RankGroup, total, exposed float64) {
		p := parts[kind]
		if p == nil {
			p = &CommPart{Kind: kind, Group: g.N, Domains: g.Domains()}
			parts[kind] = p
		}
		p.TotalMs += total * 1e3
		p.ExposedMs += exposed * 1e3
	}
	m := float64(o.micro())

	// per layer, per micro-batch communication
	recompute := 0.0 // extra forward time per layer
	fwdPasses := 1.0 // forward collectives per layer (recompute repeats them)
	switch {
	case o.Recompute == RecomputeFull:
		recompute, fwdPasses = lt.FwdS, 2
	case o.Recompute == RecomputeSelective && fw.Attention == UnfusedAttention:
		recompute = lt.CoreFwdS
	}
	tpAR := c.AllReduceS(e*T*h, tpG) // one all-reduce, or a reduce-scatter + all-gather under SP
	tpTotal := (2*fwdPasses + 2) * tpAR
	tpExp := tpTotal * (1 - math.Min(1, math.Max(0, fw.TPOverlap)))
	hkv := math.Max(1, float64(t.KVHeads)/float64(o.TP))
	kvBytes := 2 * e * T * hkv * float64(t.Dh())
	cpSend := c.SendS(kvBytes, cpG.Domains() > 1)
	cpFwd, cpBwd := float64(o.CP-1)*cpSend, 2*float64(o.CP-1)*cpSend
	cpTotal := fwdPasses*cpFwd + cpBwd
	cpExp := cpTotal
	if fw.OverlapCP {
		cpExp = fwdPasses*math.Max(0, cpFwd-lt.CoreFwdS) + math.Max(0, cpBwd-lt.CoreBwdS)
	}
	epTotal := 0.0
	if t.MoE() && o.EP > 1 {
		epTotal = (2*fwdPasses + 2) * c.AllToAllS(e*T*float64(t.TopK)*h, epG)
	}
	perLayerComm := tpExp + cpExp + epTotal
	zeroPerLayer, zeroExp := r.zeroPerLayer(o, lt, dpG, gradBytes, fwdPasses)

	// stages
	nl := stageLayers(t.Layers, o.PP)
	hf, hb, emb := r.head(s)
	p2pBytes := e * T * h
	if fw.ScatterGatherP2P || res.SeqParallel {
		p2pBytes /= float64(o.TP)
	}
	ppG := c.Group(o.PP, o.TP*o.CP*o.DP)
	p2p := 0.0
	if o.PP > 1 {
		p2p = 2 * float64(o.VirtualStages) * c.SendS(p2pBytes, ppG.Domains() > 1)
	}
	stages := make([]stageCost, o.PP)
	overhead := 0.0
	if o.PP > 1 {
		overhead = fw.MicroBatchOverheadMs / 1e3
	}
	var tMax, tSum float64
	heavy := 0
	for i, n := range nl {
		L := float64(n)
		st := stageCost{
			computeS: L * (lt.FwdS + lt.BwdS + recompute),
			commS:    L*(perLayerComm+zeroExp) + p2p,
			fwdS:     L * lt.FwdS, bwdS: L * lt.BwdS,
			overheadS: overhead,
		}
		if i == 0 {
			st.computeS += 2 * emb
		}
		if i == o.PP-1 {
			st.computeS += hf + hb
			st.bwdS += hb
		}
		stages[i] = st
		tt := st.computeS + st.commS + st.overheadS
		tSum += tt
		if tt > tMax {
			tMax, heavy = tt, i
		}
	}
	v := float64(o.VirtualStages)
	pipe := m*tMax + (tSum-tMax)/v
	hs := stages[heavy]
	res.ComputeMs = m * hs.computeS * 1e3
	res.OverheadMs = m * hs.overheadS * 1e3
	res.BubbleMs = (tSum - tMax) / v * 1e3
	L := float64(nl[heavy])
	add("tp", tpG, m*L*tpTotal, m*L*tpExp)
	if o.CP > 1 {
		add("cp", cpG, m*L*cpTotal, m*L*cpExp)
	}
	if epTotal > 0 {
		add("ep", epG, m*L*epTotal, m*L*epTotal)
	}
	if zeroPerLayer > 0 {
		add("zero", dpG, m*L*zeroPerLayer, m*L*zeroExp)
	}
	if p2p > 0 {
		add("pp", ppG, m*p2p, m*p2p)
	}

	endExp, optS := r.stepEnd(o, hs, heavy, nl, dpG, gradBytes, add)
	res.OptimizerMs = optS * 1e3
	step := pipe + endExp + optS
	res.StepMs = step * 1e3
	res.CommMs = math.Max(0, res.StepMs-res.ComputeMs-res.OverheadMs-res.BubbleMs-res.OptimizerMs) // not -0 from rounding
	for _, k := range []string{"tp", "cp", "ep", "pp", "zero", "dp", "embedding"} {
		if p := parts[k]; p != nil {
			res.Comm = append(res.Comm, *p)
		}
	}
	r.rates(res, o, step)
	res.Memory = r.memory(o, s, nl)
	return res
}

// stepEnd is what a step does once after its micro-batches: the
// data-parallel gradient reduction, the ZeRO-1/2 parameter gathers, the
// tied embeddings' all-reduce (each recorded with add) and the optimizer
// update; it returns their exposed time and the optimizer's, in s.
func (r *llmRun) stepEnd(o LLMOptions, hs stageCost, heavy int, nl []int, dpG cluster.RankGroup, gradBytes float64, add func(string, cluster.RankGroup, float64, float64)) (endExp, optS float64) {
	t, c, fw, e := r.t, r.c, o.Framework, r.k.bytes
	h := float64(t.Hidden)
	stageParams := r.stageParamsPerGPU(o, heavy, nl)
	if o.DP*o.CP > 1 && o.ZeRO < 2 {
		var grad float64
		if o.ZeRO == 0 {
			grad = c.AllReduceS(stageParams*gradBytes, dpG)
		} else {
			grad = c.ReduceScatterS(stageParams*gradBytes, dpG)
		}
		exp := grad
		if fw.OverlapGradReduce {
			exp = math.Max(0, grad-hs.bwdS)
		}
		add("dp", dpG, grad, exp)
		endExp += exp
	}
	if o.DP*o.CP > 1 && (o.ZeRO == 1 || o.ZeRO == 2) {
		ag := c.ReduceScatterS(stageParams*e, dpG)
		exp := ag
		if fw.OverlapParamGather {
			exp = math.Max(0, ag-hs.fwdS)
		}
		add("zero", dpG, ag, exp)
		endExp += exp
	}
	if t.TiedEmbeddings && o.PP > 1 {
		g := cluster.RankGroup{N: 2, K: 1}
		s := c.AllReduceS(float64(t.Vocab)*h/float64(o.TP)*gradBytes, g)
		add("embedding", g, s, s)
		endExp += s
	}
	updated := stageParams
	if o.ZeRO >= 1 {
		updated /= float64(o.DP * o.CP)
	}
	// Adam: read gradient, master weight, two moments; write them and the
	// compute-dtype weight (Megatron's fused multi-tensor Adam)
	optS = updated * (gradBytes + 24 + e) / (c.GPU.MemoryBandwidthGBs * 1e9 * c.GPU.Efficiency.Elementwise.Memory)
	return endExp, optS
}

// layerParamsPerGPU is one layer's weights on one GPU: attention and
// norms over tp, experts over ep x tp.
func (r *llmRun) layerParamsPerGPU(o LLMOptions) float64 {
	t := r.t
	p := (t.AttentionParams() + 2*t.normParams() + t.RouterParams()) / float64(o.TP)
	e := 1.0
	if t.MoE() {
		e = float64(t.Experts) / float64(o.EP)
	}
	return p + e*t.ExpertParams()/float64(o.TP)
}

// stageParamsPerGPU is stage i's weights on one GPU (before ZeRO).
func (r *llmRun) stageParamsPerGPU(o LLMOptions, i int, nl []int) float64 {
	t := r.t
	p := float64(nl[i]) * r.layerParamsPerGPU(o)
	if i == 0 {
		p += t.EmbeddingParams() / float64(o.TP)
	}
	if i == o.PP-1 {
		p += t.HeadParams() / float64(o.TP)
		if t.TiedEmbeddings && o.PP > 1 {
			p += float64(t.Vocab) * float64(t.Hidden) / float64(o.TP) // the head's copy
		}
	}
	return p
}

// rates fills throughput, TFLOP/s, MFU and HFU.
func (r *llmRun) rates(res *LLMResult, o LLMOptions, step float64) {
	t := r.t
	tokens := float64(o.GlobalBatch) * float64(o.Seq)
	model := tokens * t.ModelFLOPsPerToken(o.Seq)
	hwFLOPs := model
	switch {
	case o.Recompute == RecomputeFull:
		hwFLOPs += tokens * (t.ForwardFLOPsPerToken(o.Seq) - 2*float64(t.Hidden)*float64(t.Vocab))
	case o.Recompute == RecomputeSelective && o.Framework.Attention == UnfusedAttention:
		hwFLOPs += tokens * float64(t.Layers) * 4 * float64(o.Seq) * float64(t.Heads*t.Dh())
	}
	peak, used, _ := r.c.GPU.PeakFLOPS(o.DType, hw.Tensor, false)
	n := float64(res.GPUs)
	res.TokensPerS = tokens / step
	res.TokensPerSPerGPU = res.TokensPerS / n
	res.SamplesPerS = float64(o.GlobalBatch) / step
	res.ModelTFLOPSPerGPU = model / step / n / 1e12
	res.HardwareTFLOPSPerGPU = hwFLOPs / step / n / 1e12
	res.PeakTFLOPS = peak / 1e12
	res.Peak = fmt.Sprintf("%s dense %.4g TFLOP/s (%s)", used, peak/1e12, r.c.GPU.Name)
	if as := r.c.GPU.RunsAs(o.DType, false); as != "" {
		res.Peak += "; " + as
	}
	if peak > 0 {
		res.MFU = res.ModelTFLOPSPerGPU * 1e12 / peak
		res.HFU = res.HardwareTFLOPSPerGPU * 1e12 / peak
	}
}

// memory is the fullest stage's memory (first or last).
func (r *llmRun) memory(o LLMOptions, s layerShape, nl []int) Memory {
	t := r.t
	capacity := r.c.GPU.MemoryGB
	if o.MemoryGB > 0 {
		capacity = o.MemoryGB
	}
	e := r.k.bytes
	if e < 2 {
		e = 2 // fp8 training keeps bf16 weights
	}
	gradBytes := e
	if o.Framework.GradFP32 {
		gradBytes = 4
	}
	shard := float64(o.DP * o.CP)
	act := layerActivationBytes(t, s, o.Recompute, t.Dropout)
	var best Memory
	for _, i := range []int{0, o.PP - 1} {
		params := r.stageParamsPerGPU(o, i, nl)
		var mem Memory
		mem.Stage = i
		w, g, opt := params*e, params*gradBytes, params*12
		if o.ZeRO >= 1 {
			opt /= shard
		}
		if o.ZeRO >= 2 {
			g /= shard
		}
		if o.ZeRO >= 3 {
			w = w/shard + 2*r.layerParamsPerGPU(o)*e // two layers gathered at a time
		}
		// micro-batches in flight on stage i under 1F1B; interleaving adds
		// (p-1)/(p v) of a stage's share (Korthikanti et al. 2023, 4.2.3);
		// never more than the step's micro-batches (with m = p every
		// micro-batch is in flight on the first stage either way)
		inflight := float64(o.PP - i)
		if o.VirtualStages > 1 {
			inflight *= 1 + float64(o.PP-1)/float64(o.PP*o.VirtualStages)
		}
		inflight = math.Min(inflight, float64(o.micro()))
		a := float64(nl[i]) * act * inflight
		if o.Recompute == RecomputeFull {
			// plus one layer's full set while its backward runs
			a += layerActivationBytes(t, s, RecomputeNone, t.Dropout)
		}
		T := float64(o.MicroBatch) * float64(o.Seq) / float64(o.CP)
		if i == o.PP-1 { // fp32 logits and their gradient
			a += 2 * 4 * T * float64(t.Vocab) / float64(o.TP)
		}
		// comm buffers: the pipeline's send and receive buffers, the
		// sequence-parallel all-gather buffer, NCCL's buffers (4 MiB x
		// 16 channels x 2 per communicator, 5 communicators)
		cb := 4*e*T*float64(t.Hidden) + 5*2*16*4*(1<<20)
		mem.WeightsGB, mem.GradientsGB, mem.OptimizerGB = w/1e9, g/1e9, opt/1e9
		mem.ActivationsGB, mem.CommBuffersGB, mem.RuntimeGB = a/1e9, cb/1e9, runtimeGB
		mem.sum(capacity)
		if mem.TotalGB > best.TotalGB {
			best = mem
		}
	}
	return best
}

// notes lists the assumptions and warnings of one result.
func (r *llmRun) notes(o LLMOptions, res *LLMResult) (assumptions, warnings []string) {
	t, c := r.t, r.c
	assumptions = []string{
		fmt.Sprintf("model %s", t),
		fmt.Sprintf("framework %s: %s", o.Framework.Name, o.Framework.Source),
		fmt.Sprintf("kernels costed by wolong's cost model on the %s preset (GEMMs on their sharded shapes with the waves model; norms, activations, residual adds fused as Megatron fuses them, memory-bound)", c.GPU.Name),
		fmt.Sprintf("collectives: NVLink at %.0f%% of %.0f GB/s per direction inside a domain of %d GPUs (NCCL bus bandwidth); across domains each GPU's share of %d x %g Gb/s NICs per machine (%.1f GB/s)",
			100*cluster.NVLinkEfficiency, c.IntraGBs()/1e9, c.GPUsPerMachine, max(1, c.NICsPerMachine), c.Net.BandwidthGbps, c.RailGBs()/1e9),
		"rank order tp, cp, dp, pp (tensor parallelism inside an NVLink domain first); experts over ep of the cp x dp ranks",
		"Adam in mixed precision: 2-byte weights, gradients (4 bytes when accumulated in fp32), 12 bytes of fp32 master weights and moments per parameter",
		fmt.Sprintf("model FLOPs: 6 x multiplied weights + 12 x layers x seq x heads x head_dim per token (attention counted unmasked, as Megatron-LM and PaLM count it); peak %s", res.Peak),
	}
	if o.Recompute == RecomputeSelective && o.Framework.Attention == FlashAttention {
		assumptions = append(assumptions, "selective recomputation with flash attention: the kernel already recomputes the scores; nothing else is dropped")
	}
	if g := c.Group(o.TP, 1); g.Domains() > 1 {
		warnings = append(warnings, fmt.Sprintf("tp %d spans %d NVLink domains of %d GPUs: every layer's tensor-parallel collectives cross the network", o.TP, g.Domains(), c.GPUsPerMachine))
	}
	if m := o.micro(); o.PP > 1 && m < o.PP {
		warnings = append(warnings, fmt.Sprintf("%d micro-batches for %d pipeline stages: most of the step is pipeline bubble", m, o.PP))
	}
	if !res.Memory.Fits {
		warnings = append(warnings, fmt.Sprintf("does not fit: %s (stage %d)", res.Memory, res.Memory.Stage))
	}
	return assumptions, warnings
}
