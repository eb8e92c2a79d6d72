package cost

// This file implements the cost of reductions, softmax, top-k and scans:
// FLOPs per input element, bytes of inputs and outputs.

import "math"

func registerReduce() {
	perIn := func(k float64) Func {
		return func(c *Ctx) (Cost, error) {
			n, err := c.InElems(0)
			if err != nil {
				return Cost{}, err
			}
			return c.Simple(k * n)
		}
	}
	Register("", perIn(1), "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceL1", "ArgMax", "ArgMin", "CumSum", "CumProd")
	Register("", perIn(2), "ReduceL2", "ReduceSumSquare")
	Register("", perIn(9), "ReduceLogSum", "ReduceLogSumExp")
	// softmax: max, exp, sum, divide over each row
	Register("", perIn(5), "Softmax", "LogSoftmax", "Hardmax")
	Register("", topKCost, "TopK")
	// min/max reduction, then scale and round every element
	Register("", perIn(6), "DynamicQuantizeLinear")
	// log-softmax (when fused) and a gather + mean over the class axis
	Register("", perIn(6), "SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss")
	Register("com.microsoft", perIn(5), "BiasSoftmax")
}

// TopK: about log2(k) comparisons per input element (a heap per row).
func topKCost(c *Ctx) (Cost, error) {
	n, err := c.InElems(0)
	if err != nil {
		return Cost{}, err
	}
	k := 1.0
	if v := c.Input(1); v != nil {
		if kv, ok := staticInt(v); ok && kv > 0 {
			k = float64(kv)
		}
	} else if kv := c.Node.AttrInt("k", 0); kv > 0 { // opset < 10
		k = float64(kv)
	}
	return c.Simple(n * math.Max(1, math.Log2(k+1)))
}
