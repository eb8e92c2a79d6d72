package cost

// This file implements the cost of data-movement ops (copies, gathers,
// scatters, resizes, generators), the ops whose output size depends on the
// data, and the free ops that launch no kernel.

import (
	"slices"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

func registerMovement() {
	copyOp := func(c *Ctx) (Cost, error) { return c.Simple(0) }
	Register("", copyOp, "Transpose", "Concat", "Split", "Expand", "Tile", "Pad",
		"DepthToSpace", "SpaceToDepth", "ReverseSequence", "Trilu", "MaxUnpool",
		"Col2Im", "OneHot", "Range", "ConstantOfShape", "EyeLike", "RandomNormal", "RandomUniform",
		"RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial", "Scatter", "ScatterElements",
		"ScatterND", "TensorScatter", "HannWindow", "HammingWindow",
		"BlackmanWindow", "MelWeightMatrix", "ImageDecoder", "AffineGrid")
	Register("", gatherCost, "Gather", "GatherElements", "GatherND")
	Register("", windowCost, "Slice", "Crop", "CenterCropPad")
	Register("", seqCopy(true), "SplitToSequence")
	Register("", seqCopy(false), "ConcatFromSequence")
	Register("com.microsoft", gatherCost, "GatherBlockQuantized")
	Register("", resizeCost, "Resize", "Upsample")
	Register("", gridSampleCost, "GridSample")
	Register("", perOutOp(32), "RoiAlign")
	Register("", dftCost, "DFT", "STFT")
	Register("", dataDependent(10), "NonMaxSuppression")
	Register("", dataDependent(1), "NonZero", "Compress", "Unique")
	Register("", perOutOp(8), "Det")

	free := func(c *Ctx) (Cost, error) { return Cost{Class: Free}, nil }
	Register("", free, "Shape", "Size",
		"Constant", "Optional", "OptionalGetElement", "OptionalHasElement", "SequenceEmpty",
		"SequenceConstruct", "SequenceAt", "SequenceLength", "SequenceErase", "SequenceInsert", "BitCast")
	Register("", viewCost, viewOps...)
}

// viewOps are the ops that give the same bytes a new shape (viewCost).
var viewOps = []string{"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Dropout"}

// IsView reports whether n is a view (an op of the default domain that
// gives its input's bytes a new shape): free inside a model, a copy when
// its output is one of the model's outputs (viewCost). A one-node model
// built from a profiled kernel of a view measures the former.
func IsView(n *ir.Node) bool {
	return n.Domain == "" && slices.Contains(viewOps, n.Op)
}

// viewCost: a view (a new shape for the same bytes) launches no kernel,
// unless its output is one of the model's outputs: the runtime hands the
// caller a buffer of its own, so it copies the bytes (ONNX Runtime 1.30,
// one thread, AMD VM, 2026-12-07: a Squeeze or Identity from a 3.7 MB
// graph input to the graph output took as long as a Relu over it, 0.54
// ms; a Squeeze of a Relu's output as the graph output added 0.16 ms to
// the Relu). The copy is costed as a streaming elementwise pass.
func viewCost(c *Ctx) (Cost, error) {
	n := c.Node
	if n.Graph == nil || n.Graph.Parent != nil {
		return Cost{Class: Free}, nil
	}
	var out float64
	for _, o := range n.Outputs {
		if o == nil || !n.Graph.IsOutput(o) {
			continue
		}
		b, err := c.Bytes(o)
		if err != nil {
			return Cost{}, err
		}
		out += b
	}
	if out == 0 {
		return Cost{Class: Free}, nil
	}
	return Cost{Class: Elementwise, Bytes: 2 * out, Kernels: 1, DType: c.DType()}, nil
}

func perOutOp(k float64) Func {
	return func(c *Ctx) (Cost, error) {
		n, err := c.OutElems(0)
		if err != nil {
			return Cost{}, err
		}
		return c.Simple(k * n)
	}
}

// Gather family: reads the indices and only the gathered slices of the
// data (as many bytes as the output), writes the output.
func gatherCost(c *Ctx) (Cost, error) {
	out, err := c.OutBytes()
	if err != nil {
		return Cost{}, err
	}
	ib, err := c.Bytes(c.Input(1))
	if err != nil {
		return Cost{}, err
	}
	return Cost{Class: DataMovement, Bytes: ib + 2*out, Kernels: 1, DType: c.DType()}, nil
}

// Slice and crops: read only the window they copy (as many bytes as the
// output) and their small index inputs, write the output; a slice of a
// large constant does not stream the whole constant.
func windowCost(c *Ctx) (Cost, error) {
	out, err := c.OutBytes()
	if err != nil {
		return Cost{}, err
	}
	idx := 0.0
	for i := 1; i < len(c.Node.Inputs); i++ {
		if v := c.Input(i); v != nil {
			b, err := c.Bytes(v)
			if err != nil {
				return Cost{}, err
			}
			idx += b
		}
	}
	return Cost{Class: DataMovement, Bytes: idx + 2*out, Kernels: 1, DType: c.DType()}, nil
}

// Resize: output elements times the taps of the interpolation mode.
func resizeCost(c *Ctx) (Cost, error) {
	n, err := c.OutElems(0)
	if err != nil {
		return Cost{}, err
	}
	taps := 1.0
	switch mode := strings.ToLower(c.Node.AttrString("mode", "nearest")); {
	case strings.Contains(mode, "linear"):
		taps = 8
	case strings.Contains(mode, "cubic"):
		taps = 32
	}
	return c.Simple(taps * n)
}

// GridSample: scalar work per sampled point and per output element, by
// path. ONNX Runtime 1.30's CPU kernel (tensor/grid_sample.cc) has a fast
// path for bilinear mode with zero padding and align_corners 0: it plans
// each point once (its four taps and weights, for all channels) and then
// blends four taps per element; every other case runs a generic loop that
// redoes the point's arithmetic and bounds-checked fetches for every
// element. Timed on one thread on the AMD VM (2026-12-07; the calibration
// suite's GridSample models, one to 128 channels, 512 to 9,216 points):
// the fast path ~10 ns a point and 1.6 ns an element; the generic loop
// ~6-8 ns an element nearest (its rounding), 12.5 ns bilinear, 34 ns
// bicubic (16 taps). Counted as operations at the op's fitted compute
// fraction (cpu-1t: 0.077 of its fp32 peak, 0.065 ns an operation): the
// fast path 150 a point and 24 an element; the generic loop 100, 190 and
// 530 an element. Other runtimes keep the counts, which overstates the
// generic modes for a GPU kernel that is bound by its memory traffic
// anyway. It reads the grid and the taps it fetches, at most the whole
// input.
func gridSampleCost(c *Ctx) (Cost, error) {
	n, err := c.OutElems(0)
	if err != nil {
		return Cost{}, err
	}
	grid, err := c.InDims(1)
	if err != nil {
		return Cost{}, err
	}
	points := 1.0
	for _, d := range grid[:max(len(grid)-1, 0)] {
		points *= float64(d)
	}
	mode := strings.ToLower(c.Node.AttrString("mode", "bilinear"))
	fast := (mode == "bilinear" || mode == "linear") && len(grid) == 4 &&
		c.Node.AttrString("padding_mode", "zeros") == "zeros" && c.Node.AttrInt("align_corners", 0) == 0
	var perPoint, perElem, taps float64
	switch {
	case fast:
		perPoint, perElem, taps = 150, 24, 4
	case mode == "nearest":
		perElem, taps = 100, 1
	case mode == "bicubic" || mode == "cubic":
		perElem, taps = 530, 16
	default: // bilinear (trilinear on 5-D inputs) off the fast path
		perElem, taps = 190, 4
		if len(grid) == 5 {
			perElem, taps = 380, 8
		}
	}
	out, err := c.OutBytes()
	if err != nil {
		return Cost{}, err
	}
	in, err := c.Bytes(c.Input(0))
	if err != nil {
		return Cost{}, err
	}
	gb, err := c.Bytes(c.Input(1))
	if err != nil {
		return Cost{}, err
	}
	read := min(in, taps*out)
	return Cost{Class: c.Class, FLOPs: perPoint*points + perElem*n, Bytes: gb + read + out, Kernels: 1, DType: c.DType()}, nil
}

// DFT / STFT: 5 N log2 N FLOPs per transform of length N (radix-2 count),
// approximated from the output size.
func dftCost(c *Ctx) (Cost, error) {
	n, err := c.OutElems(0)
	if err != nil {
		return Cost{}, err
	}
	return c.Simple(5 * n * 10)
}

// dataDependent costs ops whose output size depends on the data (NonZero,
// NonMaxSuppression, ...): k FLOPs per input element, and bytes of the
// inputs read twice (read + a write of at most the same size), since the
// output size is not static.
func dataDependent(k float64) Func {
	return func(c *Ctx) (Cost, error) {
		var in, elems float64
		for _, v := range c.Node.Inputs {
			b, err := c.Bytes(v)
			if err != nil {
				return Cost{}, err
			}
			in += b
			if v != nil {
				e, _ := c.Elems(v)
				elems += e
			}
		}
		out, err := c.OutBytes()
		if err != nil {
			out = in
		}
		return Cost{Class: c.Class, FLOPs: k * elems, Bytes: in + out, Kernels: 1, DType: c.DType(),
			Note: "ops with data-dependent output size: output bytes bounded by input bytes"}, nil
	}
}

// seqCopy costs SplitToSequence (fromInput: the input tensor read and
// written once as slices) and ConcatFromSequence (the output tensor
// written, its slices read); the sequence side has no static size.
func seqCopy(fromInput bool) Func {
	return func(c *Ctx) (Cost, error) {
		v := c.Output(0)
		if fromInput {
			v = c.Input(0)
		}
		b, err := c.Bytes(v)
		if err != nil {
			return Cost{}, err
		}
		return Cost{Class: DataMovement, Bytes: 2 * b, Kernels: 1, DType: c.DType()}, nil
	}
}
