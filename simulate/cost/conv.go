package cost

// This file implements the cost of convolutions and pooling.
//
//	Conv:          MACs = N x M x prod(out spatial) x (C/group) x prod(kernel)
//	ConvTranspose: MACs = N x C x prod(in spatial) x (M/group) x prod(kernel)
//
// Dilation and padding change which inputs are read, not the count. The
// waves model sees a conv as an implicit GEMM of (N x out spatial) rows by
// M / group columns, group times.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// Keys of the convolution-like ops whose cost differs from their
// registration's in one detail.
var (
	msNhwcConv  = ir.OpKey{Domain: "com.microsoft", Name: "NhwcConv"}
	qlinearConv = ir.OpKey{Name: "QLinearConv"}
	maxRoiPool  = ir.OpKey{Name: "MaxRoiPool"}
	maxPool     = ir.OpKey{Name: "MaxPool"}
	averagePool = ir.OpKey{Name: "AveragePool"}
)

func registerConv() {
	Register("", convCost(0, 1), "Conv", "ConvInteger")
	Register("", convCost(0, 3), "QLinearConv")
	Register("com.microsoft", convCost(0, 1), "FusedConv", "NhwcConv")
	Register("", convTransposeCost, "ConvTranspose")
	Register("", deformConvCost, "DeformConv")

	Register("", poolCost, "MaxPool", "AveragePool", "LpPool", "MaxRoiPool")
	Register("", globalPoolCost, "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")
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
		if c.Node.Is(msNhwcConv) { // Y[N, out..., M]
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
		// a CPU library's GEMM per image and group: output positions as
		// its columns
		cost.Work = []Work{{FLOPs: cost.FLOPs, Tiles: c.Tiles(group, n*spatial, m/group), Count: 1, Cols: spatial}}
		if depthwise(wd, group) {
			// a class, and an op key (hw efficiency.ops), of its own: a
			// depthwise conv runs another kernel than a dense one
			cost.Class = Depthwise
			cost.Op = OpKey(c.Node) + "/depthwise"
		}
		// implicit GEMM: K = input channels per group x taps; the
		// libraries' requirement is on the channels
		cost.Unaligned = c.unaligned(float64(wd[1]), m/group)
		if c.winograd(wd, group, cost.DType) {
			// the FLOPs stay the direct algorithm's (2 x MACs); the time
			// is that of 2.25x fewer multiplies
			cost.Work[0].FLOPs /= winogradGain
			cost.Note = winogradNote
		}
		// quantized depthwise convs run a direct kernel over all channels
		// at once (MLAS): no staging
		direct := quantized(c.Input(x)) && depthwise(wd, group)
		if c.m.HW.ConvIm2col && !pointwise(c.Node, wd) && !direct {
			// im2col: one row of C/group x prod(kernel) taps per output
			// position, per group, read from the input and written for
			// the GEMM. The taps that fall on rows wholly in the padding
			// are not staged: MLAS's im2col stores such a row with one
			// memset, and the GEMM's FLOPs still count them. Measured
			// (ORT 1.30, AMD EPYC VM, 2026-12-07, docs/calibration-
			// protocol.md "Depthwise convs on short maps"): four 5x5
			// depthwise layers of 200 channels on 2x96 maps (60% of the
			// taps in padding rows) take 86 us a layer, on 24x96 maps
			// 1,387 us: past ~48 us of per-group cost in each, 0.028x,
			// as the taps outside the padding (0.035x), not all taps
			// (0.083x). Staging the padding rows as writes predicted the
			// short layers +54% against the tall ones' +28%; not staging
			// them, +9% against +25%.
			taps := n * spatial * group * prod(wd[1:])
			c.stage(&cost, c.Input(x), 2*taps*c.rowsInInput(x, wd))
			cost.Steps = int64(group) // one im2col + GEMM per group
		}
		if c.Node.Is(qlinearConv) {
			c.requantize(&cost, n*m*spatial)
		}
		return cost, nil
	}
}

// winogradGain is the multiply reduction of Winograd F(2x2,3x3): 36
// multiplies of the direct 3x3 conv per 2x2 output tile become 16.
const winogradGain = 2.25

const winogradNote = "3x3 stride-1 convolutions on the vector units run as Winograd F(2x2,3x3) (cuDNN's choice): time of 2.25x fewer multiplies, FLOPs counted as the direct algorithm's"

// winograd reports whether the hardware runs this conv as Winograd
// F(2x2,3x3): a 3x3 kernel, unit strides and dilations, one group, and
// arithmetic on the vector units (float32 without TF32; tensor-core convs
// are implicit GEMMs).
func (c *Ctx) winograd(wd []int64, group float64, dt ir.DType) bool {
	if !c.m.HW.ConvWinograd || group != 1 || len(wd) != 4 || wd[2] != 3 || wd[3] != 3 {
		return false
	}
	if dt != ir.Float32 || c.m.Opt.TF32 || !c.Node.Is(ir.OpConv) {
		return false
	}
	return unitStrides(c.Node)
}

// unitStrides reports whether every stride and dilation of n is 1.
func unitStrides(n *ir.Node) bool {
	for _, name := range []string{"strides", "dilations"} {
		v, _ := n.AttrInts(name)
		for _, s := range v {
			if s != 1 {
				return false
			}
		}
	}
	return true
}

// depthwise reports whether a conv of weight dims wd and group has one
// input channel per group.
func depthwise(wd []int64, group float64) bool { return group > 1 && wd[1] == 1 }

// quantized reports whether v holds 8-bit integers.
func quantized(v *ir.Value) bool {
	return v != nil && (v.Type.DType == ir.Uint8 || v.Type.DType == ir.Int8)
}

// pointwise reports whether a conv with weight dims wd is a plain GEMM: a
// 1x1 kernel, unit strides and dilations, no padding.
func pointwise(n *ir.Node, wd []int64) bool {
	for _, k := range wd[2:] {
		if k != 1 {
			return false
		}
	}
	if !unitStrides(n) {
		return false
	}
	p, _ := n.AttrInts("pads")
	for _, v := range p {
		if v != 0 {
			return false
		}
	}
	ap := string(n.AttrString("auto_pad", "NOTSET"))
	return ap == "NOTSET" || ap == "VALID" || ap == ""
}

// rowsInInput is the share of a conv's (output row, kernel row) pairs
// whose input row lies inside the input rather than wholly in its
// padding, over every spatial axis but the last (the rows; the last axis
// is a row's elements, padded element by element): 1 for a 1-D conv, or
// when the input's shape or the padding is not known.
func (c *Ctx) rowsInInput(x int, wd []int64) float64 {
	xd, err := c.InDims(x)
	if err != nil || len(xd) != len(wd) || len(xd) < 4 || c.Node.Is(msNhwcConv) {
		return 1
	}
	axes := len(xd) - 2
	strides, _ := c.Node.AttrInts("strides")
	dil, _ := c.Node.AttrInts("dilations")
	pads, _ := c.Node.AttrInts("pads")
	ap := string(c.Node.AttrString("auto_pad", "NOTSET"))
	at := func(v []int64, i int, def int64) int64 {
		if i < len(v) && v[i] > 0 {
			return v[i]
		}
		return def
	}
	share := 1.0
	for i := 0; i < axes-1; i++ {
		in, k := xd[2+i], wd[2+i]
		s, d := at(strides, i, 1), at(dil, i, 1)
		if in <= 0 || k <= 0 {
			return 1
		}
		var begin, out int64
		switch ap {
		case "SAME_UPPER", "SAME_LOWER":
			out = (in + s - 1) / s
			total := max(0, (out-1)*s+(k-1)*d+1-in)
			begin = total / 2
			if ap == "SAME_LOWER" {
				begin = total - total/2
			}
		case "VALID":
			out = (in-(k-1)*d-1)/s + 1
		default:
			if i < len(pads) {
				begin = pads[i]
			}
			end := int64(0)
			if axes+i < len(pads) {
				end = pads[axes+i]
			}
			out = (in+begin+end-(k-1)*d-1)/s + 1
		}
		if out <= 0 || k > 1<<16 {
			return 1
		}
		// kernel row j reads input row o*s + j*d - begin: inside for
		// o from ceil((begin - j*d) / s) to floor((in - 1 + begin - j*d) / s)
		inside := 0.0
		for j := int64(0); j < k; j++ {
			lo := max(ceilDiv(begin-j*d, s), 0)
			hi := min(floorDiv(in-1+begin-j*d, s), out-1)
			if hi >= lo {
				inside += float64(hi - lo + 1)
			}
		}
		share *= inside / (float64(out) * float64(k))
	}
	return share
}

// floorDiv and ceilDiv are a / b rounded down and up (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// stage adds a staging buffer of elems elements of v's type to cost: its
// bytes are moved before the arithmetic (see Cost.StagedBytes). An im2col
// gather costs per element, not per byte, so elements narrower than 32
// bits count as 4 bytes.
func (c *Ctx) stage(cost *Cost, v *ir.Value, elems float64) {
	if v == nil || v.Type.Kind != ir.KindTensor {
		return
	}
	cost.addStaged(elems * float64(max(c.m.dtype(v.Type.DType).StorageBytes(1), 4)))
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
	if c.m.HW.ConvIm2col {
		// the GEMM writes a column buffer of M x prod(kernel) rows per input
		// position; col2im reads it back into the output
		c.stage(&cost, c.Input(0), 2*n*prod(xd[2:])*group*mPerGroup*prod(wd[2:]))
		cost.Steps = int64(group)
	}
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

// Pooling: one FLOP per kernel tap per output element. On a CPU, a 2-D
// max or average pool of stride 1 (and dilation 1) runs as a sliding
// window vectorized along the row (ONNX Runtime's MLAS): timed on one
// thread on the AMD VM (2026-12-07), 3x3 and 5x5 max pools took 0.57 and
// 0.83 ns an output where a tap count would say 9 : 25; counted as
// k_h + k_w + 2 operations an output under the op's "/s1" efficiency
// key (the strided pools' fraction is fitted on a different kernel).
func poolCost(c *Ctx) (Cost, error) {
	out, err := c.OutElems(0)
	if err != nil {
		return Cost{}, err
	}
	k, _ := c.Node.AttrInts("kernel_shape")
	if c.Node.Is(maxRoiPool) {
		k = nil
	}
	if c.cpuLibrary() && len(k) == 2 && (c.Node.Is(maxPool) || c.Node.Is(averagePool)) && unitSteps(c.Node) {
		cost, err := c.Simple(out * float64(k[0]+k[1]+2))
		cost.Op = OpKey(c.Node) + "/s1"
		return cost, err
	}
	return c.Simple(out * prod(k))
}

// unitSteps reports whether a pool's strides and dilations are all 1
// (absent attributes are 1).
func unitSteps(n *ir.Node) bool {
	for _, a := range []string{"strides", "dilations"} {
		v, _ := n.AttrInts(a)
		for _, x := range v {
			if x != 1 {
				return false
			}
		}
	}
	return true
}

// Global pooling: one FLOP per input element.
func globalPoolCost(c *Ctx) (Cost, error) {
	in, err := c.InElems(0)
	if err != nil {
		return Cost{}, err
	}
	return c.Simple(in)
}
