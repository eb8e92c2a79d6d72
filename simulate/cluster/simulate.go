package cluster

// This file implements the cluster simulation driver: options, the result,
// strategy selection (auto), the per-transport comparison and sweeps.

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/wolong-dev/wolong/simulate"
)

// Strategy is how work is split across GPUs.
type Strategy string

// Strategies.
const (
	Auto      Strategy = "auto"      // the highest predicted throughput of the others
	PS        Strategy = "ps"        // data parallel, sharded parameter servers
	AllReduce Strategy = "allreduce" // data parallel, ring / hierarchical all-reduce
	Pipeline  Strategy = "pipeline"  // model split into stages, micro-batches
)

// Strategies lists the concrete strategies in the order auto tries them.
func Strategies() []Strategy { return []Strategy{AllReduce, PS, Pipeline} }

// ParseStrategy validates a --strategy value ("" is auto).
func ParseStrategy(s string) (Strategy, error) {
	switch Strategy(strings.ToLower(s)) {
	case "", Auto:
		return Auto, nil
	case PS, AllReduce, Pipeline:
		return Strategy(strings.ToLower(s)), nil
	case "dp", "ring":
		return AllReduce, nil
	}
	return "", fmt.Errorf("unknown strategy %q (want ps, allreduce, pipeline or auto)", s)
}

// Schedule is the pipeline schedule.
type Schedule string

// Pipeline schedules.
const (
	GPipe    Schedule = "gpipe" // all forwards, then all backwards: M micro-batches of activations live
	OneFOneB Schedule = "1f1b"  // one forward one backward in the steady state: at most K in flight
)

// DefaultBucketBytes is the gradient bucket (tensor fusion buffer) size
// when Options.BucketBytes is 0: PyTorch DistributedDataParallel's 25 MiB.
const DefaultBucketBytes = 25 << 20

// DefaultFusionCycleS is Horovod's default fusion cycle
// (HOROVOD_CYCLE_TIME, 5 ms).
const DefaultFusionCycleS = 5e-3

// DefaultTraceGPUs bounds the GPUs (and their machines' NICs) drawn in
// the timeline when Options.TraceGPUs is 0.
const DefaultTraceGPUs = 8

// Options steer a cluster simulation.
type Options struct {
	Strategy  Strategy      // default auto
	Transport Transport     // default rdma
	Mode      simulate.Mode // default train
	Algorithm Algorithm     // all-reduce algorithm (default: hierarchical when it applies)
	// BucketBytes is the gradient bucket size for all-reduce (tensor
	// fusion); 0 means DefaultBucketBytes, a negative value one bucket per
	// tensor.
	BucketBytes float64
	// FusionCycleS is how long the fusion loop waits for more gradients
	// once one is ready (0: DefaultFusionCycleS; negative: none).
	FusionCycleS float64
	// Pipeline: stages (default: every GPU; fewer gives GPUs/Stages data-
	// parallel replicas), micro-batches per step (default 4 x stages, at
	// most the batch) and schedule (default 1f1b).
	Stages       int
	MicroBatches int
	Schedule     Schedule
	// PSShards is the number of parameter-server shards (default: one per
	// machine).
	PSShards int
	// RegisteredLimitBytes overrides the network preset's registered-
	// memory limit per machine (rdma receive buffers); 0 keeps it.
	RegisteredLimitBytes float64
	// Timeline fills Result.Timeline (TraceGPUs GPUs, default 8).
	Timeline  bool
	TraceGPUs int
	// NoCompare skips Result.Transports (the same step under every
	// transport).
	NoCompare bool
}

// LinkUse is how busy one class of link was during a step.
type LinkUse struct {
	Link        string  `json:"link"` // "network (per machine)", "nvlink (per GPU)", "pcie staging (per GPU)"
	Bytes       float64 `json:"bytes"`
	BusyMs      float64 `json:"busy_ms"`
	Utilization float64 `json:"utilization"` // busy / step
}

// Span is one interval of the timeline.
type Span struct {
	Track   string  `json:"track"` // "m0/gpu0", "m0/nic"
	Name    string  `json:"name"`
	Cat     string  `json:"cat"` // forward, backward, optimizer, comm, bubble
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
}

// TransportStep is the predicted step under one transport.
type TransportStep struct {
	Transport        Transport `json:"transport"`
	StepMs           float64   `json:"step_ms"`
	SpeedupVsGRPCTCP float64   `json:"speedup_vs_grpc_tcp"`
}

// Candidate is one strategy auto considered.
type Candidate struct {
	Strategy   Strategy `json:"strategy"`
	StepMs     float64  `json:"step_ms,omitempty"`
	Throughput float64  `json:"throughput,omitempty"` // samples / s
	Declined   string   `json:"declined,omitempty"`
}

// Stage is one pipeline stage.
type Stage struct {
	Device              Device  `json:"device"`
	FirstOp, LastOp     int     `json:"-"` // op index range [FirstOp, LastOp]
	First               string  `json:"first_op"`
	Last                string  `json:"last_op"`
	Ops                 int     `json:"ops"`
	ComputeMs           float64 `json:"compute_ms"`            // forward + backward per step
	CutBytes            float64 `json:"cut_bytes"`             // activation bytes sent to the next stage per step
	TransferMs          float64 `json:"transfer_ms"`           // to the next stage per micro-batch, forward + backward
	PeakActivationBytes float64 `json:"peak_activation_bytes"` // activations held under the schedule
	ParamBytes          float64 `json:"param_bytes"`
}

// Result is a simulated step on a cluster.
type Result struct {
	Cluster   string        `json:"cluster"`
	GPU       string        `json:"gpu"`
	Network   string        `json:"network"`
	Strategy  Strategy      `json:"strategy"`
	Transport Transport     `json:"transport"`
	Mode      simulate.Mode `json:"mode"`
	GPUs      int           `json:"gpus"`
	Batch     int64         `json:"batch_per_gpu"` // 0: as the model gives it
	// GlobalBatch is the samples one step processes (batch x replicas;
	// 1 per replica when the batch is not known).
	GlobalBatch float64 `json:"global_batch"`

	StepMs      float64 `json:"step_ms"`
	ComputeMs   float64 `json:"compute_ms"`    // busiest GPU's compute
	CommMs      float64 `json:"comm_ms"`       // communication not hidden behind compute
	BubbleMs    float64 `json:"bubble_ms"`     // pipeline fill / drain idle time
	CommTotalMs float64 `json:"comm_total_ms"` // all communication, hidden or not
	OneGPUMs    float64 `json:"one_gpu_step_ms"`
	// Efficiency is the scaling efficiency: the one-GPU time of the step's
	// work divided by GPUs x step time (1 = linear scaling). Under ps it
	// can slightly exceed 1: the servers shard the optimizer update that
	// one GPU runs whole.
	Efficiency float64 `json:"efficiency"`
	Speedup    float64 `json:"speedup"`    // over one GPU doing the same work
	Throughput float64 `json:"throughput"` // samples / s

	Algorithm Algorithm `json:"algorithm,omitempty"`
	Buckets   int       `json:"buckets,omitempty"`
	Stages    []Stage   `json:"stages,omitempty"`
	Schedule  Schedule  `json:"schedule,omitempty"`
	Micro     int       `json:"micro_batches,omitempty"`

	Links      []LinkUse       `json:"links"`
	Transports []TransportStep `json:"transports,omitempty"`
	Candidates []Candidate     `json:"candidates,omitempty"`
	Timeline   []Span          `json:"-"`

	Caveats
}

// DeclineError says a strategy does not apply to this model and cluster.
type DeclineError struct {
	Strategy Strategy
	Reason   string
}

func (e *DeclineError) Error() string {
	return fmt.Sprintf("%s declined: %s", e.Strategy, e.Reason)
}

func (o *Options) defaults() error {
	if o.Strategy == "" {
		o.Strategy = Auto
	}
	st, err := ParseStrategy(string(o.Strategy))
	if err != nil {
		return err
	}
	o.Strategy = st
	if o.Transport == "" {
		o.Transport = RDMA
	}
	tr, err := ParseTransport(string(o.Transport))
	if err != nil {
		return err
	}
	o.Transport = tr
	if o.Mode == "" {
		o.Mode = simulate.Train
	}
	mode, err := simulate.ParseMode(string(o.Mode))
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	o.Mode = mode
	if o.BucketBytes == 0 {
		o.BucketBytes = DefaultBucketBytes
	}
	if o.FusionCycleS == 0 {
		o.FusionCycleS = DefaultFusionCycleS
	}
	if o.FusionCycleS < 0 {
		o.FusionCycleS = 0
	}
	if o.Schedule == "" {
		o.Schedule = OneFOneB
	}
	if o.Schedule != GPipe && o.Schedule != OneFOneB {
		return fmt.Errorf("unknown schedule %q (want gpipe or 1f1b)", o.Schedule)
	}
	if o.Stages < 0 || o.MicroBatches < 0 || o.PSShards < 0 || o.RegisteredLimitBytes < 0 || o.TraceGPUs < 0 {
		return fmt.Errorf("stages, micro-batches, shards, registered limit and trace GPUs must be >= 0")
	}
	if o.TraceGPUs == 0 {
		o.TraceGPUs = DefaultTraceGPUs
	}
	return nil
}

// Simulate predicts one step of p's model on c under opt.
func Simulate(p *Profile, c *Cluster, opt Options) (*Result, error) {
	if p == nil || c == nil {
		return nil, fmt.Errorf("no profile or cluster")
	}
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	var res *Result
	var err error
	if opt.Strategy == Auto {
		res, err = auto(p, c, opt)
	} else {
		res, err = run(p, c, opt)
	}
	if err != nil {
		return nil, err
	}
	if !opt.NoCompare {
		compareTransports(p, c, opt, res)
	}
	return res, nil
}

func auto(p *Profile, c *Cluster, opt Options) (*Result, error) {
	var best *Result
	var cands []Candidate
	for _, s := range Strategies() {
		o := opt
		o.Strategy = s
		o.Timeline = false
		r, err := run(p, c, o)
		var de *DeclineError
		switch {
		case errors.As(err, &de):
			cands = append(cands, Candidate{Strategy: s, Declined: de.Reason})
			continue
		case err != nil:
			return nil, err
		}
		cands = append(cands, Candidate{Strategy: s, StepMs: r.StepMs, Throughput: r.Throughput})
		// strategies differ in the samples a step processes (a pipeline
		// replica splits one batch): compare throughput
		if best == nil || r.Throughput > best.Throughput*(1+1e-9) {
			best = r
		}
	}
	if best == nil {
		return nil, fmt.Errorf("auto: every strategy declined")
	}
	if opt.Timeline {
		o := opt
		o.Strategy = best.Strategy
		r, err := run(p, c, o)
		if err != nil {
			return nil, err
		}
		best = r
	}
	best.Candidates = cands
	best.Assumptions = append(best.Assumptions, fmt.Sprintf("strategy auto: picked %s, the highest predicted throughput", best.Strategy))
	return best, nil
}

func compareTransports(p *Profile, c *Cluster, opt Options, res *Result) {
	if c.Machines < 2 {
		return
	}
	var base float64
	steps := map[Transport]float64{}
	for _, tr := range Transports() {
		o := opt
		o.Strategy = res.Strategy
		o.Transport = tr
		o.Timeline = false
		r, err := run(p, c, o)
		if err != nil {
			return
		}
		steps[tr] = r.StepMs
		if tr == GRPCTCP {
			base = r.StepMs
		}
	}
	for _, tr := range Transports() {
		s := steps[tr]
		res.Transports = append(res.Transports, TransportStep{Transport: tr, StepMs: s, SpeedupVsGRPCTCP: base / s})
	}
}

// run simulates one concrete strategy.
func run(p *Profile, c *Cluster, opt Options) (*Result, error) {
	res := &Result{
		Cluster: fmt.Sprintf("%dx%d", c.Machines, c.GPUsPerMachine), GPU: c.GPU.Name, Network: c.Net.Name,
		Strategy: opt.Strategy, Transport: opt.Transport, Mode: opt.Mode, GPUs: c.GPUs(), Batch: p.Batch,
	}
	if (opt.Transport == RDMA || opt.Transport == GRPCRDMA) && !c.Net.RDMA {
		res.Warnings = append(res.Warnings, fmt.Sprintf("transport %s: network %s has no RDMA verbs; transfers fall back to grpc-tcp", opt.Transport, c.Net.Name))
	}
	var err error
	switch opt.Strategy {
	case AllReduce:
		err = simAllReduce(p, c, opt, res)
	case PS:
		err = simPS(p, c, opt, res)
	case Pipeline:
		err = simPipeline(p, c, opt, res)
	default:
		err = fmt.Errorf("strategy %q is not concrete", opt.Strategy)
	}
	if err != nil {
		return nil, err
	}
	for i := range res.Links {
		l := &res.Links[i]
		if res.StepMs > 0 {
			l.Utilization = math.Min(1, l.BusyMs/res.StepMs)
		}
	}
	if res.StepMs > 0 {
		res.Throughput = res.GlobalBatch / (res.StepMs / 1e3)
	}
	res.Assumptions = append(res.Assumptions, c.Assumptions()...)
	res.Assumptions = append(res.Assumptions, p.Notes...)
	res.Assumptions = append(res.Assumptions, fmt.Sprintf("one-GPU step from simulate on %s: forward %.3f ms, backward %.3f ms, optimizer %.3f ms, %d parameters tensors (%.1f MB)",
		p.GPU.Name, p.ForwardS*1e3, p.BackwardS*1e3, p.OptimizerS*1e3, len(p.Params), p.ParamBytes/1e6))
	return res, nil
}

// oneGPU returns the single-GPU step time (s) in mode.
func (p *Profile) oneGPU(mode simulate.Mode) float64 {
	if mode == simulate.Inference {
		return p.ForwardS
	}
	return p.StepS
}

func (p *Profile) samples() float64 {
	if p.Batch > 0 {
		return float64(p.Batch)
	}
	return 1
}

// finish fills the derived numbers of a data-parallel-like result.
func finish(res *Result, oneS, workS, stepS float64, gpus int) {
	res.StepMs = stepS * 1e3
	res.OneGPUMs = oneS * 1e3
	if stepS > 0 && gpus > 0 {
		res.Speedup = workS / stepS
		res.Efficiency = res.Speedup / float64(gpus)
	}
}

// SweepPoint is one cluster size of a scaling sweep.
type SweepPoint struct {
	GPUs           int      `json:"gpus"`
	Machines       int      `json:"machines"`
	GPUsPerMachine int      `json:"gpus_per_machine"`
	Strategy       Strategy `json:"strategy"`
	StepMs         float64  `json:"step_ms"`
	CommMs         float64  `json:"comm_ms"`
	BubbleMs       float64  `json:"bubble_ms"`
	Throughput     float64  `json:"throughput"` // samples / s
	Speedup        float64  `json:"speedup"`    // throughput over one GPU's
	Efficiency     float64  `json:"efficiency"`
	Declined       string   `json:"declined,omitempty"`
}

// Sweep simulates p on clusters of each size in gpus, filling machines of
// perMachine GPUs (a size below perMachine is one machine of that many).
// A strategy that declines a size gives a point with Declined set.
func Sweep(p *Profile, base *Cluster, gpus []int, opt Options) ([]SweepPoint, error) {
	if p == nil || base == nil {
		return nil, fmt.Errorf("no profile or cluster")
	}
	per := base.GPUsPerMachine
	var out []SweepPoint
	opt.Timeline = false
	opt.NoCompare = true
	for _, n := range gpus {
		if n < 1 || n > MaxGPUs {
			return nil, fmt.Errorf("sweep size %d out of range 1..%d", n, MaxGPUs)
		}
		m, g := 1, n
		if n > per {
			if n%per != 0 {
				return nil, fmt.Errorf("sweep size %d is not a multiple of %d GPUs per machine", n, per)
			}
			m, g = n/per, per
		}
		c := *base
		c.Machines, c.GPUsPerMachine = m, g
		pt := SweepPoint{GPUs: n, Machines: m, GPUsPerMachine: g}
		r, err := Simulate(p, &c, opt)
		var de *DeclineError
		switch {
		case errors.As(err, &de):
			pt.Strategy, pt.Declined = de.Strategy, de.Reason
			out = append(out, pt)
			continue
		case err != nil:
			return nil, err
		}
		pt.Strategy, pt.StepMs, pt.CommMs, pt.BubbleMs = r.Strategy, r.StepMs, r.CommMs, r.BubbleMs
		pt.Throughput, pt.Speedup, pt.Efficiency = r.Throughput, r.Speedup, r.Efficiency
		out = append(out, pt)
	}
	return out, nil
}

// ParseGPUList parses a --sweep value "gpus=1,2,4,8" (or "1,2,4,8").
func ParseGPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "gpus=")
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		var n int
		if _, err := fmt.Sscanf(f, "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != f {
			return nil, fmt.Errorf("bad list of GPU counts %q (want gpus=1,2,4,...)", s)
		}
		out = append(out, n)
	}
	if len(out) > 64 {
		return nil, fmt.Errorf("%d cluster sizes, more than 64", len(out))
	}
	return out, nil
}
