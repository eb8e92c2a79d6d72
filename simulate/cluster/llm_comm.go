package cluster

// This file implements the collectives of the LLM planner on a group of
// ranks laid out on the cluster: n ranks, k of them in each NVLink domain
// (a machine; a GB200 NVL72 rack). Inside a domain a collective runs on
// NVLink at NCCL's achievable bus bandwidth; across domains each GPU gets
// its share of the machine's NICs (every GPU of a machine communicates at
// once in these layouts: one rail per GPU). A group that spans domains
// runs hierarchically: reduce-scatter inside, the all-reduce of a 1/k
// shard across, all-gather inside (NCCL's ring over NVLink-connected
// GPUs and one NIC each).

import "math"

// nvlinkEfficiency is the fraction of the per-direction NVLink bandwidth
// an NCCL collective reaches (bus bandwidth): nccl-tests all_reduce_perf
// on DGX A100 reports about 230 of 300 GB/s, on DGX H100 about 360-370 of
// 450 GB/s.
const nvlinkEfficiency = 0.8

// nvlinkHopUs is NCCL's latency per NVLink ring step (src/graph/tuning.cc,
// hwLat NVLink Ring Simple: 3.4 us); the per-network-step and base
// latencies are the host preset's.
const nvlinkHopUs = 3.4

// rankGroup is a communicator: n ranks, k per NVLink domain.
type rankGroup struct{ n, k int }

// group returns the communicator of size ranks spaced stride apart in the
// rank order (ranks 0..G-1 fill the first domain).
func (c *Cluster) group(size, stride int) rankGroup {
	G := c.GPUsPerMachine
	if size <= 1 {
		return rankGroup{1, 1}
	}
	k := 1
	if stride < G {
		k = min(size, max(1, G/stride))
	}
	return rankGroup{size, k}
}

// domains is how many NVLink domains g spans.
func (g rankGroup) domains() int { return (g.n + g.k - 1) / g.k }

// intraBusGBs is the NCCL bus bandwidth inside a domain, bytes/s.
func (c *Cluster) intraBusGBs() float64 { return c.IntraGBs() * nvlinkEfficiency }

// railGBs is one GPU's share of its machine's network, bytes/s.
func (c *Cluster) railGBs() float64 { return c.NICGBs() / float64(c.GPUsPerMachine) }

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

// allReduceS is an all-reduce of bytes on g: the faster of NCCL's Simple
// and LL protocols.
func (c *Cluster) allReduceS(bytes float64, g rankGroup) float64 {
	if g.n <= 1 || bytes <= 0 {
		return 0
	}
	simple := c.allReduceProtoS(bytes, g, c.Host.CollectiveBaseUs, nvlinkHopUs, 1)
	return math.Min(simple, c.allReduceProtoS(bytes, g, llBaseUs, llHopUs, llBandwidth))
}

// allReduceProtoS is an all-reduce under one protocol: base latency and
// NVLink step latency in us, bw the fraction of the bus bandwidth.
func (c *Cluster) allReduceProtoS(bytes float64, g rankGroup, baseUs, hopUs, bw float64) float64 {
	k, m := float64(g.k), float64(g.domains())
	s := baseUs * 1e-6
	if g.k > 1 { // reduce-scatter and all-gather inside the domain
		s += 2*(k-1)/k*bytes/(bw*c.intraBusGBs()) + 2*(k-1)*hopUs*1e-6
	}
	if m > 1 { // the 1/k shard across domains (tree latency)
		s += 2*(m-1)/m*(bytes/k)/(bw*c.railGBs()) + 2*math.Ceil(math.Log2(m))*c.netHopS()
	}
	return s
}

// reduceScatterS (and all-gather, the same traffic) of bytes (the full
// buffer) on g: half an all-reduce.
func (c *Cluster) reduceScatterS(bytes float64, g rankGroup) float64 {
	if g.n <= 1 || bytes <= 0 {
		return 0
	}
	base := c.Host.CollectiveBaseUs * 1e-6
	return base + (c.allReduceProtoS(bytes, g, c.Host.CollectiveBaseUs, nvlinkHopUs, 1)-base)/2
}

// allToAllS is an all-to-all in which every rank of g sends bytes in
// total (bytes/n to each rank): the part to ranks in its domain over
// NVLink, the rest over its rail, both at once.
func (c *Cluster) allToAllS(bytes float64, g rankGroup) float64 {
	if g.n <= 1 || bytes <= 0 {
		return 0
	}
	n, k := float64(g.n), float64(g.k)
	intra := (k - 1) / n * bytes / c.intraBusGBs()
	inter := (n - k) / n * bytes / c.railGBs()
	lat := nvlinkHopUs * 1e-6
	if g.n > g.k {
		lat = c.netHopS()
	}
	return c.Host.CollectiveBaseUs*1e-6 + math.Max(intra, inter) + lat
}

// sendS is a point-to-point send of bytes, inside a domain or across.
func (c *Cluster) sendS(bytes float64, cross bool) float64 {
	if bytes <= 0 {
		return 0
	}
	if cross {
		return bytes/c.railGBs() + c.netHopS()
	}
	return bytes/c.intraBusGBs() + nvlinkHopUs*1e-6
}
