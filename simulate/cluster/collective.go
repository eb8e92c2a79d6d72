package cluster

// This file implements the all-reduce collectives: a ring over n ranks
// (reduce-scatter then all-gather, 2(n-1) steps of S/n bytes each) and the
// hierarchical form (ring reduce-scatter inside each machine over NVLink
// or PCIe, G concurrent rings across machines over the NICs, ring
// all-gather inside each machine), and the NCCL collectives on rank
// groups (all-reduce, reduce-scatter, all-to-all, send) that the LLM
// planner costs.

import (
	"fmt"
	"math"
)

// Algorithm selects the all-reduce algorithm.
type Algorithm string

// Algorithms.
const (
	AlgoAuto         Algorithm = ""             // hierarchical when machines > 1 and GPUs per machine > 1, else ring
	AlgoRing         Algorithm = "ring"         // one flat ring over every GPU
	AlgoHierarchical Algorithm = "hierarchical" // NVLink/PCIe inside machines, then the network
)

// RingAllReduceS is the textbook cost of a ring all-reduce of bytes over n
// ranks on links of bandwidth bw (bytes/s) and one-way latency lat (s):
// 2(n-1)/n x bytes/bw + 2(n-1) x lat.
func RingAllReduceS(bytes float64, n int, bw, lat float64) float64 {
	if n <= 1 || bytes <= 0 {
		return 0
	}
	k := float64(n)
	return 2*(k-1)/k*bytes/bw + 2*(k-1)*lat
}

// Collective is the predicted cost of one all-reduce.
type Collective struct {
	Algorithm Algorithm `json:"algorithm"`
	Bytes     float64   `json:"bytes"`
	IntraS    float64   `json:"intra_s"` // inside machines (reduce-scatter + all-gather)
	InterS    float64   `json:"inter_s"` // across machines
	TotalS    float64   `json:"total_s"`
	// NICBytes is what each machine sends over its NICs; NICBusyS the
	// wire time of it; IntraBytes what each GPU sends on its intra link.
	NICBytes, NICBusyS, IntraBytes, IntraBusyS float64
	// CopyS and StagingS: host copies and PCIe staging inside TotalS.
	CopyS, StagingS float64
}

// AllReduce returns the cost of all-reducing bytes over every GPU of c
// with transport tr for the cross-machine steps.
func (c *Cluster) AllReduce(bytes float64, tr Transport, algo Algorithm) (Collective, error) {
	N, G := c.Machines, c.GPUsPerMachine
	switch algo {
	case AlgoAuto:
		algo = AlgoRing
		if N > 1 && G > 1 {
			algo = AlgoHierarchical
		}
	case AlgoRing, AlgoHierarchical:
	default:
		return Collective{}, fmt.Errorf("unknown all-reduce algorithm %q (want ring or hierarchical)", algo)
	}
	col := Collective{Algorithm: algo, Bytes: bytes}
	n := N * G
	if n <= 1 || bytes <= 0 {
		return col, nil
	}
	peer := func(b float64) TransferCost { return c.Peer(b) }
	if N == 1 { // one machine: a ring on the intra links
		k := float64(G)
		step := peer(bytes / k)
		col.IntraS = 2 * (k - 1) * step.TotalS
		col.IntraBytes = 2 * (k - 1) / k * bytes
		col.IntraBusyS = 2 * (k - 1) * step.WireS
		col.TotalS = col.IntraS
		return col, nil
	}
	if algo == AlgoRing || G == 1 {
		// every step moves bytes/n across each machine boundary; the
		// network hop is the slowest link of the ring
		k := float64(n)
		step := c.Transfer(tr, bytes/k, TransferOptions{})
		if G > 1 {
			if p := peer(bytes / k); p.TotalS > step.TotalS {
				step = p
			}
		}
		steps := 2 * (k - 1)
		col.InterS = steps*(step.TotalS+c.Host.CollectiveNetStepUs*1e-6) + c.Host.CollectiveBaseUs*1e-6
		col.NICBytes = steps * bytes / k
		col.NICBusyS = steps * step.WireS
		col.CopyS = steps * step.CopyS
		col.StagingS = steps * step.StagingS
		if G > 1 {
			col.IntraBytes = col.NICBytes
			col.IntraBusyS = steps * (bytes / k) / c.IntraGBs()
		}
		col.TotalS = col.InterS
		return col, nil
	}
	// hierarchical: reduce-scatter in the machine, G rings of bytes/G
	// across machines sharing the NICs, all-gather in the machine
	g := float64(G)
	rs := peer(bytes / g)
	col.IntraS = 2 * (g - 1) * rs.TotalS
	col.IntraBytes = 2 * (g - 1) / g * bytes
	col.IntraBusyS = 2 * (g - 1) * rs.WireS
	m := float64(N)
	chunk := bytes / g / m // per ring, per step
	one := c.Transfer(tr, chunk, TransferOptions{})
	wire := bytes / m / c.NICGBs() // the G rings' chunks share the machine's NICs
	stepS := one.TotalS - one.WireS + wire + c.Host.CollectiveNetStepUs*1e-6
	steps := 2 * (m - 1)
	col.InterS = steps * stepS
	col.NICBytes = steps * bytes / m
	col.NICBusyS = steps * wire
	col.CopyS = steps * one.CopyS
	col.StagingS = steps * one.StagingS
	col.TotalS = col.IntraS + col.InterS + c.Host.CollectiveBaseUs*1e-6
	return col, nil
}

// The collectives of the LLM planner (simulate/llm) on a group of ranks
// laid out on the cluster: n ranks, k of them in each NVLink domain (a
// machine; a GB200 NVL72 rack). Inside a domain a collective runs on
// NVLink at NCCL's achievable bus bandwidth; across domains each GPU gets
// its share of the machine's NICs (every GPU of a machine communicates at
// once in these layouts: one rail per GPU). A group that spans domains
// runs hierarchically: reduce-scatter inside, the all-reduce of a 1/k
// shard across, all-gather inside (NCCL's ring over NVLink-connected
// GPUs and one NIC each). The ring terms are RingAllReduceS's; AllReduce
// above costs the graph strategies' buckets through a Transport instead
// (the host copies and staging a gRPC or RDMA transfer adds), these
// collectives through NCCL's protocol figures.

// NVLinkEfficiency is the fraction of the per-direction NVLink bandwidth
// an NCCL collective reaches (bus bandwidth): nccl-tests all_reduce_perf
// on DGX A100 reports about 230 of 300 GB/s, on DGX H100 about 360-370 of
// 450 GB/s.
const NVLinkEfficiency = 0.8

// nvlinkHopUs is NCCL's latency per NVLink ring step (src/graph/tuning.cc,
// hwLat NVLink Ring Simple: 3.4 us); the per-network-step and base
// latencies are the host preset's.
const nvlinkHopUs = 3.4

// RankGroup is a communicator: n ranks, k per NVLink domain.
type RankGroup struct{ N, K int }

// Group returns the communicator of size ranks spaced stride apart in the
// rank order (ranks 0..G-1 fill the first domain).
func (c *Cluster) Group(size, stride int) RankGroup {
	G := c.GPUsPerMachine
	if size <= 1 {
		return RankGroup{N: 1, K: 1}
	}
	k := 1
	if stride < G {
		k = min(size, max(1, G/stride))
	}
	return RankGroup{N: size, K: k}
}

// Domains is how many NVLink domains g spans.
func (g RankGroup) Domains() int { return (g.N + g.K - 1) / g.K }

// intraBusGBs is the NCCL bus bandwidth inside a domain, bytes/s.
func (c *Cluster) intraBusGBs() float64 { return c.IntraGBs() * NVLinkEfficiency }

// RailGBs is one GPU's share of its machine's network, bytes/s.
func (c *Cluster) RailGBs() float64 { return c.NICGBs() / float64(c.GPUsPerMachine) }

// netHopS is one network step's latency.
func (c *Cluster) netHopS() float64 { return (c.Net.LatencyUs + c.Host.CollectiveNetStepUs) * 1e-6 }

// NCCL's low-latency protocol (LL; src/graph/tuning.cc): 6.8 us base
// latency per collective and 0.6 us per NVLink ring step, at half the
// Simple protocol's bandwidth (8-byte stores carrying 4 bytes of data and
// a flag). NCCL's tuner picks it for small messages: decode steps' all-
// reduces, not training's.
const (
	llBaseUs    = 6.8
	llHopUs     = 0.6
	llBandwidth = 0.5
)

// AllReduceS is an all-reduce of bytes on g: the faster of NCCL's Simple
// and LL protocols.
func (c *Cluster) AllReduceS(bytes float64, g RankGroup) float64 {
	if g.N <= 1 || bytes <= 0 {
		return 0
	}
	simple := c.allReduceProtoS(bytes, g, c.Host.CollectiveBaseUs, nvlinkHopUs, 1)
	return math.Min(simple, c.allReduceProtoS(bytes, g, llBaseUs, llHopUs, llBandwidth))
}

// allReduceProtoS is an all-reduce under one protocol: base latency and
// NVLink step latency in us, bw the fraction of the bus bandwidth.
func (c *Cluster) allReduceProtoS(bytes float64, g RankGroup, baseUs, hopUs, bw float64) float64 {
	k, m := float64(g.K), float64(g.Domains())
	s := baseUs * 1e-6
	if g.K > 1 { // reduce-scatter and all-gather inside the domain
		s += 2*(k-1)/k*bytes/(bw*c.intraBusGBs()) + 2*(k-1)*hopUs*1e-6
	}
	if m > 1 { // the 1/k shard across domains (tree latency)
		s += 2*(m-1)/m*(bytes/k)/(bw*c.RailGBs()) + 2*math.Ceil(math.Log2(m))*c.netHopS()
	}
	return s
}

// ReduceScatterS (and all-gather, the same traffic) of bytes (the full
// buffer) on g: half an all-reduce.
func (c *Cluster) ReduceScatterS(bytes float64, g RankGroup) float64 {
	if g.N <= 1 || bytes <= 0 {
		return 0
	}
	base := c.Host.CollectiveBaseUs * 1e-6
	return base + (c.allReduceProtoS(bytes, g, c.Host.CollectiveBaseUs, nvlinkHopUs, 1)-base)/2
}

// AllToAllS is an all-to-all in which every rank of g sends bytes in
// total (bytes/n to each rank): the part to ranks in its domain over
// NVLink, the rest over its rail, both at once.
func (c *Cluster) AllToAllS(bytes float64, g RankGroup) float64 {
	if g.N <= 1 || bytes <= 0 {
		return 0
	}
	n, k := float64(g.N), float64(g.K)
	intra := (k - 1) / n * bytes / c.intraBusGBs()
	inter := (n - k) / n * bytes / c.RailGBs()
	lat := nvlinkHopUs * 1e-6
	if g.N > g.K {
		lat = c.netHopS()
	}
	return c.Host.CollectiveBaseUs*1e-6 + math.Max(intra, inter) + lat
}

// SendS is a point-to-point send of bytes, inside a domain or across.
func (c *Cluster) SendS(bytes float64, cross bool) float64 {
	if bytes <= 0 {
		return 0
	}
	if cross {
		return bytes/c.RailGBs() + c.netHopS()
	}
	return bytes/c.intraBusGBs() + nvlinkHopUs*1e-6
}
