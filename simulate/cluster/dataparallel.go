package cluster

// This file implements the data-parallel strategies. Every GPU runs the
// whole model on its own batch; gradients are combined every step:
//
//   - allreduce: gradients, in the order backward produces them (the
//     reverse of the forward order), are packed into buckets of
//     BucketBytes (tensor fusion); a bucket is all-reduced as soon as its
//     last gradient is ready and the previous bucket is done, overlapping
//     the rest of backward. The step ends when backward and the last
//     all-reduce are done, then the optimizer runs on every GPU.
//   - ps: parameters are sharded over parameter servers (largest tensor
//     to the least-loaded shard). Each worker pushes each gradient as soon
//     as backward produces it; the servers aggregate and update their
//     shard; each worker pulls the parameters back in the order forward
//     needs them, so the next forward waits only on the parameters of the
//     op it runs. Transfers of different tensors pipeline: a tensor
//     occupies the busiest resource of a machine (NIC, host CPU for the
//     RPC copies, PCIe for staging) for its share and pays its latency.

import (
	"fmt"
	"math"
	"sort"

	"github.com/wolong-dev/wolong/simulate"
)

// bucket is a group of gradients all-reduced together.
type bucket struct {
	bytes, readyS float64
	params        []int
}

// readyOrder returns p's parameters in the order backward completes their
// gradients (ties: later forward op first).
func readyOrder(p *Profile) []int {
	order := make([]int, len(p.Params))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		pa, pb := p.Params[order[a]], p.Params[order[b]]
		if pa.ReadyS != pb.ReadyS {
			return pa.ReadyS < pb.ReadyS
		}
		return pa.FirstUse > pb.FirstUse
	})
	return order
}

// fuse runs the tensor-fusion loop: when the link is free (at free) it
// waits for the next gradient, then takes every gradient ready within one
// fusion cycle of it, up to size bytes (size < 0: one tensor per bucket),
// as Horovod's background thread does each cycle. It calls launch with
// each bucket and its start time, which returns when the link frees.
func fuse(p *Profile, size, cycle float64, launch func(b bucket, start float64) (float64, error)) (int, float64, error) {
	order := readyOrder(p)
	free, count := 0.0, 0
	for i := 0; i < len(order); {
		first := p.Params[order[i]]
		s := math.Max(free, first.ReadyS)
		var b bucket
		for i < len(order) {
			q := p.Params[order[i]]
			if len(b.params) > 0 && (q.ReadyS > s+cycle || size < 0 || b.bytes+q.Bytes > size) {
				break
			}
			b.bytes += q.Bytes
			b.readyS = math.Max(b.readyS, q.ReadyS)
			b.params = append(b.params, order[i])
			i++
		}
		end, err := launch(b, math.Max(s, b.readyS))
		if err != nil {
			return 0, 0, err
		}
		free = end
		count++
	}
	return count, free, nil
}

// dataParallelStart sets the global batch of n GPUs each running the
// whole model (one is its one-GPU step time) and, when there is nothing to
// exchange (inference, one GPU, no parameters), finishes res as n
// independent replicas and reports done.
func dataParallelStart(p *Profile, c *Cluster, opt Options, res *Result) (n int, one float64, done bool) {
	n = c.GPUs()
	res.GlobalBatch = p.samples() * float64(n)
	one = p.oneGPU(opt.Mode)
	if opt.Mode == simulate.Inference || n == 1 || p.ParamBytes == 0 {
		res.ComputeMs = one * 1e3
		finish(res, one, one*float64(n), one, n)
		if opt.Timeline {
			res.Timeline = gpuSpans(p, c, opt, 0, nil)
		}
		return n, one, true
	}
	return n, one, false
}

func simAllReduce(p *Profile, c *Cluster, opt Options, res *Result) error {
	n, one, done := dataParallelStart(p, c, opt, res)
	if done {
		return nil
	}
	var total, nicBytes, nicBusy, intraBytes, intraBusy, stageBusy float64
	var nicSpans []Span
	count, t, err := fuse(p, opt.BucketBytes, opt.FusionCycleS, func(b bucket, start float64) (float64, error) {
		col, err := c.AllReduce(b.bytes, opt.Transport, opt.Algorithm)
		if err != nil {
			return 0, err
		}
		res.Algorithm = col.Algorithm
		end := start + col.TotalS
		total += col.TotalS
		nicBytes += col.NICBytes
		nicBusy += col.NICBusyS
		intraBytes += col.IntraBytes
		intraBusy += col.IntraBusyS
		stageBusy += col.StagingS
		if opt.Timeline {
			nicSpans = append(nicSpans, Span{Name: fmt.Sprintf("all-reduce %.1f MB (%d tensors)", b.bytes/1e6, len(b.params)), Cat: "comm", StartMs: start * 1e3, EndMs: end * 1e3})
		}
		return end, nil
	})
	if err != nil {
		return err
	}
	res.Buckets = count
	bwdEnd := p.ForwardS + p.BackwardS
	step := math.Max(bwdEnd, t) + p.OptimizerS
	res.ComputeMs = p.StepS * 1e3
	res.CommMs = (step - p.StepS) * 1e3
	res.CommTotalMs = total * 1e3
	finish(res, one, one*float64(n), step, n)
	if c.Machines > 1 {
		res.Links = append(res.Links, LinkUse{Link: c.Net.Name + " (per machine)", Bytes: nicBytes, BusyMs: nicBusy * 1e3})
	}
	if c.GPUsPerMachine > 1 {
		res.Links = append(res.Links, LinkUse{Link: c.Intra + " (per GPU)", Bytes: intraBytes, BusyMs: intraBusy * 1e3})
	}
	if stageBusy > 0 {
		res.Links = append(res.Links, LinkUse{Link: "pcie staging (per GPU)", BusyMs: stageBusy * 1e3})
	}
	res.Assumptions = append(res.Assumptions,
		fmt.Sprintf("allreduce (%s) over %s with tensor fusion: when the link frees, the gradients ready within a %.1f ms cycle (up to %.1f MB) go as one all-reduce (%d in all); backward runs in reverse op order; optimizer on every GPU after the last", res.Algorithm, opt.Transport, opt.FusionCycleS*1e3, opt.BucketBytes/1e6, count))
	if opt.Timeline {
		res.Timeline = gpuSpans(p, c, opt, 0, nil)
		res.Timeline = append(res.Timeline, nicTracks(c, opt, nicSpans)...)
	}
	return nil
}

// shardOf assigns every parameter to a shard: largest first, to the
// least-loaded shard (lowest index on ties).
func shardOf(p *Profile, shards int) ([]int, []float64) {
	order := make([]int, len(p.Params))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.Params[order[a]].Bytes > p.Params[order[b]].Bytes })
	of := make([]int, len(p.Params))
	load := make([]float64, shards)
	for _, k := range order {
		s := 0
		for j := 1; j < shards; j++ {
			if load[j] < load[s] {
				s = j
			}
		}
		of[k] = s
		load[s] += p.Params[k].Bytes
	}
	return of, load
}

// psCost is one tensor's push (or pull) on the busiest machine: the
// resources hold it for serviceS; it completes no sooner than one
// transfer of it alone (oneS: an RPC serializes, sends and deserializes a
// whole tensor in sequence).
type psCost struct {
	serviceS, oneS    float64
	nicS, cpuS, pcieS float64
	nicBytes          float64
}

func simPS(p *Profile, c *Cluster, opt Options, res *Result) error {
	n, one, done := dataParallelStart(p, c, opt, res)
	if done {
		return nil
	}
	shards := opt.PSShards
	if shards == 0 {
		shards = c.Machines
	}
	of, load := shardOf(p, shards)
	N, G := float64(c.Machines), float64(c.GPUsPerMachine)
	maxLoad := 0.0
	for _, l := range load {
		maxLoad = math.Max(maxLoad, l)
	}
	// fraction of the model the busiest shard's machine serves: shards
	// are spread round-robin over machines
	perMachine := make([]float64, c.Machines)
	for s, l := range load {
		perMachine[s%c.Machines] += l
	}
	busiest := 0.0
	for _, l := range perMachine {
		busiest = math.Max(busiest, l)
	}
	skew := 1.0
	if p.ParamBytes > 0 {
		skew = busiest / (p.ParamBytes / N) // 1 when perfectly balanced
	}
	reg := regPlan(p, c, opt, of, shards)
	threads := float64(max(1, c.Host.CopyThreads))
	costOf := func(k int) psCost {
		b := p.Params[k].Bytes
		if c.Machines == 1 { // every worker is local: peer copies to the server GPU
			pc := c.Peer(b)
			s := G * pc.WireS
			return psCost{serviceS: s, oneS: pc.TotalS}
		}
		tc := c.Transfer(opt.Transport, b, TransferOptions{Unregistered: reg.unregistered[k]})
		// each machine's G workers send (N-1)/N of every tensor off the
		// machine, and its server receives the same amount (balanced)
		cnt := G * (N - 1) / N * skew
		pc := psCost{oneS: tc.TotalS}
		pc.nicBytes = cnt * b
		pc.nicS = cnt * tc.WireS
		pc.cpuS = cnt * (tc.CopyS + tc.CPUS) / threads
		pc.pcieS = cnt * tc.StagingS / 2
		pc.serviceS = math.Max(pc.nicS, math.Max(pc.cpuS, pc.pcieS))
		return pc
	}
	costs := make([]psCost, len(p.Params))
	for k := range p.Params {
		costs[k] = costOf(k)
	}
	// pull, in forward-use order, from the start of the step
	pullOrder := make([]int, len(p.Params))
	for i := range pullOrder {
		pullOrder[i] = i
	}
	sort.SliceStable(pullOrder, func(a, b int) bool { return p.Params[pullOrder[a]].FirstUse < p.Params[pullOrder[b]].FirstUse })
	pulled := make([]float64, len(p.Params))
	t := 0.0
	var nicBytes, nicBusy, pcieBusy, total float64
	var nicSpans []Span
	for _, k := range pullOrder {
		start := t
		pulled[k] = t + math.Max(costs[k].serviceS, costs[k].oneS)
		t += costs[k].serviceS
		total += costs[k].serviceS
		nicBytes += costs[k].nicBytes
		nicBusy += costs[k].nicS
		pcieBusy += costs[k].pcieS
		if opt.Timeline {
			nicSpans = append(nicSpans, Span{Name: "pull " + p.Params[k].Name, Cat: "comm", StartMs: start * 1e3, EndMs: pulled[k] * 1e3})
		}
	}
	// forward waits for the parameters of each op
	fwdStart := make([]float64, len(p.Ops))
	ft := 0.0
	for i := range p.Ops {
		op := &p.Ops[i]
		for _, k := range op.Params {
			ft = math.Max(ft, pulled[k])
		}
		fwdStart[i] = ft
		ft += op.FwdS
	}
	fwdEnd := ft + (p.ForwardS - sumFwd(p)) // simulate's host gaps and free ops
	// push, in gradient-ready order
	pushOrder := make([]int, len(p.Params))
	for i := range pushOrder {
		pushOrder[i] = i
	}
	sort.SliceStable(pushOrder, func(a, b int) bool { return p.Params[pushOrder[a]].ReadyS < p.Params[pushOrder[b]].ReadyS })
	shift := fwdEnd - p.ForwardS
	t = 0
	pushEnd := 0.0
	for _, k := range pushOrder {
		start := math.Max(t, p.Params[k].ReadyS+shift)
		t = start + costs[k].serviceS
		done := start + math.Max(costs[k].serviceS, costs[k].oneS)
		pushEnd = math.Max(pushEnd, done)
		total += costs[k].serviceS
		nicBytes += costs[k].nicBytes
		nicBusy += costs[k].nicS
		pcieBusy += costs[k].pcieS
		if opt.Timeline {
			nicSpans = append(nicSpans, Span{Name: "push " + p.Params[k].Name, Cat: "comm", StartMs: start * 1e3, EndMs: done * 1e3})
		}
	}
	bwdEnd := fwdEnd + p.BackwardS
	// the servers sum N*G gradients and update their shard
	aggS := (N*G - 1) * maxLoad / (c.GPU.MemoryBandwidthGBs * 1e9 * 0.8)
	updS := p.OptimizerS * maxLoad / p.ParamBytes
	step := math.Max(bwdEnd, pushEnd) + aggS + updS
	compute := p.ForwardS + p.BackwardS + updS
	res.ComputeMs = compute * 1e3
	res.CommMs = (step - compute) * 1e3
	res.CommTotalMs = total * 1e3
	finish(res, one, one*float64(n), step, n)
	if c.Machines > 1 {
		res.Links = append(res.Links, LinkUse{Link: c.Net.Name + " (per machine)", Bytes: nicBytes, BusyMs: nicBusy * 1e3})
	}
	if pcieBusy > 0 {
		res.Links = append(res.Links, LinkUse{Link: "pcie staging (server GPU)", BusyMs: pcieBusy * 1e3})
	}
	res.Assumptions = append(res.Assumptions,
		fmt.Sprintf("ps over %s: %d shard(s) (largest tensor to the least-loaded shard; busiest machine serves %.1f MB), push each gradient when ready, servers aggregate %d gradients and update, pull in forward order; per tensor the busiest of NIC / host copies (%d threads) / PCIe staging bounds the pipeline, and a tensor completes no sooner than one transfer of it alone", opt.Transport, shards, busiest/1e6, n, max(1, c.Host.CopyThreads)))
	if reg.fallbacks > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("rdma: %d tensor(s) (%.1f MB) exceed the registered-memory limit of %.1f GB per machine and go through a bounce buffer with one copy", reg.fallbacks, reg.fallbackBytes/1e6, reg.limit/1e9))
	}
	if opt.Timeline {
		res.Timeline = gpuSpans(p, c, opt, 0, fwdStart)
		res.Timeline = append(res.Timeline, nicTracks(c, opt, nicSpans)...)
	}
	return nil
}

func sumFwd(p *Profile) float64 {
	s := 0.0
	for i := range p.Ops {
		s += p.Ops[i].FwdS
	}
	return s
}

// regInfo is the registered-memory outcome of the ps receive buffers.
type regInfo struct {
	unregistered  []bool
	fallbacks     int
	fallbackBytes float64
	limit         float64
	totalBytes    float64 // registered per machine (busiest)
}

// regPlan sizes the receive buffers one machine registers for ps over
// rdma (a slot per remote sender for each pushed gradient of its shards,
// and the full parameter set for its workers' pulls) and marks the
// tensors, in forward order, that no longer fit the limit.
func regPlan(p *Profile, c *Cluster, opt Options, of []int, shards int) regInfo {
	r := regInfo{unregistered: make([]bool, len(p.Params))}
	r.limit = opt.RegisteredLimitBytes
	if r.limit == 0 {
		r.limit = c.Net.MaxRegisteredGB * 1e9
	}
	if opt.Transport != RDMA || !c.Net.RDMA || c.Machines == 1 {
		return r
	}
	G := float64(c.GPUsPerMachine)
	remote := float64(c.Machines-1) * G
	order := make([]int, len(p.Params))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.Params[order[a]].FirstUse < p.Params[order[b]].FirstUse })
	// machine 0 serves shards 0, N, 2N, ...: the busiest in round-robin
	for _, k := range order {
		b := p.Params[k].Bytes * G // pull buffers of the local workers
		if of[k]%c.Machines == 0 {
			b += p.Params[k].Bytes * remote // push slots of the remote senders
		}
		if r.totalBytes+b > r.limit {
			r.unregistered[k] = true
			r.fallbacks++
			r.fallbackBytes += p.Params[k].Bytes
			continue
		}
		r.totalBytes += b
	}
	return r
}

// gpuSpans draws the compute of the first TraceGPUs GPUs: forward ops
// (at fwdStart when given), backward in reverse, the optimizer.
func gpuSpans(p *Profile, c *Cluster, opt Options, offset float64, fwdStart []float64) []Span {
	var out []Span
	for r := 0; r < min(c.GPUs(), opt.TraceGPUs); r++ {
		track := c.DeviceOf(r).String()
		t := offset
		for i := range p.Ops {
			op := &p.Ops[i]
			if fwdStart != nil {
				t = math.Max(t, offset+fwdStart[i])
			}
			if op.FwdS > 0 {
				out = append(out, Span{Track: track, Name: op.Name, Cat: "forward", StartMs: t * 1e3, EndMs: (t + op.FwdS) * 1e3})
			}
			t += op.FwdS
		}
		if opt.Mode == simulate.Inference {
			continue
		}
		for i := len(p.Ops) - 1; i >= 0; i-- {
			op := &p.Ops[i]
			if op.BwdS > 0 {
				out = append(out, Span{Track: track, Name: op.Name + ".grad", Cat: "backward", StartMs: t * 1e3, EndMs: (t + op.BwdS) * 1e3})
			}
			t += op.BwdS
		}
	}
	return out
}

// nicTracks copies one machine's NIC spans onto the NIC track of every
// machine drawn.
func nicTracks(c *Cluster, opt Options, spans []Span) []Span {
	machines := min(c.Machines, (min(c.GPUs(), opt.TraceGPUs)+c.GPUsPerMachine-1)/c.GPUsPerMachine)
	var out []Span
	for m := 0; m < machines; m++ {
		for _, s := range spans {
			s.Track = fmt.Sprintf("m%d/nic", m)
			out = append(out, s)
		}
	}
	return out
}
