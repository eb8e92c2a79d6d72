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
func (m *Model) weightsFromMemory(c Cost) float64 {
	h := m.HW
	if !h.CacheWorkingSet || c.WeightBytes <= 0 || h.L2MB <= 0 || h.CacheBandwidthGBs <= 0 || h.MemoryBandwidthGBs <= 0 {
		return 0
	}
	if !m.weightsKnown {
		// once per model: the share and its note depend on the model's
		// weights and the hardware only, not on the node
		m.weights, m.weightsKnown = m.modelWeightBytes(), true
		m.miss = missedShare(m.weights, h.L2MB*1e6, h.CacheWorkingFraction)
		switch {
		case m.miss >= 1:
			m.note(fmt.Sprintf("the model's weights (%.3g MB) exceed the %.3g MB cache: every kernel reads its weights from memory (cache_working_set)", m.weights/1e6, h.L2MB))
		case m.miss > 0:
			m.note(fmt.Sprintf("the model's weights (%.3g MB) fill %.0f%% of the %.3g MB cache, more than the %.0f%% they keep to themselves: kernels read %.0f%% of their weights from memory (cache_working_fraction)",
				m.weights/1e6, 100*m.weights/(h.L2MB*1e6), h.L2MB, 100*h.CacheWorkingFraction, 100*m.miss))
		}
	}
	if m.miss <= 0 {
		return 0
	}
	return m.miss * c.WeightBytes
}

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
