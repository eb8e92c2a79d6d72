package cost

// This file implements the cost of normalizations: a few FLOPs per element
// (mean, variance, scale, shift), bytes of inputs and outputs.

func init() {
	perOut := func(k float64) Func {
		return func(c *Ctx) (Cost, error) {
			n, err := c.OutElems(0)
			if err != nil {
				return Cost{}, err
			}
			return c.Simple(k * n)
		}
	}
	nm := func(domain string, k float64, ops ...string) { Register(domain, Normalization, perOut(k), ops...) }
	nm("", 2, "BatchNormalization") // inference: folded scale and shift
	nm("", 8, "InstanceNormalization", "LayerNormalization", "GroupNormalization", "MeanVarianceNormalization")
	nm("", 5, "RMSNormalization", "LpNormalization")
	nm("com.microsoft", 10, "SkipLayerNormalization", "EmbedLayerNormalization")
	nm("com.microsoft", 5, "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization")
	nm("", 5, "SimplifiedLayerNormalization") // ORT registers it in the default domain too
	Register("", Normalization, lrnCost, "LRN")
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
