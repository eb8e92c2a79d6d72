package cost

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// weightsFromMemory is the part of c's traffic that is weights read from
// memory rather than the cache because the model's weights do not fit in
// the cache together (hw cache_working_set): a one-thread runtime's warm
// runs cycle through every weight, so a kernel finds its weights in the
// last-level cache only when the whole set stays there. With
// cache_working_fraction f < 1 the set starts to miss at f x l2_mb and
// misses entirely at l2_mb, the share read from memory rising linearly
// in between (missedShare). 0 when the hardware does not model it, c
// reads no weights, or they all fit.
//
// fromDRAM is the part of w that misses the L3 as well (hw l3_mb with
// dram_bandwidth_gbs), by the same rule at l3_mb with the share
// l3WorkingFraction: it streams at DRAM speed, the rest of w at
// memory_bandwidth_gbs (the L3's). 0 without the tier.
func (m *Model) weightsFromMemory(c Cost) (w, fromDRAM float64) {
	h := m.HW
	if !h.CacheWorkingSet || c.WeightBytes <= 0 || h.L2MB <= 0 || h.CacheBandwidthGBs <= 0 || h.MemoryBandwidthGBs <= 0 {
		return 0, 0
	}
	if !m.weightsKnown {
		// once per model: the shares and their notes depend on the
		// model's weights and the hardware only, not on the node
		m.weights, m.weightsKnown = m.modelWeightBytes(), true
		m.miss = missedShare(m.weights, h.L2MB*1e6, h.CacheWorkingFraction)
		switch {
		case m.miss >= 1:
			m.note(fmt.Sprintf("the model's weights (%.3g MB) exceed the %.3g MB cache: every kernel reads its weights from memory (cache_working_set)", m.weights/1e6, h.L2MB))
		case m.miss > 0:
			m.note(fmt.Sprintf("the model's weights (%.3g MB) fill %.0f%% of the %.3g MB cache, more than the %.0f%% they keep to themselves: kernels read %.0f%% of their weights from memory (cache_working_fraction)",
				m.weights/1e6, 100*m.weights/(h.L2MB*1e6), h.L2MB, 100*h.CacheWorkingFraction, 100*m.miss))
		}
		if h.L3MB > 0 && h.DRAMBandwidthGBs > 0 {
			m.dram = math.Min(m.miss, missedShare(m.weights, h.L3MB*1e6, l3WorkingFraction))
			if m.dram > 0 {
				m.note(fmt.Sprintf("the model's weights (%.3g MB) fill %.0f%% of the %.3g MB L3: kernels stream %.0f%% of their weights from DRAM at %.4g GB/s; a GEMM of 8 rows or more adds %.2g x that streaming (or its arithmetic, if shorter) to max(compute, memory) (l3_mb, dram_bandwidth_gbs, dram_stream_stall)",
					m.weights/1e6, 100*m.weights/(h.L3MB*1e6), h.L3MB, 100*m.dram, h.DRAMBandwidthGBs, h.DRAMStreamStall))
			}
		}
	}
	if m.miss <= 0 {
		return 0, 0
	}
	return m.miss * c.WeightBytes, m.dram * c.WeightBytes
}

// l3WorkingFraction is the share of the L3 a model's weights keep to
// themselves (the L3 is shared by the cores and, on a VM, by other
// tenants; on AMD it is a victim cache of the L2s): past it the share
// streamed from DRAM rises linearly to all at l3_mb. Not fitted: the
// suite's chains are inside the L2 ramp or well past the L3, and the L2's
// fitted cache_working_fraction, with no chain inside a 1 MiB L2's ramp,
// moved 0.71-0.97 between fits of one machine. Measured (ORT 1.30, one
// thread, AMD EPYC VM, L3 32 MiB): a one-row chain of 16.8 MB of weights
// streamed at 60 GB/s, of 33.6 MB at 40, past 67 MB at 34-38, the L3's
// speed fitted at 134-165.
const l3WorkingFraction = 0.5

// missedShare is the share of a set of weights bytes that misses a cache
// of cache bytes when the weights keep the share frac of it to
// themselves: 0 up to frac x cache, 1 from cache on, linear in between.
// frac 0 or 1: a step at cache.
func missedShare(weights, cache, frac float64) float64 {
	if frac <= 0 || frac >= 1 {
		if weights > cache {
			return 1
		}
		return 0
	}
	lo := frac * cache
	return math.Min(1, math.Max(0, (weights-lo)/(cache-lo)))
}

// modelWeightBytes is the bytes of the float initializers of the model's
// graphs (subgraphs included), as the cost model sizes them.
func (m *Model) modelWeightBytes() float64 {
	if m.IR == nil || m.IR.Graph == nil {
		return 0
	}
	var w float64
	m.IR.Graph.Walk(func(g *ir.Graph) bool {
		for _, v := range g.Initializers {
			if v != nil && v.Type.DType.IsFloat() {
				if b, err := m.valueBytes(v); err == nil {
					w += b
				}
			}
		}
		return true
	})
	return w
}
