package cluster

// This file implements the pipeline (model-parallel) strategy.
//
// Partition: the ops in topological order are cut into K contiguous
// stages, stage s on GPU s. A dynamic program over (stages, prefix)
// minimizes the bottleneck max(stage compute per micro-batch, transfer
// of the activations cut at its boundary per micro-batch), so a cut
// through a thin point of the graph is preferred to one through a wide
// one. When K x n^2 is large, the program runs on chunks of consecutive
// ops of about equal compute (cuts only between chunks), and with more
// stages than that allows, stages split the compute evenly.
//
// Schedule: M micro-batches flow through the stages; the step is computed
// by the GPipe recurrence (forward of micro-batch m on stage s starts when
// stage s finished m-1 and stage s-1 handed m over; backward in reverse
// after the last forward). 1F1B has the same fill and drain bubbles
// (K-1 slots) in this model and differs in memory: a stage holds the
// activations of at most K-s micro-batches instead of all M.

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/simulate"
)

// dpLimit bounds K x n^2 for the exact dynamic program.
const dpLimit = 3e7

// partition is a split of ops into stages: bounds[s] is the first op of
// stage s; bounds[K] = n.
type partition struct {
	bounds     []int
	bottleneck float64
}

// cutBytes returns, for each boundary b (between op b and op b+1), the
// activation bytes that cross it, and whether any of them has a dynamic
// shape.
func cutBytes(p *Profile) ([]float64, []bool) {
	n := len(p.Ops)
	diff := make([]float64, n+1)
	dd := make([]int, n+1)
	for i := range p.Ops {
		op := &p.Ops[i]
		if op.LastUse <= i || (op.OutBytes == 0 && !op.Dynamic) {
			continue
		}
		last := min(op.LastUse, n-1)
		// crosses boundaries i .. last-1
		diff[i] += op.OutBytes
		diff[last] -= op.OutBytes
		if op.Dynamic {
			dd[i]++
			dd[last]--
		}
	}
	cut := make([]float64, n)
	dyn := make([]bool, n)
	run, rd := 0.0, 0
	for b := 0; b < n; b++ {
		run += diff[b]
		rd += dd[b]
		cut[b] = math.Max(0, run)
		dyn[b] = rd > 0
	}
	return cut, dyn
}

// split partitions the ops into k stages minimizing the bottleneck of
// w(i..j) (prefix sums pre) and x(s, b) (transfer after stage s at
// boundary b).
func split(pre []float64, k int, x func(s, b int) float64) partition {
	n := len(pre) - 1
	if float64(k)*float64(n)*float64(n) <= dpLimit {
		return splitDP(pre, k, x)
	}
	// coarsen to m chunks of about equal compute and run the program on
	// the chunks; with too many stages for that, split evenly by compute
	m := int(math.Sqrt(dpLimit / float64(k)))
	if m < 2*k {
		return splitEven(pre, k, x)
	}
	var cuts []int // chunk ends (op indices, exclusive)
	total := pre[n]
	j := 0
	for c := 1; c <= m; c++ {
		target := total * float64(c) / float64(m)
		for j < n && (pre[j] < target || j == 0 || (len(cuts) > 0 && j <= cuts[len(cuts)-1])) {
			j++
		}
		if c == m {
			j = n
		}
		if len(cuts) == 0 || j > cuts[len(cuts)-1] {
			cuts = append(cuts, j)
		}
	}
	if len(cuts) < k {
		return splitEven(pre, k, x)
	}
	cpre := make([]float64, len(cuts)+1)
	for i, e := range cuts {
		cpre[i+1] = pre[e]
	}
	cp := splitDP(cpre, k, func(s, b int) float64 { return x(s, cuts[b]-1) })
	b := make([]int, len(cp.bounds))
	for i, cb := range cp.bounds {
		if cb > 0 {
			b[i] = cuts[cb-1]
		}
	}
	return partition{bounds: b, bottleneck: bottleneck(pre, b, x)}
}

// splitEven gives stage s the ops up to (s+1)/k of the total compute (at
// least one op each).
func splitEven(pre []float64, k int, x func(s, b int) float64) partition {
	n := len(pre) - 1
	b := make([]int, k+1)
	b[k] = n
	j := 0
	for s := 1; s < k; s++ {
		target := pre[n] * float64(s) / float64(k)
		j = max(j+1, b[s-1]+1)
		for j < n-(k-s) && pre[j] < target {
			j++
		}
		b[s] = min(j, n-(k-s))
	}
	return partition{bounds: b, bottleneck: bottleneck(pre, b, x)}
}

// splitDP is the exact dynamic program: f[s][j] is the best bottleneck of
// the first j ops in s stages. O(k n^2).
func splitDP(pre []float64, k int, x func(s, b int) float64) partition {
	n := len(pre) - 1
	comp := func(i, j int) float64 { return pre[j] - pre[i] }
	{
		inf := math.Inf(1)
		f := make([][]float64, k+1)
		arg := make([][]int32, k+1)
		for s := range f {
			f[s] = make([]float64, n+1)
			arg[s] = make([]int32, n+1)
			for j := range f[s] {
				f[s][j] = inf
			}
		}
		f[0][0] = 0
		for s := 1; s <= k; s++ {
			for j := s; j <= n-(k-s); j++ {
				best, bi := inf, -1
				for i := s - 1; i < j; i++ {
					if f[s-1][i] == inf {
						continue
					}
					v := math.Max(f[s-1][i], comp(i, j))
					if s > 1 {
						v = math.Max(v, x(s-2, i-1))
					}
					if v < best {
						best, bi = v, i
					}
				}
				f[s][j], arg[s][j] = best, int32(bi)
			}
		}
		b := make([]int, k+1)
		b[k] = n
		for s := k; s >= 1; s-- {
			b[s-1] = int(arg[s][b[s]])
		}
		return partition{bounds: b, bottleneck: f[k][n]}
	}
}

// bottleneck evaluates a partition: the largest stage compute or boundary
// transfer.
func bottleneck(pre []float64, b []int, x func(s, b int) float64) float64 {
	v := 0.0
	for s := 0; s+1 < len(b); s++ {
		v = math.Max(v, pre[b[s+1]]-pre[b[s]])
		if s+2 < len(b) {
			v = math.Max(v, x(s, b[s+1]-1))
		}
	}
	return v
}

func simPipeline(p *Profile, c *Cluster, opt Options, res *Result) error {
	gpus := c.GPUs()
	K := opt.Stages
	if K == 0 {
		K = gpus
	}
	if K > gpus || gpus%K != 0 {
		return fmt.Errorf("pipeline: %d stages do not divide %d GPUs", K, gpus)
	}
	R := gpus / K
	train := opt.Mode != simulate.Inference
	n := len(p.Ops)
	work := 0
	for i := range p.Ops {
		if p.Ops[i].FwdS > 0 {
			work++
		}
	}
	if K > 1 && work < 2*K {
		return &DeclineError{Strategy: Pipeline, Reason: fmt.Sprintf("the model has %d ops with device work, too few to split into %d stages (want at least 2 per stage); use allreduce or fewer stages", work, K)}
	}
	M, err := microBatches(p, K, opt.MicroBatches)
	if err != nil {
		return err
	}
	m := float64(M)
	kf, kb := p.idleScale()
	pre := make([]float64, n+1)
	for i := range p.Ops {
		w := p.Ops[i].FwdS * kf
		if train {
			w += p.Ops[i].BwdS * kb
		}
		pre[i+1] = pre[i] + w/m
	}
	cut, dyn := cutBytes(p)
	dir := 1.0
	if train {
		dir = 2 // activations forward, their gradients backward
	}
	link := func(s, b int) TransferCost {
		if b < 0 || b >= n {
			return TransferCost{}
		}
		bytes := cut[b] / m
		if c.DeviceOf(s).Machine == c.DeviceOf(s+1).Machine {
			return c.Peer(bytes)
		}
		return c.Transfer(opt.Transport, bytes, TransferOptions{Dynamic: dyn[b]})
	}
	x := func(s, b int) float64 { return dir * link(s, b).TotalS }
	part := split(pre, K, x)
	if part.bounds == nil {
		return &DeclineError{Strategy: Pipeline, Reason: fmt.Sprintf("no split of %d ops into %d stages", n, K)}
	}
	st := pipeStages{p: p, c: c, opt: opt, m: m, kf: kf, kb: kb, dir: dir, train: train}
	st.build(part.bounds, cut, link, res)
	end, spans := st.schedule(M)
	// optimizer on each stage's share of the parameters; data-parallel
	// replicas all-reduce each stage's gradients afterwards
	var optS, arS, maxParams float64
	maxBusy := 0.0
	for s := range res.Stages {
		maxBusy = math.Max(maxBusy, m*(st.f[s]+st.bw[s]))
		maxParams = math.Max(maxParams, res.Stages[s].ParamBytes)
	}
	if train && p.ParamBytes > 0 {
		optS = p.OptimizerS * maxParams / p.ParamBytes
	}
	if train && R > 1 && maxParams > 0 {
		rc := *c
		if c.Machines > 1 {
			rc.Machines, rc.GPUsPerMachine = R, 1
		} else {
			rc.Machines, rc.GPUsPerMachine = 1, R
		}
		col, err := rc.AllReduce(maxParams, opt.Transport, AlgoRing)
		if err != nil {
			return err
		}
		arS = col.TotalS
	}
	step := end + optS + arS
	var xsum float64
	for s := 0; s < K-1; s++ {
		xsum += dir * st.xf[s]
	}
	res.Schedule, res.Micro = opt.Schedule, M
	res.GlobalBatch = p.samples() * float64(R)
	res.ComputeMs = (maxBusy + optS) * 1e3
	res.CommMs = math.Min(step-maxBusy-optS, xsum+arS) * 1e3
	res.BubbleMs = math.Max(0, step*1e3-res.ComputeMs-res.CommMs)
	res.CommTotalMs = (m*xsum + arS) * 1e3
	one := p.oneGPU(opt.Mode)
	finish(res, one, one*float64(R), step, gpus)
	var cutTotal float64
	for s := 0; s < K-1; s++ {
		cutTotal += res.Stages[s].CutBytes
	}
	if K > 1 {
		res.Links = append(res.Links, LinkUse{Link: "stage boundaries (sum)", Bytes: dir * cutTotal, BusyMs: m * xsum * 1e3})
	}
	res.Assumptions = append(res.Assumptions, pipelineAssumptions(K, R, M, n, opt.Schedule, kf, kb)...)
	if opt.Timeline {
		res.Timeline = spans
	}
	return nil
}

// microBatches is the pipeline's micro-batch count: given (given > 0),
// else 4 per stage, at most the batch (the profile's, else the model's
// static dim 0); more than the batch or than 65536 is an error.
func microBatches(p *Profile, K, given int) (int, error) {
	M := given
	if M == 0 {
		M = 4 * K
		if p.Batch > 0 && int64(M) > p.Batch {
			M = int(p.Batch)
		}
		// batch as the model gives it: no more micro-batches than its
		// static dim 0 (a batch-1 model is one micro-batch)
		if b := p.modelBatch(); p.Batch == 0 && b > 0 && int64(M) > b {
			M = int(b)
		}
	}
	if p.Batch > 0 && int64(M) > p.Batch {
		return 0, fmt.Errorf("pipeline: %d micro-batches is more than the batch of %d", M, p.Batch)
	}
	if M > 1<<16 {
		return 0, fmt.Errorf("pipeline: %d micro-batches is more than 65536", M)
	}
	return M, nil
}

// pipeStages holds a pipeline's per-stage, per-micro-batch times:
// forward f, backward bw (train only) and the transfer xf to the next
// stage, each micro-batch 1/m of the batch and the ops' times scaled by
// the idle factors kf and kb; dir is 2 in training (activations forward,
// gradients back), else 1.
type pipeStages struct {
	p          *Profile
	c          *Cluster
	opt        Options
	m, kf, kb  float64
	dir        float64
	train      bool
	f, bw, xf  []float64
	stageCount int
}

// build fills the stage times for the stage boundaries bounds and
// appends each stage's Stage to res.Stages.
func (ps *pipeStages) build(bounds []int, cut []float64, link func(s, b int) TransferCost, res *Result) {
	p, c, m, kf, kb := ps.p, ps.c, ps.m, ps.kf, ps.kb
	K := len(bounds) - 1
	ps.stageCount = K
	ps.f, ps.bw, ps.xf = make([]float64, K), make([]float64, K), make([]float64, K)
	f, bw, xf := ps.f, ps.bw, ps.xf
	for s := 0; s < K; s++ {
		st := Stage{Device: c.DeviceOf(s), FirstOp: bounds[s], LastOp: bounds[s+1] - 1}
		st.First, st.Last = p.Ops[st.FirstOp].Name, p.Ops[st.LastOp].Name
		st.Ops = st.LastOp - st.FirstOp + 1
		var act float64
		for i := st.FirstOp; i <= st.LastOp; i++ {
			f[s] += p.Ops[i].FwdS * kf / m
			if ps.train {
				bw[s] += p.Ops[i].BwdS * kb / m
			}
			act += p.Ops[i].OutBytes / m
			for _, k := range p.Ops[i].Params {
				if p.Params[k].FirstUse == i {
					st.ParamBytes += p.Params[k].Bytes
				}
			}
		}
		if s < K-1 {
			l := link(s, st.LastOp)
			xf[s] = l.TotalS
			st.CutBytes = cut[st.LastOp]
			st.TransferMs = ps.dir * l.TotalS * 1e3
		}
		inflight := m
		if ps.opt.Schedule == OneFOneB {
			inflight = math.Min(m, float64(K-s))
		}
		if !ps.train {
			inflight = 1
		}
		st.PeakActivationBytes = act * inflight
		st.ComputeMs = m * (f[s] + bw[s]) * 1e3
		res.Stages = append(res.Stages, st)
	}
}

// schedule runs the GPipe recurrence over M micro-batches (forward, then
// in training backward in reverse stage order) and returns the end of the
// last one and, with opt.Timeline, the spans of the first TraceGPUs
// stages.
func (ps *pipeStages) schedule(M int) (float64, []Span) {
	c, opt, f, bw, xf, K := ps.c, ps.opt, ps.f, ps.bw, ps.xf, ps.stageCount
	F := make([]float64, K) // finish of the last micro-batch seen, per stage
	var spans []Span
	traceStages := min(K, opt.TraceGPUs)
	for mb := 0; mb < M; mb++ {
		for s := 0; s < K; s++ {
			start := F[s]
			if s > 0 {
				start = math.Max(start, F[s-1]+xf[s-1]) // F[s-1] already holds mb
			}
			F[s] = start + f[s]
			if opt.Timeline && s > 0 && s-1 < traceStages {
				spans = append(spans, stageTransferSpan(c, s-1, s, fmt.Sprintf("act%d", mb), F[s-1], xf[s-1])...)
			}
			if opt.Timeline && s < traceStages {
				spans = append(spans, Span{Track: c.DeviceOf(s).String(), Name: fmt.Sprintf("F%d", mb), Cat: "forward", StartMs: start * 1e3, EndMs: F[s] * 1e3})
			}
		}
	}
	if !ps.train {
		return F[K-1], spans
	}
	B := make([]float64, K)
	for s := range B {
		B[s] = F[K-1]
	}
	for mb := 0; mb < M; mb++ {
		for s := K - 1; s >= 0; s-- {
			start := math.Max(B[s], F[s])
			if s < K-1 {
				start = math.Max(start, B[s+1]+xf[s])
			}
			B[s] = start + bw[s]
			if opt.Timeline && s < K-1 && s+1 < traceStages {
				spans = append(spans, stageTransferSpan(c, s+1, s, fmt.Sprintf("grad%d", mb), B[s+1], xf[s])...)
			}
			if opt.Timeline && s < traceStages {
				spans = append(spans, Span{Track: c.DeviceOf(s).String(), Name: fmt.Sprintf("B%d", mb), Cat: "backward", StartMs: start * 1e3, EndMs: B[s] * 1e3})
			}
		}
	}
	return B[0], spans
}

// pipelineAssumptions are the lines a pipeline result states about its
// model: stages, replicas, micro-batches and the partition, the idle-time
// scaling when there is any, and the replicas' all-reduce.
func pipelineAssumptions(K, R, M, n int, sched Schedule, kf, kb float64) []string {
	out := []string{fmt.Sprintf("pipeline: %d stage(s) x %d replica(s), %d micro-batch(es) of 1/%d of the batch each (op time scaled linearly), %s schedule; partition by %s over %d ops balancing stage compute against activation bytes cut",
		K, R, M, M, sched, map[bool]string{true: "dynamic program", false: "dynamic program on op chunks (or an even split)"}[float64(K)*float64(n)*float64(n) <= dpLimit], n)}
	if kf > 1 || kb > 1 {
		out = append(out, fmt.Sprintf("pipeline: the idle time the one-GPU step leaves between kernels (host launch and dispatch) is spread over the ops in proportion to their time (forward x%.3g, backward x%.3g) and shrinks with the micro-batch like the rest (optimistic for launch-bound models)", kf, kb))
	}
	if R > 1 {
		out = append(out, "pipeline replicas all-reduce each stage's gradients (ring) after the step, not overlapped")
	}
	return out
}

// stageTransferSpan draws a transfer between pipeline stages that crosses
// machines on the sending machine's NIC track (none inside a machine).
func stageTransferSpan(c *Cluster, from, to int, name string, start, dur float64) []Span {
	a, b := c.DeviceOf(from), c.DeviceOf(to)
	if a.Machine == b.Machine || dur <= 0 {
		return nil
	}
	return []Span{{Track: fmt.Sprintf("m%d/nic", a.Machine), Name: fmt.Sprintf("%s %s -> %s", name, a, b), Cat: "comm", StartMs: start * 1e3, EndMs: (start + dur) * 1e3}}
}

// idleScale returns the factors that make the ops' forward and backward
// device times sum to the forward and backward wall time of the one-GPU
// step (which includes the idle time between kernels), at least 1.
func (p *Profile) idleScale() (kf, kb float64) {
	var sf, sb float64
	for i := range p.Ops {
		sf += p.Ops[i].FwdS
		sb += p.Ops[i].BwdS
	}
	kf, kb = 1, 1
	if sf > 0 && p.ForwardS > sf {
		kf = p.ForwardS / sf
	}
	if sb > 0 && p.BackwardS > sb {
		kb = p.BackwardS / sb
	}
	return kf, kb
}

// modelBatch is dim 0 of the model's first graph input when it is static
// (0 when unknown).
func (p *Profile) modelBatch() int64 {
	if p.Model == nil || p.Model.Graph == nil {
		return 0
	}
	for _, in := range p.Model.Graph.Inputs {
		if in.Const != nil {
			continue
		}
		sh := in.Type.Shape
		if sh.Rank() > 0 && sh.Dims[0].IsConcrete() && sh.Dims[0].Val > 0 {
			return sh.Dims[0].Val
		}
		return 0
	}
	return 0
}
