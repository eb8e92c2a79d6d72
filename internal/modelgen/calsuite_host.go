package modelgen

// This file generates the calibration suite's per-call models: each
// isolates one thing a one-thread runtime pays per run or per node beyond
// its kernels' compute, so the fit can tell it from the rest (issue 29):
//
//   - host_one_node: one tiny kernel, one input, one output: the run
//     overhead with as little else as a model can have;
//   - host_outputs_N: one input, N tiny kernels each a graph output: the
//     cost of returning an output (hw output_us), against host_one_node;
//   - host_input_bytes_N: one graph input of N floats of which one kernel
//     reads 16: the cost of binding an input by its bytes (input_us_per_mb);
//   - host_output_bytes_N: one kernel writing an N-float graph output:
//     its first touch (alloc_us_per_mb above alloc_min_mb) and its return
//     by bytes (output_us_per_mb), against the four-kernel elementwise
//     chains of the same size;
//   - view_shape_chain_N: N Shape nodes, each feeding a Reshape: what a
//     node that allocates a small shape tensor costs beyond a view
//     (shape_node_us), against the Reshape chains.
//
// None is a copy of a shared model: one op at a generated size.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// hostSuite adds the per-call models.
func hostSuite(add func(group, name string, two bool, m *ir.Model)) {
	add("host", "one_node", false, outputBytes(16))
	for _, n := range []int{2, 8} {
		add("host", fmt.Sprintf("outputs_%d", n), false, manyOutputs(n, 16))
	}
	for _, n := range []int64{1 << 14, 1 << 18, 1 << 21} {
		add("host", fmt.Sprintf("input_bytes_%d", n), false, inputBytes(n))
	}
	for _, n := range []int64{1 << 16, 1 << 20, 1 << 22} {
		add("host", fmt.Sprintf("output_bytes_%d", n), false, outputBytes(n))
	}
	for _, n := range []int{8, 32} {
		add("view", fmt.Sprintf("shape_chain_%d", n), false, shapeChain(n))
	}
}

// manyOutputs applies n tiny Relus to one input, each a graph output.
func manyOutputs(n int, width int64) *ir.Model {
	b := New(fmt.Sprintf("outputs_%d", n), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(width))
	outs := make([]*ir.Value, n)
	for i := range outs {
		outs[i] = b.Op("Relu", []*ir.Value{x})
	}
	b.Output(outs...)
	return b.M
}

// inputBytes binds one input of n floats and reads only its first 16.
func inputBytes(n int64) *ir.Model {
	b := New(fmt.Sprintf("input_bytes_%d", n), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(n))
	s := b.Op("Slice", []*ir.Value{x, b.ConstI("starts", []int64{1}, 0), b.ConstI("ends", []int64{1}, 16), b.ConstI("axes", []int64{1}, 1)})
	return b.outputY(b.Op("Relu", []*ir.Value{s}))
}

// outputBytes is one Relu of n floats whose output is the graph's.
func outputBytes(n int64) *ir.Model {
	b := New(fmt.Sprintf("output_bytes_%d", n), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(n))
	return b.outputY(b.Op("Relu", []*ir.Value{x}))
}

// shapeChain is n rounds of Shape -> Reshape to that shape.
func shapeChain(n int) *ir.Model {
	b := New(fmt.Sprintf("shape_chain_%d", n), suiteOpset)
	h := b.Input("x", ir.Float32, 4, 64)
	for i := 0; i < n; i++ {
		s := b.Op("Shape", []*ir.Value{h})
		h = b.Op("Reshape", []*ir.Value{h, s})
	}
	return b.outputY(b.Op("Relu", []*ir.Value{h}))
}
