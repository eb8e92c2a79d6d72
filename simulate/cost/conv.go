package cost

// This file implements the cost of convolutions and pooling.
//
//	Conv:          MACs = N x M x prod(out spatial) x (C/group) x prod(kernel)
//	ConvTranspose: MACs = N x C x prod(in spatial) x (M/group) x prod(kernel)
//
// Dilation and padding change which inputs are read, not the count. The
// waves model sees a conv as an implicit GEMM of (N x out spatial) rows by
// M / group columns, group times.

import "fmt"

func init() {
	Register("", Conv, convCost(0, 1), "Conv", "ConvInteger")
	Register("", Conv, convCost(0, 3), "QLinearConv")
	Register("com.microsoft", Conv, convCost(0, 1), "FusedConv", "NhwcConv")
	Register("", Conv, convTransposeCost, "ConvTranspose")
	Register("", Conv, deformConvCost, "DeformConv")

	Register("", Reduction, poolCost, "MaxPool", "AveragePool", "LpPool", "MaxRoiPool")
	Register("", Reduction, globalPoolCost, "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")
}

// convCost(x, w) costs a conv whose data is input x and weight input w:
// W[M, C/group, k...], Y[N, M, out...].
func convCost(x, w int) Func {
	return func(c *Ctx) (Cost, error) {
		wd, err := c.InDims(w)
		if err != nil {
			return Cost{}, err
		}
		y, err := c.OutDims(0)
		if err != nil {
			return Cost{}, err
		}
		if len(wd) < 2 || len(y) != len(wd) {
			return Cost{}, fmt.Errorf("conv weight %v and output %v ranks disagree", wd, y)
		}
		if c.Node.Op == "NhwcConv" { // Y[N, out..., M]
			y = append([]int64{y[0], y[len(y)-1]}, y[1:len(y)-1]...)
		}
		group := float64(c.Node.AttrInt("group", 1))
		if group < 1 {
			group = 1
		}
		n, m := float64(y[0]), float64(y[1])
		spatial := prod(y[2:])
		macs := n * m * spatial * prod(wd[1:])
		cost, err := c.Simple(2 * macs)
		if err != nil {
			return Cost{}, err
		}
		cost.Work = []Work{{FLOPs: cost.FLOPs, Tiles: c.Tiles(group, n*spatial, m/group), Count: 1}}
		return cost, nil
	}
}

// ConvTranspose(X[N, C, in...], W[C, M/group, k...]).
func convTransposeCost(c *Ctx) (Cost, error) {
	xd, err := c.InDims(0)
	if err != nil {
		return Cost{}, err
	}
	wd, err := c.InDims(1)
	if err != nil {
		return Cost{}, err
	}
	if len(xd) < 2 || len(wd) != len(xd) {
		return Cost{}, fmt.Errorf("ConvTranspose input %v and weight %v ranks disagree", xd, wd)
	}
	group := float64(c.Node.AttrInt("group", 1))
	if group < 1 {
		group = 1
	}
	n, ch := float64(xd[0]), float64(xd[1])
	macs := n * ch * prod(xd[2:]) * prod(wd[1:])
	cost, err := c.Simple(2 * macs)
	if err != nil {
		return Cost{}, err
	}
	mPerGroup := float64(wd[1])
	cost.Work = []Work{{FLOPs: cost.FLOPs, Tiles: c.Tiles(group, n*prod(xd[2:]), mPerGroup*prod(wd[2:])), Count: 1}}
	return cost, nil
}

// DeformConv(X, W, offset, B?, mask?): a conv plus bilinear sampling of
// every tap (about 8 FLOPs per sampled input).
func deformConvCost(c *Ctx) (Cost, error) {
	cost, err := convCost(0, 1)(c)
	if err != nil {
		return Cost{}, err
	}
	cost.FLOPs *= 1 + 8.0/2
	cost.Work[0].FLOPs = cost.FLOPs
	return cost, nil
}

// Pooling: one FLOP per kernel tap per output element.
func poolCost(c *Ctx) (Cost, error) {
	out, err := c.OutElems(0)
	if err != nil {
		return Cost{}, err
	}
	k, _ := c.Node.AttrInts("kernel_shape")
	if c.Node.Op == "MaxRoiPool" {
		k = nil
	}
	return c.Simple(out * prod(k))
}

// Global pooling: one FLOP per input element.
func globalPoolCost(c *Ctx) (Cost, error) {
	in, err := c.InElems(0)
	if err != nil {
		return Cost{}, err
	}
	return c.Simple(in)
}
