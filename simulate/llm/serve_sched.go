package llm

// This file implements the iteration-level scheduler of a serving replica
// as vLLM's and TensorRT-LLM's in-flight (continuous) batching run it:
// each iteration the scheduler picks the running sequences' next tokens
// (one per decoding sequence, a chunk of the prompt per prefilling one)
// and admits waiting requests while the token budget, the sequence limit
// and the paged KV cache's free blocks allow; a sequence that needs a
// block when none is free preempts the newest running sequence (its
// blocks freed and its tokens recomputed later, or swapped to host memory
// and back). The cost of each iteration comes from an iterCoster for its
// exact mix (llm_serve_iter.go); this file knows nothing of the model.
//
// Reference behaviour: vLLM v1's scheduler (vllm/v1/core/sched/
// scheduler.py: running requests first, then waiting ones, one token
// budget, preemption of the last running request when the KV cache
// manager cannot allocate) and TensorRT-LLM's batch manager (max_batch_size,
// max_num_tokens, chunked context, the MAX_UTILIZATION capacity policy).

import (
	"fmt"
	"math"
	"sort"
)

// Preemption is what a scheduler does to a sequence it evicts.
type Preemption string

// Preemption modes.
const (
	// PreemptRecompute frees the sequence's blocks; when it is admitted
	// again its prompt and the tokens it generated are prefilled anew
	// (vLLM's default).
	PreemptRecompute Preemption = "recompute"
	// PreemptSwap copies its blocks to host memory and back when it is
	// admitted again (vLLM v0's swap space).
	PreemptSwap Preemption = "swap"
)

// serveRequest is one request of a workload.
type serveRequest struct {
	ArrivalS       float64
	Prompt, Output int
	// PrefixGroup > 0 names a group of requests whose first PrefixTokens
	// prompt tokens are the same (a system prompt): with prefix caching a
	// request finding the group's blocks resident skips their prefill.
	PrefixGroup, PrefixTokens int
	// Preloaded: the prompt's keys and values arrive with the request
	// and its first token is already out (a disaggregated decode pool).
	Preloaded bool
}

// schedConfig is one replica's scheduler.
type schedConfig struct {
	MaxSeqs          int // sequences running at once
	MaxBatchedTokens int // tokens (prefill chunk tokens + decodes) per iteration
	// ChunkedPrefill splits prompts into chunks that share an iteration
	// with the decodes; else a prompt is prefilled whole, in an iteration
	// of prefills only (vLLM v0 without chunked prefill).
	ChunkedPrefill bool
	BlockSize      int // tokens per KV block
	KVBlocks       int // blocks that fit the KV cache's memory
	Preemption     Preemption
	PrefixCaching  bool
	// ReserveFull admits a request only when the blocks of its whole
	// prompt and output are free, and takes them all at once: it is never
	// preempted (TensorRT-LLM's GUARANTEED_NO_EVICT capacity policy, its
	// default); else blocks are taken as tokens are computed and a
	// shortage preempts (vLLM; TensorRT-LLM's MAX_UTILIZATION).
	ReserveFull bool
	// MaxTokens is the output length a request asks for at most (its
	// max_tokens): what a ReserveFull scheduler reserves when it is longer
	// than the request's output (0: the output itself, as trtllm-bench
	// sets it).
	MaxTokens int
	// SwapBytesPerBlock and SwapGBs cost a swap: one block's bytes over the
	// host link, GB/s.
	SwapBytesPerBlock, SwapGBs float64
}

// prefillChunk is one sequence's prompt chunk in an iteration: Tokens new
// tokens after Past already in the cache.
type prefillChunk struct{ Tokens, Past int }

// iterMix is an iteration's exact work.
type iterMix struct {
	Prefill []prefillChunk
	// Decode holds each decoding sequence's context (tokens in the cache,
	// the new one included).
	Decode []int
	// Sampled is the sequences that sample a token (decodes and prefills
	// that finish their prompt).
	Sampled int
}

// tokens is the iteration's batched tokens.
func (m *iterMix) tokens() int {
	n := len(m.Decode)
	for _, c := range m.Prefill {
		n += c.Tokens
	}
	return n
}

// iterTime is one iteration's time by part, seconds.
type iterTime struct {
	ComputeS float64 // the kernels
	CommS    float64 // tensor-parallel collectives (exposed)
	HostS    float64 // the runtime's scheduling, sampling and launch time not hidden
	SwapS    float64 // preemption swaps over the host link
}

func (t iterTime) total() float64 { return t.ComputeS + t.CommS + t.HostS + t.SwapS }

// iterCoster costs one iteration's mix.
type iterCoster interface {
	iteration(m *iterMix) iterTime
}

// seqState is a request inside the scheduler.
type seqState struct {
	req      *serveRequest
	idx      int
	computed int // tokens whose keys and values are in the cache
	target   int // tokens to compute before the next sample: prompt + generated
	gen      int // output tokens generated
	blocks   int
	shared   int // blocks of a shared prefix this sequence holds a reference to
	swapped  bool
	live     bool // on the running list
	done     bool
}

// reqTiming is what the simulation records per request.
type reqTiming struct {
	ArrivalS, FirstS, EndS float64
	Output                 int
	Preempted              int
	// MaxGapS is the longest wait between two of its tokens.
	MaxGapS float64
}

// iterRecord is one iteration for the trace.
type iterRecord struct {
	StartS   float64
	T        iterTime
	Prefills int
	Tokens   int
	Decodes  int
	KVUsed   int
}

// schedResult is one replica's run.
type schedResult struct {
	Reqs        []reqTiming
	Iters       []iterRecord
	Preemptions int
	Swaps       int
	// KVUtilMean is the time-weighted mean fraction of KV blocks in use;
	// KVUtilPeak the highest.
	KVUtilMean, KVUtilPeak float64
	PrefixHitTokens        int
	// Parts sums the iterations' times by part; BusyS is their total.
	Parts iterTime
	EndS  float64
}

// maxIterations bounds a simulation (a workload needing more is refused,
// not run for hours).
const maxIterations = 20_000_000

// scheduler is the state of one replica's simulation.
type scheduler struct {
	cfg     schedConfig
	cost    iterCoster
	reqs    []serveRequest
	out     []reqTiming
	waiting []*seqState // FIFO; preempted sequences go to the front
	running []*seqState
	free    int
	// cachedBlocks are held by prefixes no sequence references: evicted
	// when blocks are needed.
	cachedBlocks int
	pending      int     // requests queued or running
	now          float64 // the replica's clock, s
	prefix       map[int]*prefixEntry
	res          schedResult
	lastToken    []float64
	// utilArea integrates the KV blocks in use over the busy time busyS.
	utilArea, busyS float64
	// buffers reused by each iteration
	preBuf  []prefillChunk
	decBuf  []int
	sampBuf []*seqState
}

// prefixEntry is a shared prefix's resident blocks.
type prefixEntry struct{ blocks, refs int }

// newScheduler makes a replica's scheduler for requests reqs (the
// workload, in arrival order); push hands it the ones routed to it.
// The replicas of a deployment share out and last (indexed as reqs).
func newScheduler(reqs []serveRequest, out []reqTiming, last []float64, cfg schedConfig, cost iterCoster) (*scheduler, error) {
	if cfg.MaxSeqs < 1 || cfg.MaxBatchedTokens < 1 || cfg.BlockSize < 1 {
		return nil, fmt.Errorf("scheduler needs max sequences, max batched tokens and block size >= 1")
	}
	return &scheduler{cfg: cfg, cost: cost, reqs: reqs, out: out, lastToken: last, free: cfg.KVBlocks, prefix: map[int]*prefixEntry{}}, nil
}

// check says why request r can never run on this replica.
func (s *scheduler) check(r *serveRequest) error {
	cfg := s.cfg
	n := r.Prompt + r.Output
	if cfg.ReserveFull {
		n = s.reserved(r)
	}
	if need := s.blocksFor(n); need > cfg.KVBlocks {
		return fmt.Errorf("a request of %d + %d tokens needs %d KV blocks of %d tokens, the cache holds %d", r.Prompt, r.Output, need, cfg.BlockSize, cfg.KVBlocks)
	}
	if !cfg.ChunkedPrefill && r.Prompt+r.Output > cfg.MaxBatchedTokens {
		return fmt.Errorf("without chunked prefill a request of %d + %d tokens needs max batched tokens >= %d (%d)", r.Prompt, r.Output, r.Prompt+r.Output, cfg.MaxBatchedTokens)
	}
	return nil
}

// push queues request i (arrived at the replica's clock or before).
func (s *scheduler) push(i int) error {
	r := &s.reqs[i]
	if err := s.check(r); err != nil {
		return err
	}
	s.out[i] = reqTiming{ArrivalS: r.ArrivalS, Output: r.Output, FirstS: -1}
	q := &seqState{req: r, idx: i, target: r.Prompt}
	if r.Preloaded { // a disaggregated decode: the prompt's cache arrives with it
		q.computed, q.gen = r.Prompt, 1
		s.out[i].FirstS = r.ArrivalS
		s.lastToken[i] = r.ArrivalS
		if r.Output <= 1 {
			s.out[i].EndS = r.ArrivalS
			return nil
		}
	}
	s.waiting = append(s.waiting, q)
	s.pending++
	return nil
}

// load is the requests queued or running on the replica (the least-loaded
// router's measure).
func (s *scheduler) load() int { return s.pending }

// runUntil runs iterations while there is work and the clock is before
// until (an iteration that starts before it may end after it); an idle
// replica's clock moves to until.
func (s *scheduler) runUntil(until float64) error {
	for s.now < until {
		if len(s.running) == 0 && len(s.waiting) == 0 {
			s.now = until
			return nil
		}
		if err := s.step(); err != nil {
			return err
		}
	}
	return nil
}

// drain runs until every queued request has finished.
func (s *scheduler) drain() error {
	for len(s.running) > 0 || len(s.waiting) > 0 {
		if err := s.step(); err != nil {
			return err
		}
	}
	return nil
}

// step runs one iteration.
func (s *scheduler) step() error {
	cfg := s.cfg
	mix, swapBlocks, sampling := s.schedule()
	if len(sampling) == 0 && mix.tokens() == 0 {
		return fmt.Errorf("scheduler stalled with %d waiting, %d running and %d free KV blocks", len(s.waiting), len(s.running), s.free)
	}
	t := s.cost.iteration(&mix)
	if swapBlocks > 0 && cfg.SwapGBs > 0 {
		t.SwapS = float64(swapBlocks) * cfg.SwapBytesPerBlock / (cfg.SwapGBs * 1e9)
	}
	dt := t.total()
	used := cfg.KVBlocks - s.free
	if len(s.res.Iters) >= maxIterations {
		return fmt.Errorf("the workload needs more than %d scheduler iterations", maxIterations)
	}
	s.res.Iters = append(s.res.Iters, iterRecord{StartS: s.now, T: t, Prefills: len(mix.Prefill), Tokens: mix.tokens(), Decodes: len(mix.Decode), KVUsed: used})
	s.res.Parts.ComputeS += t.ComputeS
	s.res.Parts.CommS += t.CommS
	s.res.Parts.HostS += t.HostS
	s.res.Parts.SwapS += t.SwapS
	if cfg.KVBlocks > 0 {
		u := float64(used) / float64(cfg.KVBlocks)
		s.utilArea += u * dt
		s.busyS += dt
		s.res.KVUtilPeak = math.Max(s.res.KVUtilPeak, u)
	}
	s.now += dt
	s.pending -= s.finish(sampling, s.now)
	s.preBuf, s.decBuf, s.sampBuf = mix.Prefill, mix.Decode, sampling
	return nil
}

// result returns the replica's run so far.
func (s *scheduler) result() *schedResult {
	s.res.EndS = s.now
	if s.busyS > 0 {
		s.res.KVUtilMean = s.utilArea / s.busyS
	}
	return &s.res
}

// simulateSchedule runs reqs (sorted by arrival) through one replica.
func simulateSchedule(reqs []serveRequest, cfg schedConfig, cost iterCoster) (*schedResult, error) {
	out := make([]reqTiming, len(reqs))
	s, err := newScheduler(reqs, out, make([]float64, len(reqs)), cfg, cost)
	if err != nil {
		return nil, err
	}
	for i := range reqs {
		if err := s.runUntil(reqs[i].ArrivalS); err != nil {
			return nil, err
		}
		if err := s.push(i); err != nil {
			return nil, err
		}
	}
	if err := s.drain(); err != nil {
		return nil, err
	}
	r := s.result()
	r.Reqs = out
	return r, nil
}

// reserved is the tokens a ReserveFull scheduler reserves for r.
func (s *scheduler) reserved(r *serveRequest) int { return r.Prompt + max(r.Output, s.cfg.MaxTokens) }

// blocksFor is the blocks n tokens take.
func (s *scheduler) blocksFor(n int) int { return (n + s.cfg.BlockSize - 1) / s.cfg.BlockSize }

// schedule picks the iteration's work: running sequences first (in
// admission order), then waiting ones. It returns the mix, the blocks
// swapped in or out, and the sequences that sample a token at its end.
func (s *scheduler) schedule() (iterMix, int, []*seqState) {
	mix := iterMix{Prefill: s.preBuf[:0], Decode: s.decBuf[:0]}
	sampling := s.sampBuf[:0]
	budget := s.cfg.MaxBatchedTokens
	swaps := 0
	prefillOnly := false
	if !s.cfg.ChunkedPrefill && s.canAdmitWhole() {
		prefillOnly = true // vLLM v0: a prefill iteration runs before decodes
	}
	for i := 0; i < len(s.running) && budget > 0 && !prefillOnly; i++ {
		q := s.running[i]
		n := min(q.target-q.computed, budget)
		if n <= 0 {
			n = 1 // a decode: the last sampled token's keys and values
		}
		// a decode writes the token it sampled last
		need := s.blocksFor(q.computed+n) - q.blocks - q.shared
		for !s.ensure(need) {
			victim := s.running[len(s.running)-1]
			swaps += s.preempt(victim)
			if victim == q {
				break
			}
		}
		if need > s.free || !q.live {
			break
		}
		s.free -= max(0, need)
		q.blocks += max(0, need)
		if q.computed >= q.target { // decode
			mix.Decode = append(mix.Decode, q.computed+1)
			q.computed++
			q.target++
			sampling = append(sampling, q)
		} else {
			mix.Prefill = append(mix.Prefill, prefillChunk{Tokens: n, Past: q.computed})
			q.computed += n
			if q.computed >= q.target {
				sampling = append(sampling, q)
			}
		}
		budget -= n
	}
	if !s.cfg.ChunkedPrefill && len(mix.Decode) > 0 {
		mix.Sampled = len(sampling)
		return mix, swaps, sampling
	}
	swaps += s.admit(&mix, &sampling, budget)
	mix.Sampled = len(sampling)
	return mix, swaps, sampling
}

// canAdmitWhole says whether the waiting head can start its whole prefill
// now (non-chunked scheduling).
func (s *scheduler) canAdmitWhole() bool {
	if len(s.waiting) == 0 || len(s.running) >= s.cfg.MaxSeqs {
		return false
	}
	q := s.waiting[0]
	n := q.target
	if s.cfg.ReserveFull {
		n = s.reserved(q.req)
	}
	return q.target-q.computed <= s.cfg.MaxBatchedTokens && s.blocksFor(n)-q.blocks-q.shared <= s.free+s.cachedBlocks
}

// admit starts waiting sequences while the budget, the sequence limit
// and the free blocks allow; returns the blocks swapped in.
func (s *scheduler) admit(mix *iterMix, sampling *[]*seqState, budget int) int {
	swaps := 0
	for len(s.waiting) > 0 && budget > 0 && len(s.running) < s.cfg.MaxSeqs {
		q := s.waiting[0]
		if q.swapped { // its blocks come back; it continues where it was
			if !s.ensure(q.blocks) {
				break
			}
			s.free -= q.blocks
			swaps += q.blocks
			q.swapped = false
			s.start(q)
			continue
		}
		if q.computed == q.target { // preloaded: its blocks, then its first decode
			need := s.blocksFor(q.computed+1) - q.blocks
			if s.cfg.ReserveFull {
				need = s.blocksFor(s.reserved(q.req)) - q.blocks
			}
			if !s.ensure(need) {
				break
			}
			s.free -= need
			q.blocks += need
			s.start(q)
			mix.Decode = append(mix.Decode, q.computed+1)
			q.computed++
			q.target++
			*sampling = append(*sampling, q)
			budget--
			continue
		}
		if q.computed == 0 && s.cfg.PrefixCaching && q.req.PrefixGroup > 0 {
			s.hitPrefix(q)
		}
		n := q.target - q.computed
		if n > budget {
			if !s.cfg.ChunkedPrefill {
				break
			}
			n = budget
		}
		need := s.blocksFor(q.computed+n) - q.blocks - q.shared
		if s.cfg.ReserveFull {
			need = s.blocksFor(s.reserved(q.req)) - q.blocks - q.shared
		}
		if !s.ensure(need) {
			s.releasePrefix(q)
			q.computed = 0
			break
		}
		s.free -= need
		q.blocks += need
		mix.Prefill = append(mix.Prefill, prefillChunk{Tokens: n, Past: q.computed})
		q.computed += n
		budget -= n
		s.start(q)
		if q.computed >= q.target {
			*sampling = append(*sampling, q)
		}
	}
	return swaps
}

// start moves the waiting head to the running list.
func (s *scheduler) start(q *seqState) {
	s.waiting = s.waiting[1:]
	q.live = true
	s.running = append(s.running, q)
}

// hitPrefix gives q the resident blocks of its prompt's shared prefix:
// whole blocks only, as vLLM's and TensorRT-LLM's block reuse.
func (s *scheduler) hitPrefix(q *seqState) {
	r := q.req
	full := min(r.PrefixTokens, r.Prompt-1) / s.cfg.BlockSize // the last prompt token is always computed
	if full <= 0 {
		return
	}
	e := s.prefix[r.PrefixGroup]
	if e == nil || e.blocks == 0 {
		// the first of its group computes the prefix and publishes it
		e = &prefixEntry{}
		s.prefix[r.PrefixGroup] = e
		return
	}
	if e.refs == 0 { // cached, unreferenced: taken back from the evictable
		s.cachedBlocks -= e.blocks
	}
	q.shared = e.blocks
	q.computed = e.blocks * s.cfg.BlockSize
	e.refs++
	s.res.PrefixHitTokens += q.computed
}

// publishPrefix hands q's first prefix blocks to its group (called when
// its prefill has passed them).
func (s *scheduler) publishPrefix(q *seqState) {
	r := q.req
	if !s.cfg.PrefixCaching || r.PrefixGroup <= 0 || q.shared > 0 {
		return
	}
	e := s.prefix[r.PrefixGroup]
	full := min(r.PrefixTokens, r.Prompt-1) / s.cfg.BlockSize
	if e == nil || e.blocks > 0 || full <= 0 || q.computed < full*s.cfg.BlockSize {
		return
	}
	e.blocks, e.refs = full, 1
	q.blocks -= full
	q.shared = full
}

// releasePrefix drops q's reference to its shared prefix (freed with the
// last reference).
func (s *scheduler) releasePrefix(q *seqState) {
	if q.shared == 0 {
		return
	}
	e := s.prefix[q.req.PrefixGroup]
	e.refs--
	if e.refs == 0 { // stays cached until its blocks are needed
		s.cachedBlocks += e.blocks
	}
	q.shared = 0
}

// ensure says whether need blocks are free, evicting unreferenced cached
// prefixes (vLLM's and TensorRT-LLM's block reuse keeps freed blocks
// until they are allocated again) to make room.
func (s *scheduler) ensure(need int) bool {
	if need <= s.free {
		return true
	}
	if need > s.free+s.cachedBlocks {
		return false
	}
	groups := make([]int, 0, len(s.prefix))
	for g := range s.prefix {
		groups = append(groups, g)
	}
	sort.Ints(groups) // deterministic: the lowest group first
	for _, g := range groups {
		if e := s.prefix[g]; e.refs == 0 && e.blocks > 0 {
			s.free += e.blocks
			s.cachedBlocks -= e.blocks
			e.blocks = 0
			delete(s.prefix, g)
			if need <= s.free {
				break
			}
		}
	}
	return need <= s.free
}

// preempt evicts q (the newest running sequence) and returns the blocks
// swapped out.
func (s *scheduler) preempt(q *seqState) int {
	s.running = s.running[:len(s.running)-1] // q is the last
	q.live = false
	s.res.Preemptions++
	s.out[q.idx].Preempted++
	swapped := 0
	if s.cfg.Preemption == PreemptSwap {
		q.swapped = true
		swapped = q.blocks
		s.res.Swaps++
		s.free += q.blocks
		// shared prefix blocks stay resident for the others
	} else {
		s.free += q.blocks
		q.blocks = 0
		s.releasePrefix(q)
		q.computed = 0
		q.target = q.req.Prompt + q.gen
	}
	s.waiting = append([]*seqState{q}, s.waiting...)
	return swapped
}

// finish records the tokens sampled at now and retires finished
// sequences; returns how many finished.
func (s *scheduler) finish(sampling []*seqState, now float64) int {
	done := 0
	for _, q := range sampling {
		if !q.live {
			continue // preempted after it was scheduled in this iteration: its token is not sampled
		}
		s.publishPrefix(q)
		o := &s.out[q.idx]
		if o.FirstS < 0 {
			o.FirstS = now
		} else if g := now - s.lastToken[q.idx]; g > o.MaxGapS {
			o.MaxGapS = g
		}
		s.lastToken[q.idx] = now
		q.gen++
		if q.gen >= q.req.Output {
			o.EndS = now
			s.retire(q)
			done++
		}
	}
	if done > 0 {
		kept := s.running[:0]
		for _, q := range s.running {
			if !q.done {
				kept = append(kept, q)
			}
		}
		clear(s.running[len(kept):])
		s.running = kept
	}
	return done
}

// retire frees a finished sequence (finish drops it from the running
// list).
func (s *scheduler) retire(q *seqState) {
	q.done, q.live = true, false
	s.free += q.blocks
	q.blocks = 0
	s.releasePrefix(q)
}

// sortRequests orders reqs by arrival (stable: equal arrivals keep their
// order).
func sortRequests(reqs []serveRequest) {
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].ArrivalS < reqs[j].ArrivalS })
}
