package cost

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestConvIm2col: on hardware whose convs go through im2col, a 3x3 conv
// stages C x 9 x N x HWout elements (written and read back, counted as 4
// bytes each) in one call per group, a pointwise conv and a quantized
// depthwise conv stage no im2col buffer, a QLinearConv stages its int32
// accumulator on a CPU, and implicit-GEMM GPU hardware never stages.
func TestConvIm2col(t *testing.T) {
	type tc struct {
		name     string
		dt       ir.DType
		c, m, k  int64
		group    int64
		stride   int64
		wantElem float64 // staged elements (x2 for write + read)
		steps    int64
	}
	const hw, n = 16, 2
	// a 3x3 kernel padded by 1 over 16 rows: 46 of the 48 (output row,
	// kernel row) pairs read an input row, 2 a padding row (one memset,
	// not staged)
	const rows = 2 * 46.0 / 48
	cases := []tc{
		{"3x3", ir.Float32, 8, 16, 3, 1, 1, rows * 8 * 9 * n * hw * hw, 1},
		{"1x1", ir.Float32, 8, 16, 1, 1, 1, 0, 0},
		{"1x1 stride 2", ir.Float32, 8, 16, 1, 1, 2, 2 * 8 * 1 * n * 8 * 8, 1},
		{"depthwise", ir.Float32, 8, 8, 3, 8, 1, rows * 8 * 9 * n * hw * hw, 8},
		{"grouped", ir.Float32, 8, 16, 3, 2, 1, rows * 8 * 9 * n * hw * hw, 2},
		{"depthwise uint8 (direct kernel)", ir.Uint8, 8, 8, 3, 8, 1, 0, 0},
		{"3x3 uint8", ir.Uint8, 8, 16, 3, 1, 1, rows * 8 * 9 * n * hw * hw, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := ir.NewGraph("conv")
			x := in(g, "x", c.dt, n, c.c, hw, hw)
			w := in(g, "w", c.dt, c.m, c.c/c.group, c.k, c.k)
			pad := (c.k - 1) / 2
			var node *ir.Node
			attrs := []*ir.Attr{iattr("group", c.group), iattrs("pads", pad, pad, pad, pad), iattrs("strides", c.stride, c.stride)}
			if c.dt == ir.Uint8 {
				s := in(g, "s", ir.Float32)
				z := in(g, "z", ir.Uint8)
				wz := in(g, "wz", ir.Uint8)
				node = one(g, "QLinearConv", "conv", []*ir.Value{x, s, z, w, s, wz, s, z}, attrs...)
			} else {
				node = one(g, "Conv", "conv", []*ir.Value{x, w}, attrs...)
			}
			m := model(t, g, 17)
			cpu := preset(t, "cpu-1t")
			if !cpu.ConvIm2col {
				t.Fatal("cpu-1t preset should stage convs through im2col")
			}
			e := New(cpu, m, Options{}).Node(node)
			if e.Unknown {
				t.Fatalf("unknown: %s", e.Why)
			}
			want := c.wantElem * 4
			requant := 0.0
			if c.dt == ir.Uint8 {
				// QLinearConv: an int32 accumulator written and read back
				oh := float64(hw / c.stride)
				requant = 8 * n * float64(c.m) * oh * oh
			}
			if want += requant; math.Abs(e.StagedBytes/want-1) > 1e-12 {
				t.Errorf("staged bytes = %g, want %g", e.StagedBytes, want)
			}
			if e.Steps != c.steps {
				t.Errorf("steps = %d, want %d", e.Steps, c.steps)
			}
			if c.wantElem > 0 {
				plain := cpu.Clone()
				plain.ConvIm2col = false
				p := New(plain, m, Options{}).Node(node)
				if p.StagedBytes != requant || !(e.DeviceS > p.DeviceS) {
					t.Errorf("without im2col: staged %g, time %g s; with: %g s (want more)", p.StagedBytes, p.DeviceS, e.DeviceS)
				}
			}
			gpu := New(preset(t, "h100"), m, Options{}).Node(node)
			if gpu.StagedBytes != 0 {
				t.Errorf("h100 (implicit GEMM) staged %g bytes", gpu.StagedBytes)
			}
		})
	}
}

// shapeChain is x -> Shape -> Gather(0) -> Unsqueeze -> Reshape(x): the
// shape arithmetic a runtime folds when x's shape is static.
func shapeChain(t *testing.T) (*ir.Model, []*ir.Node) {
	g := ir.NewGraph("shape")
	x := in(g, "x", ir.Float32, 4, 8)
	sh := one(g, "Shape", "shape", []*ir.Value{x})
	idx := g.AddInitializer((&ir.Tensor{Name: "idx", DType: ir.Int64}).SetInt64s([]int64{0}))
	ga := one(g, "Gather", "gather", []*ir.Value{sh.Outputs[0], idx})
	ax := g.AddInitializer((&ir.Tensor{Name: "axes", DType: ir.Int64, Dims: []int64{1}}).SetInt64s([]int64{0}))
	un := one(g, "Unsqueeze", "unsq", []*ir.Value{ga.Outputs[0], ax})
	minus := g.AddInitializer((&ir.Tensor{Name: "minus", DType: ir.Int64, Dims: []int64{1}}).SetInt64s([]int64{-1}))
	cc := one(g, "Concat", "concat", []*ir.Value{un.Outputs[0], minus}, iattr("axis", 0))
	rs := one(g, "Reshape", "reshape", []*ir.Value{x, cc.Outputs[0]})
	// a kernel after the view: a view that is the model's output is a copy
	relu := one(g, "Relu", "relu", []*ir.Value{rs.Outputs[0]})
	g.Outputs = append(g.Outputs, relu.Outputs[0])
	return model(t, g, 17), []*ir.Node{sh, ga, un, cc, rs}
}

// TestNoFold: shape arithmetic is folded (free, no host time) unless the
// runtime runs every node; then views and shape queries cost dispatch plus
// free_node_us on the host, and small kernels cost a kernel.
func TestNoFold(t *testing.T) {
	m, nodes := shapeChain(t)
	h := preset(t, "cpu-1t")
	h.FreeNodeUs, h.ShapeNodeUs = 2, 0 // a Shape node costs free_node_us when shape_node_us is unset
	folded := New(h, m, Options{})
	for _, n := range nodes[:4] {
		if e := folded.Node(n); e.Class != Free || e.HostS != 0 {
			t.Errorf("%s folded: class %s host %g s, want free with no host time", n.Op, e.Class, e.HostS)
		}
	}
	all := New(h, m, Options{NoFold: true})
	wantFree := (h.DispatchUs + h.FreeNodeUs) * 1e-6
	for _, n := range nodes {
		e := all.Node(n)
		switch n.Op {
		case "Shape", "Unsqueeze", "Reshape":
			if e.Kernels != 0 || math.Abs(e.HostS-wantFree) > 1e-12 {
				t.Errorf("%s unfolded: %d kernels, host %g s; want none and %g s", n.Op, e.Kernels, e.HostS, wantFree)
			}
		default:
			if e.Kernels != 1 || e.HostS < h.DispatchUs*1e-6 {
				t.Errorf("%s unfolded: %d kernels, host %g s; want one kernel and its dispatch", n.Op, e.Kernels, e.HostS)
			}
		}
	}
}

// TestCacheModel: traffic that fits in the last-level cache moves at
// cache bandwidth, the rest at memory bandwidth; without a cache bandwidth
// every byte moves at memory bandwidth.
func TestCacheModel(t *testing.T) {
	h := preset(t, "cpu-1t")
	h.L2MB, h.CacheBandwidthGBs, h.MemoryBandwidthGBs = 1, 40, 20
	m := New(h, nil, Options{})
	if got, want := m.memS(0.5e6, 1, 1), 0.5e6/40e9; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("0.5 MB in cache: %g s, want %g s", got, want)
	}
	if got, want := m.memS(3e6, 1, 1), 1e6/40e9+2e6/20e9; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("3 MB: %g s, want %g s", got, want)
	}
	// three calls of 1 MB each fit the cache one at a time
	if got, want := m.memS(3e6, 3, 0.5), 3e6/40e9/0.5; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("3 calls of 1 MB at half efficiency: %g s, want %g s", got, want)
	}
	h.CacheBandwidthGBs = 0
	if got, want := m.memS(0.5e6, 1, 1), 0.5e6/20e9; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("no cache model: %g s, want %g s", got, want)
	}
}

// TestRNNOneCallOnCPU: a CPU library runs an LSTM's sequence in one call
// per direction (one kernel, the projection and a step per time step); a
// GPU launches a kernel per step.
func TestRNNOneCallOnCPU(t *testing.T) {
	g := ir.NewGraph("lstm")
	x := in(g, "x", ir.Float32, 5, 1, 8)
	w := in(g, "w", ir.Float32, 1, 64, 8)
	r := in(g, "r", ir.Float32, 1, 64, 16)
	n := g.AddNode("LSTM", "", "lstm", []*ir.Value{x, w, r}, []string{"y"}, iattr("hidden_size", 16))
	m := model(t, g, 17)
	c := New(preset(t, "cpu-1t"), m, Options{}).Node(n)
	if c.Kernels != 1 || c.Steps != 6 {
		t.Errorf("cpu: %d kernels, %d steps; want 1 and 6", c.Kernels, c.Steps)
	}
	// both directions: one call each (a fixed time per direction)
	rb := in(g, "rb", ir.Float32, 2, 64, 16)
	wb := in(g, "wb", ir.Float32, 2, 64, 8)
	bi := g.AddNode("LSTM", "", "bilstm", []*ir.Value{x, wb, rb}, []string{"yb"}, iattr("hidden_size", 16), sattr("direction", "bidirectional"))
	m = model(t, g, 17)
	if c := New(preset(t, "cpu-1t"), m, Options{}).Node(bi); c.Kernels != 2 || c.Steps != 6 {
		t.Errorf("cpu, bidirectional: %d kernels, %d steps; want 2 and 6", c.Kernels, c.Steps)
	}
	gpu := New(preset(t, "h100"), m, Options{}).Node(n)
	if gpu.Kernels != 6 || gpu.Steps != 0 {
		t.Errorf("h100: %d kernels, %d steps; want 6 and 0", gpu.Kernels, gpu.Steps)
	}
	// dispatch is paid once per node, launch once per kernel
	h := preset(t, "h100")
	if want := (6*h.LaunchUs + h.DispatchUs) * 1e-6; math.Abs(gpu.HostS-want) > 1e-12 {
		t.Errorf("h100 host time %g s, want %g s", gpu.HostS, want)
	}
}

// TestDepthwiseClass: a conv with one input channel per group is costed in
// its own class on the vector units, on every hardware.
func TestDepthwiseClass(t *testing.T) {
	g := ir.NewGraph("dw")
	x := in(g, "x", ir.Float16, 1, 32, 56, 56)
	w := in(g, "w", ir.Float16, 32, 1, 3, 3)
	n := one(g, "Conv", "dw", []*ir.Value{x, w}, iattr("group", 32), iattrs("pads", 1, 1, 1, 1))
	w2 := in(g, "w2", ir.Float16, 32, 16, 3, 3)
	n2 := one(g, "Conv", "grouped", []*ir.Value{x, w2}, iattr("group", 2), iattrs("pads", 1, 1, 1, 1))
	m := model(t, g, 17)
	cm := New(preset(t, "h100"), m, Options{})
	if e := cm.Node(n); e.Class != Depthwise || e.Math != "fp32" {
		t.Errorf("depthwise conv: class %s on %s, want depthwise on the fp32 vector units", e.Class, e.Math)
	}
	if e := cm.Node(n2); e.Class != Conv || e.Math != "fp16" {
		t.Errorf("grouped conv (16 channels per group): class %s on %s, want conv on fp16 tensor cores", e.Class, e.Math)
	}
}

// TestFusedKeepsStaging: fusing a conv with its activation removes the
// intermediate's traffic, not the conv's im2col staging or its per-group
// library calls.
func TestFusedKeepsStaging(t *testing.T) {
	h := preset(t, "cpu-1t")
	body := ir.NewGraph("body")
	x := in(body, "x", ir.Float32, 1, 32, 56, 56)
	w := in(body, "w", ir.Float32, 32, 1, 3, 3)
	conv := one(body, "Conv", "conv", []*ir.Value{x, w}, iattr("group", 32), iattrs("pads", 1, 1, 1, 1))
	relu := one(body, "Relu", "relu", []*ir.Value{conv.Outputs[0]})
	bm := model(t, body, 17)
	ce := New(h, bm, Options{}).Node(conv)
	if ce.StagedBytes == 0 || ce.Steps != 32 {
		t.Fatalf("test setup: conv staged %g bytes in %d steps", ce.StagedBytes, ce.Steps)
	}
	g := ir.NewGraph("main")
	gx := in(g, "x", ir.Float32, 1, 32, 56, 56)
	gw := in(g, "w", ir.Float32, 32, 1, 3, 3)
	f := g.AddNode("FusedConvRelu", "wolong", "fused_0", []*ir.Value{gx, gw}, []string{"y"},
		&ir.Attr{Name: "body", Type: ir.AttrGraph, G: body})
	f.Outputs[0].Type = relu.Outputs[0].Type
	body.Inputs, body.Outputs = []*ir.Value{x, w}, []*ir.Value{relu.Outputs[0]}
	cm := New(h, &ir.Model{Opsets: bm.Opsets, Graph: g}, Options{})
	e := cm.Node(f)
	eff := h.Efficiency.Class(string(ce.Class))
	inner := cm.stagedS(ce.Cost, eff.Memory) + 31*eff.OverheadUs*1e-6
	if e.DeviceS < inner {
		t.Errorf("fused device time %g s below the conv's staging and calls %g s", e.DeviceS, inner)
	}
}

// TestQAttentionIntegerPeak: a quantized attention's QKV projection is an
// integer GEMM: the op is costed at the int8 peak, ONNX Runtime's float
// Attention at the fp32 one.
func TestQAttentionIntegerPeak(t *testing.T) {
	build := func(quantized bool) (*ir.Model, *ir.Node) {
		g := ir.NewGraph("qattention")
		scalar := func(name string, dt ir.DType) *ir.Value { return in(g, name, dt) }
		var n *ir.Node
		if quantized {
			x := in(g, "x", ir.Uint8, 1, 8, 128)
			w := in(g, "w", ir.Int8, 128, 384)
			n = g.AddNode("QAttention", "com.microsoft", "qa", []*ir.Value{x, w, in(g, "b", ir.Float32, 384),
				scalar("xs", ir.Float32), scalar("ws", ir.Float32), nil, scalar("xz", ir.Uint8), scalar("wz", ir.Int8)}, []string{"y"}, iattr("num_heads", 4))
		} else {
			n = g.AddNode("Attention", "com.microsoft", "a", []*ir.Value{in(g, "x", ir.Float32, 1, 8, 128), in(g, "w", ir.Float32, 128, 384), in(g, "b", ir.Float32, 384)},
				[]string{"y"}, iattr("num_heads", 4))
		}
		m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
		ir.InferModel(m, ir.InferOptions{})
		return m, n
	}
	for _, c := range []struct {
		quantized bool
		want      string
	}{{true, "int8"}, {false, "fp32"}} {
		m, n := build(c.quantized)
		if e := New(preset(t, "cpu-1t"), m, Options{}).Node(n); e.Math != c.want || e.Unknown {
			t.Errorf("%s: costed on %q (unknown %v: %s), want %s", n.Op, e.Math, e.Unknown, e.Why, c.want)
		}
	}
}

// TestPackAtRun: an integer GEMM whose weights are computed at run time
// packs them in every call on a CPU library (2x their bytes staged);
// constant weights were packed once, at session creation.
func TestPackAtRun(t *testing.T) {
	for _, op := range []string{"MatMulInteger", "MatMul"} {
		g := ir.NewGraph("pack")
		dt := ir.Int8
		if op == "MatMul" {
			dt = ir.Float32
		}
		x := in(g, "x", dt, 4, 256)
		w := in(g, "w", dt, 256, 512)
		k := g.AddInitializer(&ir.Tensor{Name: "k", DType: dt, Dims: []int64{256, 512}, Raw: make([]byte, dt.StorageBytes(256*512))})
		run := g.AddNode(op, "", "run", []*ir.Value{x, w}, []string{"y1"})
		konst := g.AddNode(op, "", "konst", []*ir.Value{x, k}, []string{"y2"})
		m := model(t, g, 17)
		cm := New(preset(t, "cpu-1t"), m, Options{})
		a, b := cm.Node(run), cm.Node(konst)
		want := 0.0
		if dt == ir.Int8 {
			want = 2 * 256 * 512
		}
		if a.StagedBytes-b.StagedBytes != want {
			t.Errorf("%s: weights at run time stage %g bytes more than constant ones, want %g", op, a.StagedBytes-b.StagedBytes, want)
		}
		gpu := New(preset(t, "h100"), m, Options{})
		if d := gpu.Node(run).StagedBytes - gpu.Node(konst).StagedBytes; d != 0 {
			t.Errorf("%s on h100: %g staged bytes apart, want none (no packing pass)", op, d)
		}
	}
}

// TestRowsInInput: the share of a conv's (output row, kernel row) pairs
// that read an input row rather than a row wholly in the padding, on the
// row axes (all spatial axes but the last): a 5x5 kernel padded by 2 over
// 2 rows reads 4 of 10, a 3x3 padded by 1 over 16 rows 46 of 48, SAME
// padding as explicit, none for VALID or a 1-D conv.
func TestRowsInInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		x, w  []int64
		attrs []*ir.Attr
		want  float64
	}{
		{"5x5 over 2 rows", []int64{1, 8, 2, 96}, []int64{8, 1, 5, 5}, []*ir.Attr{iattrs("pads", 2, 2, 2, 2), iattr("group", 8)}, 4.0 / 10},
		{"3x3 over 16 rows", []int64{1, 8, 16, 16}, []int64{8, 8, 3, 3}, []*ir.Attr{iattrs("pads", 1, 1, 1, 1)}, 46.0 / 48},
		{"3x3 SAME_UPPER", []int64{1, 8, 16, 16}, []int64{8, 8, 3, 3}, []*ir.Attr{sattr("auto_pad", "SAME_UPPER")}, 46.0 / 48},
		{"3x3 stride 2 over 6 rows", []int64{1, 8, 6, 96}, []int64{8, 8, 3, 3}, []*ir.Attr{iattrs("pads", 1, 1, 1, 1), iattrs("strides", 2, 1)}, 8.0 / 9},
		{"VALID", []int64{1, 8, 16, 16}, []int64{8, 8, 3, 3}, []*ir.Attr{sattr("auto_pad", "VALID")}, 1},
		{"1-D", []int64{1, 8, 400}, []int64{8, 8, 3}, []*ir.Attr{iattrs("pads", 1, 1)}, 1},
		{"a billion rows, counted per kernel row", []int64{1, 1, 1 << 30, 4}, []int64{1, 1, 3, 3}, []*ir.Attr{iattrs("pads", 1, 1, 1, 1)}, (3.0*(1<<30) - 2) / (3.0 * (1 << 30))},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := ir.NewGraph("conv")
			x := in(g, "x", ir.Float32, c.x...)
			w := in(g, "w", ir.Float32, c.w...)
			n := one(g, "Conv", "conv", []*ir.Value{x, w}, c.attrs...)
			m := model(t, g, 17)
			ctx := &Ctx{Node: n, Class: Conv, m: New(preset(t, "cpu-1t"), m, Options{})}
			if got := ctx.rowsInInput(0, c.w); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("rowsInInput = %g, want %g", got, c.want)
			}
		})
	}
}

// TestViewOutputCopies: a view is free inside a model and a copy of its
// bytes (read and write) when its output is the model's output; a view
// inside a subgraph or feeding a kernel stays free.
func TestViewOutputCopies(t *testing.T) {
	g := ir.NewGraph("views")
	x := in(g, "x", ir.Float32, 1, 3, 64, 64)
	ax := g.AddInitializer((&ir.Tensor{Name: "ax", DType: ir.Int64, Dims: []int64{1}}).SetInt64s([]int64{0}))
	inner := one(g, "Squeeze", "inner", []*ir.Value{x, ax})
	relu := one(g, "Relu", "relu", []*ir.Value{inner.Outputs[0]})
	outer := one(g, "Unsqueeze", "outer", []*ir.Value{relu.Outputs[0], ax})
	g.Outputs = append(g.Outputs, outer.Outputs[0])
	m := New(preset(t, "cpu-1t"), model(t, g, 17), Options{})
	if e := m.Node(inner); e.Class != Free || e.Kernels != 0 {
		t.Errorf("a view feeding a kernel: class %s, %d kernels; want free", e.Class, e.Kernels)
	}
	e := m.Node(outer)
	if e.Kernels != 1 || e.Bytes != 2*3*64*64*4 {
		t.Errorf("a view that is the model's output: %d kernels, %g bytes; want one copy of %d bytes", e.Kernels, e.Bytes, 2*3*64*64*4)
	}
	if !IsView(outer) || IsView(relu) {
		t.Errorf("IsView: Unsqueeze %v, Relu %v", IsView(outer), IsView(relu))
	}
}
