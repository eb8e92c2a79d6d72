package cost

// This file implements the cost of reductions, softmax, top-k and scans:
// FLOPs per input element, bytes of inputs and outputs.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

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
	Register("", reduceCost(1), "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1")
	Register("", perIn(1), "ArgMax", "ArgMin", "CumSum", "CumProd")
	Register("", reduceCost(2), "ReduceL2", "ReduceSumSquare")
	Register("", reduceCost(9), "ReduceLogSum", "ReduceLogSumExp")
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

// ONNX Runtime's generic reduction loop (NoTransposeReduce1Loop), which
// it runs when a reduction's shape is not one of its fast kinds, pays per
// output and per input element: timed on one thread on the AMD VM
// (2026-12-07), ReduceSum or ReduceMean over the first axis of
// [3, 307200] or the channel axis of [1, 3, 480, 640], [1, 8, 96, 96],
// [1, 16, 64, 64] and [1, 16, 240, 320] took 1.1 ns an output and 0.64
// ns an element summed, 5-12x a fast reduction of the same bytes (0.08
// ns an element over all of [1, 3, 480, 640]). As operations at the
// reduction class's fraction (cpu-1t: 0.065 ns each):
const (
	genericReduceOut  = 17
	genericReduceElem = 10
)

// reduceCost costs k FLOPs per input element, except on a CPU when the
// reduction takes ONNX Runtime's generic loop (reduceFastKind): then
// genericReduceOut an output and genericReduceElem an input element,
// under the op's "/generic" efficiency key.
func reduceCost(k float64) Func {
	return func(c *Ctx) (Cost, error) {
		n, err := c.InElems(0)
		if err != nil {
			return Cost{}, err
		}
		if c.cpuLibrary() {
			if dims, err := c.InDims(0); err == nil {
				if axes, ok := reduceAxes(c.Node, len(dims)); ok && !reduceFastKind(dims, axes, max(1, c.m.HW.SMs)) {
					out, err := c.OutElems(0)
					if err != nil {
						return Cost{}, err
					}
					cost, err := c.Simple(genericReduceElem*n + genericReduceOut*out)
					cost.Op = OpKey(c.Node) + "/generic"
					return cost, err
				}
			}
		}
		return c.Simple(k * n)
	}
}

// reduceAxes returns the axes a reduction reduces (every axis when none
// are given), from the attribute or the constant second input; false when
// they are not static or reduce nothing (noop_with_empty_axes).
func reduceAxes(n *ir.Node, rank int) ([]bool, bool) {
	red := make([]bool, rank)
	var axes []int64
	if a, ok := n.AttrInts("axes"); ok {
		axes = a
	} else if v := n.Input(1); v != nil {
		if v.Const == nil {
			return nil, false
		}
		vals, err := v.Const.Int64Values(int64(rank) + 1)
		if err != nil {
			return nil, false
		}
		axes = vals
	}
	if len(axes) == 0 {
		if n.AttrInt("noop_with_empty_axes", 0) != 0 {
			return nil, false
		}
		for i := range red {
			red[i] = true
		}
		return red, true
	}
	for _, a := range axes {
		if a < 0 {
			a += int64(rank)
		}
		if a < 0 || a >= int64(rank) {
			return nil, false
		}
		red[a] = true
	}
	return red, true
}

// reduceFastKind reports whether ONNX Runtime 1.30 reduces dims over the
// reduced axes with one of its fast kernels (reduction_ops.cc,
// CommonFastReduceSwitch) on threads threads: the shape with size-1 dims
// dropped and runs of reduced or kept dims merged is R (all reduced), KR
// (a suffix), RK when more than 16 x threads rows are summed and either
// side exceeds 256 x threads, KRK with at least max(2, threads) outer
// blocks, or RKR with at least max(2, threads) kept in the middle; any
// other shape takes the generic loop.
func reduceFastKind(dims []int64, red []bool, threads int) bool {
	var shape []int64
	var kind []bool
	for i, d := range dims {
		if d == 1 {
			continue
		}
		if len(kind) > 0 && kind[len(kind)-1] == red[i] {
			shape[len(shape)-1] *= d
			continue
		}
		shape = append(shape, d)
		kind = append(kind, red[i])
	}
	t := int64(threads)
	switch len(shape) {
	case 0, 1:
		return true // one element, or all reduced or all kept
	case 2:
		if !kind[0] {
			return true // KR
		}
		return shape[0] > 16*t && max(shape[0], shape[1]) > 256*t // RK
	case 3:
		if !kind[0] {
			return shape[0] >= max(2, t) // KRK
		}
		return shape[1] >= max(2, t) // RKR
	}
	return false
}
