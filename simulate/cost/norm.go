package cost

// This file implements the cost of normalizations: a few FLOPs per element
// (mean, variance, scale, shift), bytes of inputs and outputs, plus the
// statistics passes over slices too large for the cache.

import "math"

func registerNorm() {
	perOut := func(k float64) Func {
		return func(c *Ctx) (Cost, error) {
			n, err := c.OutElems(0)
			if err != nil {
				return Cost{}, err
			}
			return c.Simple(k * n)
		}
	}
	nm := func(domain string, k float64, ops ...string) { Register(domain, perOut(k), ops...) }
	nm("", 2, "BatchNormalization") // inference: folded scale and shift
	nm("", 5, "LpNormalization")
	nm("com.microsoft", 10, "EmbedLayerNormalization")
	Register("", instanceNormCost, "InstanceNormalization")
	Register("", statsNorm(8, 1, 2), "GroupNormalization", "MeanVarianceNormalization")
	Register("", statsNorm(8, -1, 1), "LayerNormalization")
	Register("", statsNorm(5, -1, 1), "RMSNormalization", "SimplifiedLayerNormalization") // ORT registers the latter in the default domain too
	Register("com.microsoft", statsNorm(10, -1, 1), "SkipLayerNormalization")
	Register("com.microsoft", statsNorm(5, -1, 1), "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization")
	Register("", lrnCost, "LRN")
}

// instanceNormCost normalizes each (batch, channel) slice of the spatial
// dims: statistics in two passes (mean, then variance), then the
// normalizing pass.
var instanceNormCost = statsNorm(8, 2, 2)

// statsNorm costs a normalization that computes statistics over slices of
// its input before normalizing them: k FLOPs per output element, and, when
// one slice does not fit in the last-level cache, extra read passes over
// the input (the statistics' passes go to memory again). The slice is the
// input's dims from axis on (axis < 0: the "axis" attribute, default -1,
// as LayerNormalization).
func statsNorm(k float64, axis int, extraPasses float64) Func {
	return func(c *Ctx) (Cost, error) {
		n, err := c.OutElems(0)
		if err != nil {
			return Cost{}, err
		}
		cost, err := c.Simple(k * n)
		if err != nil {
			return Cost{}, err
		}
		x, err := c.InDims(0)
		if err != nil || len(x) == 0 {
			return cost, nil
		}
		a := axis
		if a < 0 {
			a = int(c.Node.AttrInt("axis", -1))
			if a < 0 {
				a += len(x)
			}
		}
		if a < 0 || a > len(x) {
			return cost, nil
		}
		in, err := c.Bytes(c.Input(0))
		if err != nil {
			return cost, nil
		}
		slice := in / math.Max(1, prod(x[:a]))
		if l2 := c.m.HW.L2MB * 1e6; l2 > 0 && slice > l2 {
			cost.Bytes += extraPasses * in
		}
		return cost, nil
	}
}

// LRN: a window of size channels per element, plus the power.
func lrnCost(c *Ctx) (Cost, error) {
	n, err := c.OutElems(0)
	if err != nil {
		return Cost{}, err
	}
	size := float64(c.Node.AttrInt("size", 5))
	return c.Simple(n * (2*size + 10))
}
