package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// builder helpers: graphs built by hand, then shape-inferred.

func in(g *ir.Graph, name string, dt ir.DType, dims ...int64) *ir.Value {
	return g.AddInput(name, ir.TensorType(dt, ir.ShapeOf(dims...)))
}

func one(g *ir.Graph, op, name string, ins []*ir.Value, attrs ...*ir.Attr) *ir.Node {
	return g.AddNode(op, "", name, ins, []string{name + "_out"}, attrs...)
}

func iattr(name string, v int64) *ir.Attr { return &ir.Attr{Name: name, Type: ir.AttrInt, I: v} }
func iattrs(name string, v ...int64) *ir.Attr {
	return &ir.Attr{Name: name, Type: ir.AttrInts, Ints: v}
}
func sattr(name, v string) *ir.Attr { return &ir.Attr{Name: name, Type: ir.AttrString, S: []byte(v)} }

func model(t testing.TB, g *ir.Graph, opset int64) *ir.Model {
	t.Helper()
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: opset}}, Graph: g}
	ir.InferModel(m, ir.InferOptions{})
	return m
}

func preset(t testing.TB, name string) *hw.Hardware {
	t.Helper()
	h, err := hw.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func within(got, want, tol float64) bool { return math.Abs(got/want-1) <= tol }

// Anchor: measured on this workplace's H200 with PyTorch, bf16 (wolong
// issue 3, "Ground truth"): an 8192x8192x8192 MatMul ran at 769-798
// TFLOP/s, about 1.40 ms. The prediction must be within 10%.
func TestAnchorH200MatMul(t *testing.T) {
	g := ir.NewGraph("mm")
	a := in(g, "a", ir.BFloat16, 8192, 8192)
	b := in(g, "b", ir.BFloat16, 8192, 8192)
	n := one(g, "MatMul", "mm", []*ir.Value{a, b})
	m := model(t, g, 17)
	e := New(preset(t, "h200"), m, Options{}).Node(n)
	if want := 2.0 * 8192 * 8192 * 8192; e.FLOPs != want {
		t.Fatalf("FLOPs = %g, want %g", e.FLOPs, want)
	}
	if !within(e.DeviceS, 1.40e-3, 0.10) {
		t.Errorf("8192^3 bf16 MatMul on h200: predicted %.3f ms, want 1.40 ms +-10%%", e.DeviceS*1e3)
	}
	if e.Bound != BoundCompute || e.Math != "bf16" {
		t.Errorf("bound %s math %s, want compute on bf16 tensor cores", e.Bound, e.Math)
	}
	t.Logf("h200 8192^3 bf16 MatMul: %.4f ms, %.0f TFLOP/s", e.DeviceS*1e3, e.FLOPs/e.DeviceS/1e12)
}

// Anchor: measured on this workplace's H200 (wolong issue 3): a
// device-to-device copy moved about 4.3 TB/s counting read + write. An
// elementwise Add over 2^30 float32 elements (4 GiB read x2 + 4 GiB
// written) must run within 10% of that bandwidth.
func TestAnchorH200Add(t *testing.T) {
	g := ir.NewGraph("add")
	a := in(g, "a", ir.Float32, 1<<30)
	b := in(g, "b", ir.Float32, 1<<30)
	n := one(g, "Add", "add", []*ir.Value{a, b})
	m := model(t, g, 17)
	e := New(preset(t, "h200"), m, Options{}).Node(n)
	if want := 3.0 * 4 * (1 << 30); e.Bytes != want {
		t.Fatalf("bytes = %g, want %g", e.Bytes, want)
	}
	bw := e.Bytes / e.DeviceS
	if !within(bw, 4.3e12, 0.10) {
		t.Errorf("2^30 float32 Add on h200: %.2f TB/s, want 4.3 TB/s +-10%%", bw/1e12)
	}
	if e.Bound != BoundMemory {
		t.Errorf("bound %s, want memory", e.Bound)
	}
	t.Logf("h200 2^30 fp32 Add: %.3f ms, %.2f TB/s", e.DeviceS*1e3, bw/1e12)
}

// Hand-computed FLOPs and bytes; MatMul/Conv also cross-checked with
// ir.NodeMACs (an independent implementation).
func TestFLOPs(t *testing.T) {
	f32 := ir.Float32
	tests := []struct {
		name    string
		build   func(g *ir.Graph) *ir.Node
		flops   float64
		bytes   float64 // 0: don't check
		kernels int64
		macs    bool // cross-check with ir.NodeMACs
	}{
		{"batched matmul", func(g *ir.Graph) *ir.Node {
			return one(g, "MatMul", "mm", []*ir.Value{in(g, "a", f32, 2, 3, 64, 32), in(g, "b", f32, 32, 16)})
		}, 2 * 2 * 3 * 64 * 16 * 32, 4 * (2*3*64*32 + 32*16 + 2*3*64*16), 1, true},
		{"matvec 1-D", func(g *ir.Graph) *ir.Node {
			return one(g, "MatMul", "mm", []*ir.Value{in(g, "a", f32, 128), in(g, "b", f32, 128, 256)})
		}, 2 * 128 * 256, 4 * (128 + 128*256 + 256), 1, true},
		{"gemm transA bias", func(g *ir.Graph) *ir.Node {
			return one(g, "Gemm", "gemm", []*ir.Value{in(g, "a", f32, 32, 8), in(g, "b", f32, 32, 16), in(g, "c", f32, 16)}, iattr("transA", 1))
		}, 2*8*16*32 + 2*8*16, 4 * (32*8 + 32*16 + 16 + 8*16), 1, false},
		// ResNet-50 stem: 118,013,952 MACs
		{"conv 7x7 s2", func(g *ir.Graph) *ir.Node {
			return one(g, "Conv", "conv", []*ir.Value{in(g, "x", f32, 1, 3, 224, 224), in(g, "w", f32, 64, 3, 7, 7)},
				iattrs("strides", 2, 2), iattrs("pads", 3, 3, 3, 3))
		}, 2 * 118013952, 0, 1, true},
		{"depthwise conv", func(g *ir.Graph) *ir.Node {
			return one(g, "Conv", "dw", []*ir.Value{in(g, "x", f32, 2, 32, 16, 16), in(g, "w", f32, 32, 1, 3, 3)},
				iattr("group", 32), iattrs("pads", 1, 1, 1, 1))
		}, 2 * 2 * 32 * 16 * 16 * 9, 0, 1, true},
		{"dilated conv", func(g *ir.Graph) *ir.Node {
			// 20x20 input, 3x3 kernel dilated 2 -> 16x16 output
			return one(g, "Conv", "dil", []*ir.Value{in(g, "x", f32, 1, 8, 20, 20), in(g, "w", f32, 4, 8, 3, 3)},
				iattrs("dilations", 2, 2))
		}, 2 * 4 * 16 * 16 * 8 * 9, 0, 1, true},
		{"conv transpose grouped", func(g *ir.Graph) *ir.Node {
			return one(g, "ConvTranspose", "ct", []*ir.Value{in(g, "x", f32, 1, 8, 5, 5), in(g, "w", f32, 8, 3, 2, 2)},
				iattr("group", 2), iattrs("strides", 2, 2))
		}, 2 * 8 * 25 * 3 * 4, 0, 1, true},
		// LSTM: T=5 B=2 I=8 H=16, both directions
		{"bidirectional lstm", func(g *ir.Graph) *ir.Node {
			x := in(g, "x", f32, 5, 2, 8)
			w := in(g, "w", f32, 2, 64, 8)
			r := in(g, "r", f32, 2, 64, 16)
			return g.AddNode("LSTM", "", "lstm", []*ir.Value{x, w, r}, []string{"y", "yh", "yc"},
				iattr("hidden_size", 16), sattr("direction", "bidirectional"))
		}, 2 * (2*5*2*8*64 + 5*(2*2*16*64+10*2*64)), 0, 2 * 6, false},
		{"add broadcast", func(g *ir.Graph) *ir.Node {
			return one(g, "Add", "add", []*ir.Value{in(g, "a", f32, 4, 1, 8), in(g, "b", f32, 3, 1)})
		}, 4 * 3 * 8, 4 * (32 + 3 + 96), 1, false},
		{"softmax", func(g *ir.Graph) *ir.Node {
			return one(g, "Softmax", "sm", []*ir.Value{in(g, "a", f32, 10, 100)})
		}, 5 * 1000, 4 * 2000, 1, false},
		{"gather reads only the rows it takes", func(g *ir.Graph) *ir.Node {
			return one(g, "Gather", "emb", []*ir.Value{in(g, "table", f32, 50000, 64), in(g, "idx", ir.Int64, 8)})
		}, 0, 8*8 + 2*4*8*64, 1, false},
		{"reshape is free", func(g *ir.Graph) *ir.Node {
			return one(g, "Reshape", "r", []*ir.Value{in(g, "a", f32, 4, 6), in(g, "s", ir.Int64, 2)})
		}, 0, 0, 0, false},
	}
	h := preset(t, "a100")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ir.NewGraph(tc.name)
			n := tc.build(g)
			m := model(t, g, 17)
			e := New(h, m, Options{}).Node(n)
			if e.Unknown {
				t.Fatalf("unknown cost: %s", e.Why)
			}
			if e.FLOPs != tc.flops {
				t.Errorf("FLOPs = %g, want %g", e.FLOPs, tc.flops)
			}
			if tc.bytes != 0 && e.Bytes != tc.bytes {
				t.Errorf("bytes = %g, want %g", e.Bytes, tc.bytes)
			}
			if e.Kernels != tc.kernels {
				t.Errorf("kernels = %d, want %d", e.Kernels, tc.kernels)
			}
			if tc.macs {
				r := ir.NodeMACs(n)
				if !r.Known || float64(2*r.MACs) != e.FLOPs {
					t.Errorf("ir.NodeMACs = %+v, 2x = %d, cost FLOPs %g", r, 2*r.MACs, e.FLOPs)
				}
			}
			if tc.kernels > 0 && !(e.DeviceS > 0 && e.HostS > 0) {
				t.Errorf("a kernel with no time: device %g host %g", e.DeviceS, e.HostS)
			}
		})
	}
}

// A GEMM that fills one tile of 132 SMs runs far below peak: the waves
// model must make its time per FLOP much worse than a large GEMM's.
func TestSmallKernelWaves(t *testing.T) {
	h := preset(t, "h100")
	est := func(mm, nn, kk int64) Estimate {
		g := ir.NewGraph("mm")
		n := one(g, "MatMul", "mm", []*ir.Value{in(g, "a", ir.Float16, mm, kk), in(g, "b", ir.Float16, kk, nn)})
		return New(h, model(t, g, 17), Options{}).Node(n)
	}
	big, small := est(8192, 8192, 8192), est(128, 128, 8192)
	perBig, perSmall := big.ComputeS/big.FLOPs, small.ComputeS/small.FLOPs
	// one 128x128 tile occupies 1 of 132 SMs
	if r := perSmall / perBig; r < 100 || r > 140 {
		t.Errorf("small/large time per FLOP = %.1f, want about 132/0.97", r)
	}
	// 133 tiles need two waves: half the device idles in the second
	two := est(128*133, 128, 8192)
	if u := New(h, nil, Options{}).Waves(133); math.Abs(u-133.0/264) > 1e-12 {
		t.Errorf("Waves(133) = %g, want 133/264", u)
	}
	if !within(two.ComputeS, 2*small.ComputeS, 1e-9) {
		t.Errorf("133 tiles: %g s, want two waves = 2 x one tile's %g s", two.ComputeS, small.ComputeS)
	}
}

func TestUnknownNeverZero(t *testing.T) {
	h := preset(t, "h100")
	tests := []struct {
		name  string
		build func(g *ir.Graph) *ir.Node
		why   string
	}{
		{"symbolic dim", func(g *ir.Graph) *ir.Node {
			a := g.AddInput("a", ir.TensorType(ir.Float32, ir.DimsShape(ir.S("N"), ir.D(64))))
			return one(g, "MatMul", "mm", []*ir.Value{a, in(g, "b", ir.Float32, 64, 64)})
		}, "shape of"},
		{"opaque op", func(g *ir.Graph) *ir.Node {
			return g.AddNode("Frobnicate", "example.custom", "fb", []*ir.Value{in(g, "a", ir.Float32, 4)}, []string{"y"})
		}, "opaque"},
		{"unknown rank", func(g *ir.Graph) *ir.Node {
			a := g.AddInput("a", ir.TensorType(ir.Float32, ir.UnknownShape()))
			return one(g, "Relu", "relu", []*ir.Value{a})
		}, "shape of"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ir.NewGraph(tc.name)
			n := tc.build(g)
			e := New(h, model(t, g, 17), Options{}).Node(n)
			if !e.Unknown || e.Bound != BoundUnknown || !strings.Contains(e.Why, tc.why) {
				t.Errorf("got unknown=%v bound=%s why=%q, want unknown mentioning %q", e.Unknown, e.Bound, e.Why, tc.why)
			}
			if e.HostS <= 0 || e.Kernels != 1 {
				t.Errorf("unknown node must still count its launch: host %g kernels %d", e.HostS, e.Kernels)
			}
		})
	}
}

// loopModel builds Loop(M, , v) whose body computes v @ W.
func loopModel(t *testing.T, trip int64) (*ir.Model, *ir.Node) {
	g := ir.NewGraph("main")
	w := in(g, "w", ir.Float32, 64, 64)
	v0 := in(g, "v0", ir.Float32, 64, 64)
	var mv *ir.Value
	if trip >= 0 {
		mv = g.AddInitializer((&ir.Tensor{Name: "M", DType: ir.Int64}).SetInt64s([]int64{trip}))
	}
	body := ir.NewGraph("body")
	body.Parent = g
	body.AddInput("i", ir.TensorType(ir.Int64, ir.ShapeOf()))
	cond := body.AddInput("cond", ir.TensorType(ir.Bool, ir.ShapeOf()))
	v := body.AddInput("v", ir.TensorType(ir.Float32, ir.UnknownShape()))
	mm := body.AddNode("MatMul", "", "body_mm", []*ir.Value{v, w}, []string{"v_next"})
	id := body.AddNode("Identity", "", "body_cond", []*ir.Value{cond}, []string{"cond_out"})
	body.Outputs = []*ir.Value{id.Outputs[0], mm.Outputs[0]}
	loop := g.AddNode("Loop", "", "loop", []*ir.Value{mv, nil, v0}, []string{"v_final"}, &ir.Attr{Name: "body", Type: ir.AttrGraph, G: body})
	body.ParentNode = loop
	g.Outputs = []*ir.Value{loop.Outputs[0]}
	return model(t, g, 17), loop
}

func TestLoopTripCount(t *testing.T) {
	h := preset(t, "h100")
	perIter := 2.0 * 64 * 64 * 64
	tests := []struct {
		name     string
		trip     int64 // -1: no M input
		opt      Options
		wantTrip float64
		note     string
	}{
		{"static M", 7, Options{}, 7, "from the model"},
		{"no M, default", -1, Options{}, DefaultTrip, "assumed"},
		{"no M, --trip", -1, Options{Trip: 3}, 3, "assumed 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, loop := loopModel(t, tc.trip)
			cm := New(h, m, tc.opt)
			e := cm.Node(loop)
			if e.Unknown {
				t.Fatalf("unknown: %s", e.Why)
			}
			if e.FLOPs != perIter*tc.wantTrip || e.Kernels != int64(tc.wantTrip) {
				t.Errorf("FLOPs %g kernels %d, want %g and %g", e.FLOPs, e.Kernels, perIter*tc.wantTrip, tc.wantTrip)
			}
			if !strings.Contains(e.Note, tc.note) {
				t.Errorf("note %q does not state the trip count (%q)", e.Note, tc.note)
			}
		})
	}
}

// The fused-kernel rule: a wolong node whose "body" attribute is a graph
// is one kernel; FLOPs are its body's, bytes only its external inputs and
// outputs.
func TestFusedKernel(t *testing.T) {
	h := preset(t, "h100")
	// Unfused reference: y = Relu(MatMul(x, w) + b).
	ref := ir.NewGraph("ref")
	x := in(ref, "x", ir.Float16, 256, 512)
	w := in(ref, "w", ir.Float16, 512, 1024)
	b := in(ref, "b", ir.Float16, 1024)
	mm := one(ref, "MatMul", "mm", []*ir.Value{x, w})
	add := one(ref, "Add", "add", []*ir.Value{mm.Outputs[0], b})
	relu := one(ref, "Relu", "relu", []*ir.Value{add.Outputs[0]})
	rm := model(t, ref, 17)
	cm := New(h, rm, Options{})
	var sumFLOPs, sumBytes, sumDevice float64
	for _, n := range []*ir.Node{mm, add, relu} {
		e := cm.Node(n)
		sumFLOPs += e.FLOPs
		sumBytes += e.Bytes
		sumDevice += e.DeviceS
	}

	// The same body as a fused node in the main graph.
	g := ir.NewGraph("main")
	gx := in(g, "x", ir.Float16, 256, 512)
	gw := in(g, "w", ir.Float16, 512, 1024)
	gb := in(g, "b", ir.Float16, 1024)
	fused := g.AddNode("FusedMatMulAddRelu", "wolong", "fused_0", []*ir.Value{gx, gw, gb}, []string{"y"},
		&ir.Attr{Name: "body", Type: ir.AttrGraph, G: ref})
	fused.Outputs[0].Type = relu.Outputs[0].Type
	ref.Inputs, ref.Outputs = []*ir.Value{x, w, b}, []*ir.Value{relu.Outputs[0]}
	e := New(h, &ir.Model{Opsets: rm.Opsets, Graph: g}, Options{}).Node(fused)
	if e.Unknown {
		t.Fatalf("unknown: %s", e.Why)
	}
	if e.FLOPs != sumFLOPs {
		t.Errorf("fused FLOPs %g, want the body's sum %g", e.FLOPs, sumFLOPs)
	}
	wantBytes := 2.0 * (256*512 + 512*1024 + 1024 + 256*1024)
	if e.Bytes != wantBytes || e.Bytes >= sumBytes {
		t.Errorf("fused bytes %g, want external only %g (unfused %g)", e.Bytes, wantBytes, sumBytes)
	}
	if e.Kernels != 1 || e.HostS != (h.LaunchUs+h.DispatchUs)*1e-6 {
		t.Errorf("fused kernels %d host %g, want one launch", e.Kernels, e.HostS)
	}
	if e.DeviceS >= sumDevice {
		t.Errorf("fused device time %g not below unfused %g", e.DeviceS, sumDevice)
	}
}

func TestRegistryCoversCommonOps(t *testing.T) {
	for _, op := range []string{"Conv", "ConvTranspose", "MatMul", "Gemm", "LSTM", "GRU", "RNN", "Attention",
		"ReduceMean", "LayerNormalization", "BatchNormalization", "Resize", "Loop", "Scan", "If", "Softmax", "Einsum"} {
		if !Registered("", op) {
			t.Errorf("no cost function for %s", op)
		}
	}
	for _, op := range []string{"Attention", "MultiHeadAttention", "GroupQueryAttention", "SkipLayerNormalization", "MatMulNBits"} {
		if !Registered("com.microsoft", op) {
			t.Errorf("no cost function for com.microsoft:%s", op)
		}
	}
}

// Attention (opset 23), 4-D: FLOPs = 2 B H Sq Skv (dqk + dv) + 5 B H Sq Skv.
func TestAttentionFLOPs(t *testing.T) {
	g := ir.NewGraph("attn")
	q := in(g, "q", ir.Float16, 2, 4, 16, 8)
	k := in(g, "k", ir.Float16, 2, 4, 32, 8)
	v := in(g, "v", ir.Float16, 2, 4, 32, 8)
	n := g.AddNode("Attention", "", "attn", []*ir.Value{q, k, v}, []string{"y"})
	m := model(t, g, 23)
	e := New(preset(t, "h100"), m, Options{}).Node(n)
	if e.Unknown {
		t.Fatalf("unknown: %s", e.Why)
	}
	want := 2.0*2*4*16*32*(8+8) + 5*2*4*16*32
	if e.FLOPs != want {
		t.Errorf("FLOPs %g, want %g", e.FLOPs, want)
	}
	// flash-style: bytes are Q, K, V and Y only, not the 16x32 scores
	if wantB := 2.0 * (2*4*16*8 + 2*2*4*32*8 + 2*4*16*8); e.Bytes != wantB {
		t.Errorf("bytes %g, want %g", e.Bytes, wantB)
	}
}

// ifModel builds If(cond) whose then branch computes x @ W and whose else
// branch passes x through; cond is a graph input (the inputs decide it)
// or, with static >= 0, a constant.
func ifModel(t *testing.T, static int64) (*ir.Model, *ir.Node) {
	g := ir.NewGraph("main")
	w := in(g, "w", ir.Float32, 64, 64)
	x := in(g, "x", ir.Float32, 64, 64)
	var cond *ir.Value
	if static >= 0 {
		cond = g.AddInitializer((&ir.Tensor{Name: "c", DType: ir.Bool}).SetInt64s([]int64{static}))
	} else {
		cond = in(g, "c", ir.Bool)
	}
	thenG, elseG := ir.NewGraph("then"), ir.NewGraph("else")
	thenG.Parent, elseG.Parent = g, g
	mm := thenG.AddNode("MatMul", "", "then_mm", []*ir.Value{x, w}, []string{"y_then"})
	thenG.Outputs = []*ir.Value{mm.Outputs[0]}
	id := elseG.AddNode("Identity", "", "else_id", []*ir.Value{x}, []string{"y_else"})
	elseG.Outputs = []*ir.Value{id.Outputs[0]}
	n := g.AddNode("If", "", "if", []*ir.Value{cond}, []string{"y"},
		&ir.Attr{Name: "then_branch", Type: ir.AttrGraph, G: thenG}, &ir.Attr{Name: "else_branch", Type: ir.AttrGraph, G: elseG})
	thenG.ParentNode, elseG.ParentNode = n, n
	g.Outputs = []*ir.Value{n.Outputs[0]}
	return model(t, g, 17), n
}

// TestIfBranch: an If whose inputs decide the branch (a graph input, not
// a gate) costs the mean of its branches (BranchAuto, the default, and
// BranchMean) or the costlier (BranchMax); a constant condition costs the
// branch it selects either way.
func TestIfBranch(t *testing.T) {
	h := preset(t, "cpu-1t")
	branch := func(static int64, b Branch) Estimate {
		m, n := ifModel(t, static)
		e := New(h, m, Options{Branch: b}).Node(n)
		if e.Unknown {
			t.Fatalf("unknown: %s", e.Why)
		}
		return e
	}
	then, els := branch(1, ""), branch(0, "")
	if then.DeviceS <= 2*els.DeviceS || then.FLOPs != 2*64*64*64 || els.FLOPs != 0 {
		t.Fatalf("constant conditions: then %g s %g FLOPs, else %g s %g FLOPs", then.DeviceS, then.FLOPs, els.DeviceS, els.FLOPs)
	}
	mean, max := branch(-1, ""), branch(-1, BranchMax)
	if d := math.Abs(mean.DeviceS - (then.DeviceS+els.DeviceS)/2); d > 1e-12 || mean.FLOPs != then.FLOPs/2 {
		t.Errorf("mean: %g s %g FLOPs, want %g s %g FLOPs", mean.DeviceS, mean.FLOPs, (then.DeviceS+els.DeviceS)/2, then.FLOPs/2)
	}
	if !strings.Contains(mean.Note, "mean of its branches (then ") || !strings.Contains(mean.Note, ", else ") {
		t.Errorf("mean note %q does not give both branches", mean.Note)
	}
	if max.DeviceS != then.DeviceS || max.FLOPs != then.FLOPs || !strings.Contains(max.Note, "costlier (then)") {
		t.Errorf("max: %g s %g FLOPs %q, want the then branch's %g s", max.DeviceS, max.FLOPs, max.Note, then.DeviceS)
	}
	// the spread a run can take: to the cheaper branch and to the costlier
	tot := func(e Estimate) float64 { return e.DeviceS + e.HostS }
	if then.BranchLessS != 0 || then.BranchMoreS != 0 {
		t.Errorf("a constant condition has no spread: %g, %g", then.BranchLessS, then.BranchMoreS)
	}
	for _, e := range []Estimate{mean, max} {
		lo, hi := tot(e)-e.BranchLessS, tot(e)+e.BranchMoreS
		if math.Abs(lo-tot(els)) > 1e-12 || math.Abs(hi-tot(then)) > 1e-12 {
			t.Errorf("range %g..%g s, want the branches' %g..%g", lo, hi, tot(els), tot(then))
		}
	}
	if _, err := ParseBranch("then"); err == nil {
		t.Error("ParseBranch(then): no error")
	}
}

// TestIfGate: an If whose condition is a threshold on a computed score
// (Greater(ReduceMax(x), 0.5)) and whose else branch passes x through is
// a gate: BranchAuto costs the else branch and says so, BranchMean the
// mean; the same condition computed from Shape(x) is a shape guard, and
// BranchAuto costs its mean.
func TestIfGate(t *testing.T) {
	h := preset(t, "cpu-1t")
	build := func(shape bool) (*ir.Model, *ir.Node) {
		g := ir.NewGraph("main")
		w := in(g, "w", ir.Float32, 64, 64)
		x := in(g, "x", ir.Float32, 64, 64)
		var score *ir.Value
		if shape {
			s := one(g, "Shape", "shape", []*ir.Value{x})
			score = one(g, "Cast", "cast", []*ir.Value{s.Outputs[0]}, &ir.Attr{Name: "to", Type: ir.AttrInt, I: int64(ir.Float32)}).Outputs[0]
			score = one(g, "ReduceMax", "max", []*ir.Value{score}).Outputs[0]
		} else {
			score = one(g, "ReduceMax", "max", []*ir.Value{x}).Outputs[0]
		}
		th := g.AddInitializer(&ir.Tensor{Name: "th", DType: ir.Float32, Dims: []int64{}, Raw: make([]byte, 4)})
		cond := one(g, "Greater", "gt", []*ir.Value{score, th}).Outputs[0]
		thenG, elseG := ir.NewGraph("then"), ir.NewGraph("else")
		thenG.Parent, elseG.Parent = g, g
		thenG.Outputs = thenG.AddNode("MatMul", "", "then_mm", []*ir.Value{x, w}, []string{"y_then"}).Outputs
		elseG.Outputs = elseG.AddNode("Identity", "", "else_id", []*ir.Value{x}, []string{"y_else"}).Outputs
		n := g.AddNode("If", "", "if", []*ir.Value{cond}, []string{"y"},
			&ir.Attr{Name: "then_branch", Type: ir.AttrGraph, G: thenG}, &ir.Attr{Name: "else_branch", Type: ir.AttrGraph, G: elseG})
		thenG.ParentNode, elseG.ParentNode = n, n
		g.Outputs = []*ir.Value{n.Outputs[0]}
		return model(t, g, 17), n
	}
	m, n := build(false)
	auto := New(h, m, Options{}).Node(n)
	mean := New(h, m, Options{Branch: BranchMean}).Node(n)
	if !(auto.DeviceS < mean.DeviceS) || auto.FLOPs != 0 || !strings.Contains(auto.Note, "a gate") {
		t.Errorf("gate, auto: %g s %g FLOPs %q; want the else branch (no FLOPs), under the mean's %g s", auto.DeviceS, auto.FLOPs, auto.Note, mean.DeviceS)
	}
	if auto.BranchMoreS <= 0 {
		t.Errorf("gate, auto: no range up to the costlier branch (%g s)", auto.BranchMoreS)
	}
	ms, ns := build(true)
	guard := New(h, ms, Options{}).Node(ns)
	if guard.FLOPs == 0 || strings.Contains(guard.Note, "a gate") {
		t.Errorf("shape guard, auto: %g FLOPs %q; want the mean of its branches", guard.FLOPs, guard.Note)
	}
}

// TestGEMMHalfRows: with gemm_half_rows r, a float GEMM of M rows per call
// computes at M/(M+r) of the speed; a 3-D A times a 2-D B is one GEMM of
// all A's rows (ONNX Runtime folds them), a batched B one GEMM per matrix.
func TestGEMMHalfRows(t *testing.T) {
	h := preset(t, "cpu-1t")
	compute := func(r float64, a, b []int64) float64 {
		g := ir.NewGraph("main")
		x, w := in(g, "a", ir.Float32, a...), in(g, "b", ir.Float32, b...)
		n := g.AddNode("MatMul", "", "mm", []*ir.Value{x, w}, []string{"y"})
		g.Outputs = n.Outputs
		hh := h.Clone()
		hh.GEMMHalfRows = r
		e := New(hh, model(t, g, 17), Options{}).Node(n)
		if e.Unknown {
			t.Fatalf("unknown: %s", e.Why)
		}
		return e.ComputeS
	}
	for _, tc := range []struct {
		a, b []int64
		rows float64
	}{
		{[]int64{4, 64}, []int64{64, 64}, 4},
		{[]int64{3, 4, 64}, []int64{64, 64}, 12},
		{[]int64{3, 4, 64}, []int64{3, 64, 64}, 4},
	} {
		plain, slow := compute(0, tc.a, tc.b), compute(6, tc.a, tc.b)
		if want := (tc.rows + 6) / tc.rows; math.Abs(slow/plain-want) > 1e-9 {
			t.Errorf("%v x %v: %.4g times the row-free compute time, want %.4g (%g rows)", tc.a, tc.b, slow/plain, want, tc.rows)
		}
	}
}

// TestGEMMColLanes: with gemm_col_lanes l, a GEMM of N output columns
// computes at N / (ceil(N/l) x l) of the speed (a MatMul's N; a conv's
// output positions per image).
func TestGEMMColLanes(t *testing.T) {
	h := preset(t, "cpu-1t")
	compute := func(l float64, g *ir.Graph, n *ir.Node) float64 {
		hh := h.Clone()
		hh.GEMMColLanes = l
		e := New(hh, model(t, g, 17), Options{}).Node(n)
		if e.Unknown {
			t.Fatalf("unknown: %s", e.Why)
		}
		return e.ComputeS
	}
	mm := func(n int64) (*ir.Graph, *ir.Node) {
		g := ir.NewGraph("main")
		x, w := in(g, "a", ir.Float32, 64, 64), in(g, "b", ir.Float32, 64, n)
		nd := g.AddNode("MatMul", "", "mm", []*ir.Value{x, w}, []string{"y"})
		g.Outputs = nd.Outputs
		return g, nd
	}
	for _, tc := range []struct {
		n    int64
		want float64 // slowdown at 16 lanes
	}{{5, 16.0 / 5}, {16, 1}, {20, 32.0 / 20}, {64, 1}} {
		g, n := mm(tc.n)
		if got := compute(16, g, n) / compute(0, g, n); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("N=%d: %.4g times the lane-free compute time, want %.4g", tc.n, got, tc.want)
		}
	}
	// a 1-D conv of 5 output positions (an STFT frame count)
	g := ir.NewGraph("main")
	x, w := in(g, "x", ir.Float32, 1, 1, 1152), in(g, "w", ir.Float32, 257, 1, 512)
	n := g.AddNode("Conv", "", "stft", []*ir.Value{x, w}, []string{"y"}, &ir.Attr{Name: "strides", Type: ir.AttrInts, Ints: []int64{160}})
	g.Outputs = n.Outputs
	if got := compute(16, g, n) / compute(0, g, n); math.Abs(got-16.0/5) > 1e-9 {
		t.Errorf("conv of 5 output positions: %.4g times the lane-free compute time, want 3.2", got)
	}
}
