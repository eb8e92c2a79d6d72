package cluster

// This file implements placement: which device runs each node under a
// strategy, the explicit cross-device transfers with the mechanism each
// one uses, and the receive-buffer plan (sizes, reuse across steps,
// registered memory per machine, and what fell back to copies and why).
//
// With the rdma transport a tensor whose shape is static is written
// one-sided and zero-copy into a buffer the receiver allocated and
// registered once, before the first step, and reuses every step (same
// address, same size). A tensor whose shape is only known at run time
// sends its shape first; the receiver then allocates and reads it, so it
// has no preallocated buffer. Buffers are registered in the order the step
// needs them; those past the machine's registered-memory limit fall back
// to a registered bounce buffer and one copy.

import (
	"fmt"
	"sort"

	"github.com/wolong-dev/wolong/simulate"
)

// NodePlacement is where one node runs.
type NodePlacement struct {
	Node       string  `json:"node"`
	Op         string  `json:"op"`
	Replicated bool    `json:"replicated,omitempty"` // on every GPU (data parallel)
	Stage      int     `json:"stage"`                // pipeline stage (-1 when replicated)
	Device     *Device `json:"device,omitempty"`
}

// TransferRecord is one logical transfer per step (Count identical
// copies of it, e.g. one per worker or per micro-batch).
type TransferRecord struct {
	Kind      string    `json:"kind"` // push, pull, all-reduce, activation, activation-grad
	Tensor    string    `json:"tensor"`
	Bytes     float64   `json:"bytes"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	Count     int       `json:"count"`
	Static    bool      `json:"static"`
	Mechanism Mechanism `json:"mechanism"`
	TimeMs    float64   `json:"time_ms"` // one transfer alone
	Fallback  string    `json:"fallback,omitempty"`
}

// Buffer is one receive buffer a machine preallocates.
type Buffer struct {
	Machine    int     `json:"machine"`
	Tensor     string  `json:"tensor"`
	Bytes      float64 `json:"bytes"` // per slot
	Slots      int     `json:"slots"` // one per sender (one-sided writes must not collide)
	Registered bool    `json:"registered"`
	// Reused: the same buffer serves every step (static shape).
	Reused bool   `json:"reused_across_steps"`
	Note   string `json:"note,omitempty"`
}

// Placement is the plan for one strategy on one cluster.
type Placement struct {
	Cluster   string           `json:"cluster"`
	Strategy  Strategy         `json:"strategy"`
	Transport Transport        `json:"transport"`
	Nodes     []NodePlacement  `json:"nodes"`
	Transfers []TransferRecord `json:"transfers"`
	Buffers   []Buffer         `json:"buffers"`
	// RegisteredBytes per machine; LimitBytes the registered-memory limit.
	RegisteredBytes []float64 `json:"registered_bytes"`
	LimitBytes      float64   `json:"limit_bytes"`
	// Fallbacks says what did not get a zero-copy transfer and why.
	Fallbacks []string `json:"fallbacks,omitempty"`
}

// maxBufferRecords bounds Buffers (per-machine records of a large cluster
// are summarized beyond it).
const maxBufferRecords = 100000

// Place plans strategy opt.Strategy (auto: the one Simulate picks) of p's
// model on c.
func Place(p *Profile, c *Cluster, opt Options) (*Placement, error) {
	if p == nil || c == nil {
		return nil, fmt.Errorf("no profile or cluster")
	}
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	opt.NoCompare, opt.Timeline = true, false
	res, err := Simulate(p, c, opt)
	if err != nil {
		return nil, err // a *DeclineError when the strategy does not apply
	}
	pl := &Placement{Cluster: fmt.Sprintf("%dx%d", c.Machines, c.GPUsPerMachine), Strategy: res.Strategy, Transport: opt.Transport}
	pl.RegisteredBytes = make([]float64, c.Machines)
	pl.LimitBytes = opt.RegisteredLimitBytes
	if pl.LimitBytes == 0 {
		pl.LimitBytes = c.Net.MaxRegisteredGB * 1e9
	}
	pc := &placer{pl: pl, p: p, c: c, opt: opt, rdma: opt.Transport == RDMA && c.Net.RDMA}
	if opt.Transport == RDMA && !c.Net.RDMA {
		pl.Fallbacks = append(pl.Fallbacks, fmt.Sprintf("network %s has no RDMA verbs: every transfer uses grpc-tcp (serialize, kernel TCP, deserialize)", c.Net.Name))
	}
	switch res.Strategy {
	case Pipeline:
		pc.pipeline(res)
	case PS:
		pc.ps()
	default: // allreduce
		if err := pc.allReduce(); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// placer builds one Placement: the buffers it registers and the
// transfers it records.
type placer struct {
	pl   *Placement
	p    *Profile
	c    *Cluster
	opt  Options
	rdma bool // the transport is RDMA and the network has it
}

// register records buffer b on machine m, registered if it fits under
// the limit, and returns whether it did.
func (pc *placer) register(m int, b Buffer) bool {
	pl := pc.pl
	total := b.Bytes * float64(b.Slots)
	b.Machine = m
	b.Registered = pc.rdma && pl.RegisteredBytes[m]+total <= pl.LimitBytes
	if b.Registered {
		pl.RegisteredBytes[m] += total
	} else if pc.rdma && b.Note == "" {
		b.Note = "over the registered-memory limit: bounce buffer + one copy"
	} else if !pc.rdma && b.Note == "" {
		b.Note = "rpc transport: received into RPC buffers, then copied"
	}
	if len(pl.Buffers) < maxBufferRecords {
		pl.Buffers = append(pl.Buffers, b)
	}
	return b.Registered
}

// xfer records a transfer of bytes, costed across machines (cross) by
// the transport, else as a peer copy; fits says whether its receive
// buffer was registered.
func (pc *placer) xfer(kind, tensor string, bytes float64, from, to string, count int, static, cross, fits bool) {
	pl := pc.pl
	r := TransferRecord{Kind: kind, Tensor: tensor, Bytes: bytes, From: from, To: to, Count: count, Static: static}
	var tc TransferCost
	if cross {
		tc = pc.c.Transfer(pc.opt.Transport, bytes, TransferOptions{Dynamic: !static, Unregistered: pc.rdma && static && !fits})
	} else {
		tc = pc.c.Peer(bytes)
	}
	r.Mechanism, r.TimeMs, r.Fallback = tc.Mechanism, tc.TotalS*1e3, tc.Fallback
	if r.Fallback != "" && len(pl.Fallbacks) < maxListed {
		pl.Fallbacks = append(pl.Fallbacks, fmt.Sprintf("%s %s (%.1f MB): %s", kind, tensor, bytes/1e6, r.Fallback))
	}
	pl.Transfers = append(pl.Transfers, r)
}

// replicated places every op on every GPU.
func (pc *placer) replicated() {
	for i := range pc.p.Ops {
		pc.pl.Nodes = append(pc.pl.Nodes, NodePlacement{Node: pc.p.Ops[i].Name, Op: pc.p.Ops[i].Op, Replicated: true, Stage: -1})
	}
}

// pipeline places each stage's ops on its device and the activations (and
// in training their gradients) across each stage boundary, double-buffered.
func (pc *placer) pipeline(res *Result) {
	p, pl := pc.p, pc.pl
	for s, st := range res.Stages {
		d := st.Device
		for i := st.FirstOp; i <= st.LastOp; i++ {
			pl.Nodes = append(pl.Nodes, NodePlacement{Node: p.Ops[i].Name, Op: p.Ops[i].Op, Stage: s, Device: &d})
		}
	}
	cut, dyn := cutBytes(p)
	M := res.Micro
	for s := 0; s+1 < len(res.Stages); s++ {
		a, b := res.Stages[s].Device, res.Stages[s+1].Device
		bd := res.Stages[s].LastOp
		bytes := cut[bd] / float64(M)
		cross := a.Machine != b.Machine
		name := fmt.Sprintf("stage %d -> %d cut after %s", s, s+1, res.Stages[s].Last)
		fitsA, fitsB := true, true
		if cross && !dyn[bd] {
			// double-buffered: micro-batch m+1 arrives while m is consumed
			fitsB = pc.register(b.Machine, Buffer{Tensor: name, Bytes: bytes, Slots: 2, Reused: true})
			fitsA = pc.register(a.Machine, Buffer{Tensor: name + " (gradient)", Bytes: bytes, Slots: 2, Reused: true})
		} else if cross {
			pl.Buffers = append(pl.Buffers, Buffer{Machine: b.Machine, Tensor: name, Note: "dynamic shape: allocated after the shape message each micro-batch, not preregistered"})
		}
		pc.xfer("activation", name, bytes, a.String(), b.String(), M, !dyn[bd], cross, fitsB)
		if pc.opt.Mode != simulate.Inference {
			pc.xfer("activation-grad", name, bytes, b.String(), a.String(), M, !dyn[bd], cross, fitsA)
		}
	}
}

// ps replicates the ops and, in training, shards the parameters over the
// servers: gradient buffers on each one's server, parameter buffers on
// the other machines, pushes and pulls in forward order of first use.
func (pc *placer) ps() {
	p, c, opt := pc.p, pc.c, pc.opt
	pc.replicated()
	if opt.Mode == simulate.Inference || c.GPUs() == 1 {
		return
	}
	shards := opt.PSShards
	if shards == 0 {
		shards = c.Machines
	}
	of, _ := shardOf(p, shards)
	G := c.GPUsPerMachine
	order := make([]int, len(p.Params))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.Params[order[a]].FirstUse < p.Params[order[b]].FirstUse })
	for _, k := range order {
		q := p.Params[k]
		srv := of[k] % c.Machines
		remote := (c.Machines - 1) * G
		fits := true
		if c.Machines > 1 {
			fits = pc.register(srv, Buffer{Tensor: "grad " + q.Name, Bytes: q.Bytes, Slots: remote, Reused: true})
			for m := 0; m < c.Machines; m++ {
				if m != srv {
					pc.register(m, Buffer{Tensor: q.Name, Bytes: q.Bytes, Slots: G, Reused: true})
				}
			}
		}
		to := fmt.Sprintf("m%d/ps%d", srv, of[k])
		from := fmt.Sprintf("workers off m%d", srv)
		if c.Machines > 1 {
			pc.xfer("push", "grad "+q.Name, q.Bytes, from, to, remote, true, true, fits)
			pc.xfer("pull", q.Name, q.Bytes, to, from, remote, true, true, true)
		}
		if G > 1 || c.Machines == 1 {
			pc.xfer("push", "grad "+q.Name, q.Bytes, fmt.Sprintf("workers on m%d", srv), to, G, true, false, true)
		}
	}
}

// allReduce replicates the ops and, in training across machines, records
// each fused gradient bucket's ring chunks and their buffers.
func (pc *placer) allReduce() error {
	p, c, opt := pc.p, pc.c, pc.opt
	pc.replicated()
	if opt.Mode == simulate.Inference || c.GPUs() == 1 || p.ParamBytes == 0 {
		return nil
	}
	n := c.GPUs()
	_, _, err := fuse(p, opt.BucketBytes, opt.FusionCycleS, func(b bucket, start float64) (float64, error) {
		name := fmt.Sprintf("fused gradients %s..%s (%d tensors)", p.Params[b.params[0]].Name, p.Params[b.params[len(b.params)-1]].Name, len(b.params))
		col, err := c.AllReduce(b.bytes, opt.Transport, opt.Algorithm)
		if err != nil {
			return 0, err
		}
		if c.Machines > 1 {
			chunk := b.bytes / float64(n)
			if col.Algorithm == AlgoHierarchical {
				chunk = b.bytes / float64(c.GPUsPerMachine*c.Machines)
			}
			fits := true
			for m := 0; m < c.Machines; m++ {
				fits = pc.register(m, Buffer{Tensor: name + " chunk", Bytes: chunk, Slots: c.GPUsPerMachine, Reused: true}) && fits
			}
			pc.xfer("all-reduce", name, chunk, "ring predecessor", "ring successor", int(2*(float64(c.Machines)-1)), true, true, fits)
		}
		return start + col.TotalS, nil
	})
	return err
}

// maxListed bounds lists of names in messages.
const maxListed = 10
