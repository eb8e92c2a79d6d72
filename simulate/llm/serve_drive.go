package llm

// This file drives a request-level serving run: it builds the workload,
// one scheduler per engine (a replica's pipeline stages are pp virtual
// engines sharing its KV cache), routes the requests as they arrive,
// runs a disaggregated deployment's prefill pool and then its decode pool
// (the KV cache sent between them over the network), and turns the
// per-request timings into RequestStats.

import (
	"fmt"
	"math"
	"sort"

	"github.com/wolong-dev/wolong/simulate/cluster"
)

// defaultRequests is --requests when not given: enough to fill the
// engines several times over.
func defaultRequests(d *deployment, prompt, output int) int {
	seqs := min(d.cfg.MaxSeqs, d.cfg.KVBlocks*d.cfg.BlockSize/max(1, prompt+output))
	return min(100_000, max(1000, 4*seqs*d.replicas*d.pp))
}

// workload builds the requests o asks for.
func (o ServeOptions) workload(d *deployment) []serveRequest {
	l := o.Load
	if len(l.Workload) > 0 {
		return workloadRequests(l.Workload)
	}
	n := l.Requests
	if n == 0 {
		n = defaultRequests(d, o.Prompt, o.Output)
	}
	rate := l.Rate
	if rate <= 0 {
		rate = math.Inf(1)
	}
	return generateWorkload(genSpec{N: n, Rate: rate, Prompt: o.Prompt, Output: o.Output, Dist: l.LengthDist, Seed: l.Seed, PrefixTokens: l.PrefixTokens})
}

// pool is a set of engines behind one router.
type pool struct {
	engines []*scheduler
	router  Router
	rr      int
}

// newPool makes replicas x pp engines; each has 1/pp of a replica's KV
// blocks.
func newPool(reqs []serveRequest, out []reqTiming, last []float64, d *deployment, replicas int, cost iterCoster) (*pool, error) {
	cfg := d.cfg
	cfg.KVBlocks = d.cfg.KVBlocks / d.pp
	p := &pool{router: d.router}
	for i := 0; i < replicas*d.pp; i++ {
		s, err := newScheduler(reqs, out, last, cfg, cost)
		if err != nil {
			return nil, err
		}
		p.engines = append(p.engines, s)
	}
	return p, nil
}

// run routes reqs (sorted by arrival) to the engines and runs them to the
// end.
func (p *pool) run(reqs []serveRequest) error {
	for i := range reqs {
		for _, e := range p.engines {
			if err := e.runUntil(reqs[i].ArrivalS); err != nil {
				return err
			}
		}
		e := p.engines[p.rr%len(p.engines)]
		p.rr++
		if p.router == RouteLeastLoaded {
			for _, x := range p.engines {
				if x.load() < e.load() {
					e = x
				}
			}
		}
		if err := e.push(i); err != nil {
			return err
		}
	}
	for _, e := range p.engines {
		if err := e.drain(); err != nil {
			return err
		}
	}
	return nil
}

// simulateRequests is SimulateServe with a load.
func simulateRequests(t *Transformer, c *cluster.Cluster, o ServeOptions) (*ServeResult, error) {
	d, err := planDeployment(t, c, o)
	if err != nil {
		return nil, err
	}
	reqs := o.workload(d)
	cost := newServeCoster(t, c, d.tp, d.pp, d.prec, &d.rt)
	out := make([]reqTiming, len(reqs))
	last := make([]float64, len(reqs))
	var pools []*pool
	if d.pre == 0 {
		p, err := newPool(reqs, out, last, d, d.replicas, cost)
		if err != nil {
			return nil, err
		}
		if err := p.run(reqs); err != nil {
			return nil, err
		}
		pools = append(pools, p)
	} else if pools, err = runDisagg(t, c, d, reqs, out, last, cost); err != nil {
		return nil, err
	}
	return d.result(t, c, o, reqs, out, pools), nil
}

// runDisagg runs the prefill pool (each request to its first token), then
// the decode pool: a request arrives there when its KV cache has been
// sent (each prefill GPU sends its shard to its decode peer over the
// network, or NVLink inside one machine).
func runDisagg(t *Transformer, c *cluster.Cluster, d *deployment, reqs []serveRequest, out []reqTiming, last []float64, cost iterCoster) ([]*pool, error) {
	pre := make([]serveRequest, len(reqs))
	for i, r := range reqs {
		r.Output = 1
		pre[i] = r
	}
	preOut := make([]reqTiming, len(reqs))
	pp, err := newPool(pre, preOut, make([]float64, len(reqs)), d, d.pre, cost)
	if err != nil {
		return nil, err
	}
	if err := pp.run(pre); err != nil {
		return nil, err
	}
	cross := c.Machines > 1
	dec := make([]serveRequest, len(reqs))
	order := make([]int, len(reqs))
	for i, r := range reqs {
		bytes := d.kvPerToken(t) * float64(r.Prompt) // one GPU's shard
		r.ArrivalS = preOut[i].FirstS + c.SendS(bytes, cross)
		r.Preloaded = true
		dec[i] = r
		order[i] = i
	}
	sortByArrival(dec, order)
	decOut := make([]reqTiming, len(reqs))
	dp, err := newPool(dec, decOut, make([]float64, len(reqs)), d, d.dec, cost)
	if err != nil {
		return nil, err
	}
	if err := dp.run(dec); err != nil {
		return nil, err
	}
	for j, i := range order {
		o := decOut[j]
		out[i] = reqTiming{ArrivalS: reqs[i].ArrivalS, FirstS: preOut[i].FirstS, EndS: o.EndS, Output: reqs[i].Output,
			Preempted: preOut[i].Preempted + o.Preempted, MaxGapS: math.Max(o.MaxGapS, o.FirstS-preOut[i].FirstS)}
	}
	_ = last
	return []*pool{pp, dp}, nil
}

// sortByArrival sorts reqs by arrival and order with them.
func sortByArrival(reqs []serveRequest, order []int) {
	type pair struct {
		r serveRequest
		o int
	}
	ps := make([]pair, len(reqs))
	for i := range reqs {
		ps[i] = pair{reqs[i], order[i]}
	}
	sort.SliceStable(ps, func(a, b int) bool { return ps[a].r.ArrivalS < ps[b].r.ArrivalS })
	for i, p := range ps {
		reqs[i], order[i] = p.r, p.o
	}
}

// result summarizes a run.
func (d *deployment) result(t *Transformer, c *cluster.Cluster, o ServeOptions, reqs []serveRequest, out []reqTiming, pools []*pool) *ServeResult {
	l := o.Load
	st := &RequestStats{Requests: len(reqs), RateRPS: l.Rate, Offline: l.Rate <= 0 || math.IsInf(l.Rate, 1), LengthDist: string(l.LengthDist),
		Runtime: d.rt.Name, Precision: d.prec.String(), MaxSeqs: d.cfg.MaxSeqs, MaxBatchedTokens: d.cfg.MaxBatchedTokens, ChunkedPrefill: d.cfg.ChunkedPrefill,
		BlockSize: d.cfg.BlockSize, KVBlocks: d.cfg.KVBlocks, KVTokens: d.cfg.KVBlocks * d.cfg.BlockSize, Preemption: string(d.cfg.Preemption), PrefixCaching: d.cfg.PrefixCaching,
		PP: d.pp, Replicas: d.replicas, Router: string(d.router)}
	if len(l.Workload) > 0 {
		st.LengthDist = "workload file"
	} else if st.LengthDist == "" {
		st.LengthDist = string(LengthFixed)
	}
	if st.Offline {
		st.RateRPS = 0
	}
	if d.pre > 0 {
		st.Disagg = fmt.Sprintf("%d:%d", d.pre, d.dec)
	}
	var ttft, tpot, gap, e2e []float64
	start, end := math.Inf(1), 0.0
	var outTok, allTok, goodTok float64
	good := 0
	for i, r := range out {
		start = math.Min(start, r.ArrivalS)
		end = math.Max(end, r.EndS)
		tt := r.FirstS - r.ArrivalS
		e := r.EndS - r.ArrivalS
		tp := 0.0
		if r.Output > 1 {
			tp = (r.EndS - r.FirstS) / float64(r.Output-1)
			tpot = append(tpot, tp)
		}
		ttft, e2e, gap = append(ttft, tt), append(e2e, e), append(gap, r.MaxGapS)
		outTok += float64(reqs[i].Output)
		allTok += float64(reqs[i].Output + reqs[i].Prompt)
		if (l.SLO.TTFTMs <= 0 || tt*1e3 <= l.SLO.TTFTMs) && (l.SLO.TPOTMs <= 0 || tp*1e3 <= l.SLO.TPOTMs) {
			good++
			goodTok += float64(reqs[i].Output)
		}
	}
	dur := end - start
	gpus := float64(d.gpus)
	st.TTFT, st.TPOT, st.MaxGap, st.E2E = distOf(ttft), distOf(tpot), distOf(gap), distOf(e2e)
	st.DurationS = dur
	if dur > 0 {
		st.RequestsPerS = float64(len(reqs)) / dur
		st.OutputTokensPerS, st.TotalTokensPerS = outTok/dur, allTok/dur
		st.OutputTokensPerSPerGPU, st.TotalTokensPerSPerGPU = outTok/dur/gpus, allTok/dur/gpus
		st.GoodputRPS, st.GoodputTokensPerS, st.GoodputTokensPerSGPU = float64(good)/dur, goodTok/dur, goodTok/dur/gpus
	}
	st.SLOAttainment = float64(good) / float64(max(1, len(reqs)))
	if l.SLO.TTFTMs > 0 || l.SLO.TPOTMs > 0 {
		slo := l.SLO
		st.SLO = &slo
	}
	decodeTok, decodeS, commS := d.engineStats(st, pools, end, l.KeepIterations)
	r := &ServeResult{Model: t.Name, Cluster: c.String(), GPU: c.GPU.Name, GPUs: d.gpus, TP: d.tp, Replicas: d.replicas, Batch: d.cfg.MaxSeqs,
		Prompt: o.Prompt, Output: o.Output, DType: d.prec.Weights.String(), Requests: st, Memory: d.mem}
	r.TTFTMs, r.TPOTMs, r.RequestMs = st.TTFT.MeanMs, st.TPOT.MeanMs, st.E2E.MeanMs
	if len(tpot) > 0 {
		r.DecodeFirstMs, r.DecodeLastMs = tpot[0]*1e3, tpot[len(tpot)-1]*1e3
	}
	r.TokensPerS, r.TokensPerSPerGPU = st.OutputTokensPerS, st.OutputTokensPerSPerGPU
	if decodeS > 0 {
		r.DecodeTokensPerSPerGPU = decodeTok / decodeS / float64(d.tp*d.pp) * float64(d.pp)
	}
	if st.Iterations > 0 {
		r.TPCommMs = commS / float64(st.Iterations) * 1e3
	}
	r.MaxBatch = st.KVTokens / max(1, o.Prompt+o.Output)
	r.Assumptions = d.assumptions(t, c, o)
	if st.Preemptions > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d preemptions (%s): the KV cache (%d tokens per engine) ran out of blocks", st.Preemptions, d.cfg.Preemption, d.cfg.KVBlocks/d.pp*d.cfg.BlockSize))
	}
	return r
}

// engineStats fills st's engine sums and returns the decode-only
// iterations' tokens and time and the total exposed communication.
func (d *deployment) engineStats(st *RequestStats, pools []*pool, end float64, keep bool) (decodeTok, decodeS, commS float64) {
	var tokens, decodes float64
	for _, p := range pools {
		for _, e := range p.engines {
			st.Engines++
			r := e.result()
			st.Preemptions += r.Preemptions
			st.Swaps += r.Swaps
			st.PrefixHitTokens += r.PrefixHitTokens
			st.KVUtilPeak = math.Max(st.KVUtilPeak, r.KVUtilPeak)
			st.KVUtilMean += r.KVUtilMean
			busy := r.Parts.total()
			st.TimeParts.ComputeMs += r.Parts.ComputeS * 1e3
			st.TimeParts.CommMs += r.Parts.CommS * 1e3
			st.TimeParts.HostMs += r.Parts.HostS * 1e3
			st.TimeParts.SwapMs += r.Parts.SwapS * 1e3
			st.TimeParts.IdleMs += math.Max(0, end-busy) * 1e3
			st.Iterations += len(r.Iters)
			commS += r.Parts.CommS
			var trace []ServeIteration
			for _, it := range r.Iters {
				tokens += float64(it.Tokens)
				decodes += float64(it.Decodes)
				if it.Prefills == 0 {
					decodeTok += float64(it.Decodes)
					decodeS += it.T.total()
				}
				if keep {
					trace = append(trace, ServeIteration{StartMs: it.StartS * 1e3, DurMs: it.T.total() * 1e3, ComputeMs: it.T.ComputeS * 1e3, CommMs: it.T.CommS * 1e3,
						HostMs: it.T.HostS * 1e3, Prefills: it.Prefills, Decodes: it.Decodes, Tokens: it.Tokens, KVUse: it.KVUsed})
				}
			}
			if keep {
				st.Trace = append(st.Trace, trace)
			}
		}
	}
	if st.Engines > 0 {
		st.KVUtilMean /= float64(st.Engines)
	}
	if st.Iterations > 0 {
		st.MeanBatchTokens, st.MeanDecodes = tokens/float64(st.Iterations), decodes/float64(st.Iterations)
	}
	return decodeTok, decodeS, commS
}

// assumptions states what the run rests on.
func (d *deployment) assumptions(t *Transformer, c *cluster.Cluster, o ServeOptions) []string {
	rt := d.rt
	a := []string{
		fmt.Sprintf("model %s", t),
		fmt.Sprintf("runtime %s: %s", rt.Name, rt.Source),
		fmt.Sprintf("in-flight batching: at most %d sequences and %d batched tokens per iteration, chunked prefill %v, %d-token KV blocks (%d per replica, %.0f%% of the memory left after the weights and working set), preemption by %s",
			d.cfg.MaxSeqs, d.cfg.MaxBatchedTokens, d.cfg.ChunkedPrefill, d.cfg.BlockSize, d.cfg.KVBlocks, 100*pickF(o.Load.KVFraction, rt.KVFraction), d.cfg.Preemption),
		fmt.Sprintf("precision: %s; FP8/FP4 GEMMs at %s's fitted low-precision efficiency (docs/serving.md)", d.prec, c.GPU.Name),
		fmt.Sprintf("each iteration costed by wolong's cost model on the %s preset for its exact mix of prefill chunks and decodes, plus %.0f us of host time per iteration and %.0f us per sequence (overlapped with the GPU: %v)", c.GPU.Name, rt.IterHostUs, rt.SeqHostUs, rt.Overlap),
	}
	if d.tp > 1 {
		a = append(a, fmt.Sprintf("tensor parallelism %d: two all-reduces of the iteration's hidden states per layer (%s)", d.tp, tpDomain(c, d.tp)))
	}
	if d.pp > 1 {
		a = append(a, fmt.Sprintf("pipeline parallelism %d: %d virtual engines per replica, each with 1/%d of the KV cache, an iteration crossing every stage", d.pp, d.pp, d.pp))
	}
	if d.pre > 0 {
		a = append(a, fmt.Sprintf("disaggregated %d prefill : %d decode replicas: each request's KV cache sent from its prefill GPUs to its decode GPUs on %s", d.pre, d.dec, c.Net.Name))
	}
	return a
}

func pickF(v, def float64) float64 {
	if v != 0 {
		return v
	}
	return def
}

// simulateServeLoad checks o for a request-level run and runs it.
func simulateServeLoad(t *Transformer, c *cluster.Cluster, o ServeOptions) (*ServeResult, error) {
	l := o.Load
	if o.TP < 0 || o.Prompt < 0 || o.Output < 0 || o.MemoryGB < 0 || l.Requests < 0 || l.PP < 0 || l.Replicas < 0 || l.MaxSeqs < 0 ||
		l.MaxBatchedTokens < 0 || l.BlockSize < 0 || l.PrefixTokens < 0 || l.MaxTokens < 0 || math.IsNaN(l.Rate) || l.Rate < 0 {
		return nil, fmt.Errorf("serving tp, prompt, output, memory, requests, rate, pp, replicas and scheduler sizes must be >= 0")
	}
	if l.Requests > maxWorkloadRequests {
		return nil, fmt.Errorf("%d requests is more than %d", l.Requests, maxWorkloadRequests)
	}
	o.TP = max(1, o.TP)
	if o.Prompt == 0 {
		o.Prompt = DefaultPrompt
	}
	if o.Output == 0 {
		o.Output = DefaultOutput
	}
	if o.Prompt+o.Output > maxServeTokens {
		return nil, fmt.Errorf("prompt %d + output %d tokens is more than %d", o.Prompt, o.Output, maxServeTokens)
	}
	if err := t.checkLayout(LLMOptions{TP: o.TP, PP: max(1, l.PP), DP: 1, CP: 1, EP: 1, VirtualStages: 1}); err != nil {
		return nil, err
	}
	if o.Batch > 0 {
		// --batch with a load is the scheduler's sequence limit
		ll := *l
		ll.MaxSeqs = pick(l.MaxSeqs, o.Batch)
		o.Load = &ll
	}
	return simulateRequests(t, c, o)
}
