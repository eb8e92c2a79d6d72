package cost

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// weightsFromMemory is the part of c's traffic that is weights read from
// memory rather than the cache because the model's weights do not fit in
// the cache together (hw cache_working_set): a one-thread runtime's warm
// runs cycle through every weight, so a kernel finds its weights in the
// last-level cache only when the whole set stays there. 0 when the
// hardware does not model it, c reads no weights, or they all fit.
func (m *Model) weightsFromMemory(c Cost) float64 {
	h := m.HW
	if !h.CacheWorkingSet || c.WeightBytes <= 0 || h.L2MB <= 0 || h.CacheBandwidthGBs <= 0 || h.MemoryBandwidthGBs <= 0 {
		return 0
	}
	if !m.weightsKnown {
		m.weights, m.weightsKnown = m.modelWeightBytes(), true
	}
	if m.weights <= h.L2MB*1e6 {
		return 0
	}
	m.note(fmt.Sprintf("the model's weights (%.3g MB) exceed the %.3g MB cache: every kernel reads its weights from memory (cache_working_set)", m.weights/1e6, h.L2MB))
	return c.WeightBytes
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
