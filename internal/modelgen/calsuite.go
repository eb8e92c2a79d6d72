package modelgen

// This file generates the host-calibration suite: small models that
// `wolong calibrate --host` runs in ONNX Runtime on the user's machine to
// fit a CPU hardware file. Each model exercises one op class at one size
// (GEMM and conv shapes across the cache sizes, elementwise and reduction
// chains, data movement, views) or one source of per-node host cost (chains
// of tiny kernels and of views, a loop, an If), plus a few small complete
// models. Every input is a float32 graph input with a concrete shape; other
// operands are initializers, so the harness's random inputs are always
// valid.

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// SuiteModel is one model of the calibration suite.
type SuiteModel struct {
	Name  string // file name stem, unique in the suite
	Group string // what it measures: gemm, conv, depthwise, elementwise, reduction, norm, movement, view, host, control, rnn, front, quant, model
	Model *ir.Model
	// TwoThreads: also measured with two intra-op threads (the ops whose
	// time a second core changes: large GEMMs, convs, elementwise).
	TwoThreads bool
}

// suiteOpset is the opset of the suite's models: LayerNormalization needs
// 17.
const suiteOpset = 17

// repeat is how many instances of the measured op a single-op model
// chains: enough for the op to dominate the run, few enough to keep the
// suite fast.
const repeat = 4

// CalibrationSuite returns the suite in a fixed order (the order the
// harness measures them in).
func CalibrationSuite() []SuiteModel {
	var s []SuiteModel
	add := func(group, name string, two bool, m *ir.Model) {
		s = append(s, SuiteModel{Name: group + "_" + name, Group: group, Model: m, TwoThreads: two})
	}
	// GEMMs: vectors against weights (memory bound on the weights), small
	// to large square products, transformer-like and classifier shapes.
	for _, g := range []struct{ m, k, n int64 }{
		{1, 64, 64}, {1, 256, 256}, {1, 1024, 1024}, {1, 1280, 1000},
		{8, 256, 256}, {32, 128, 128}, {64, 512, 512}, {128, 768, 768},
		{196, 384, 384}, {256, 256, 1024}, {512, 512, 512}, {16, 64, 3072},
		// one-row chains whose weights fill 0.6-0.95 of a 2 MiB L2 (a
		// server core's): where the set starts to miss the cache
		// (hw cache_working_fraction; beyond L2 on smaller caches)
		{1, 288, 288}, {1, 320, 320}, {1, 352, 352},
	} {
		add("gemm", fmt.Sprintf("%dx%dx%d", g.m, g.k, g.n), g.m*g.k*g.n >= 1<<22, matmulChain(g.m, g.k, g.n))
	}
	add("gemm", "gemm_bias_16x512x512", false, gemmChain(16, 512, 512))
	// Convolutions (NCHW, float32): a stem, 3x3 layers from early to late
	// stages, pointwise and strided layers, a 1-D audio-style conv.
	for _, c := range []struct {
		cin, cout, h, w, k, stride, group int64
	}{
		{3, 16, 224, 224, 3, 2, 1}, {16, 16, 112, 112, 3, 1, 1}, {32, 32, 56, 56, 3, 1, 1},
		{64, 64, 28, 28, 3, 1, 1}, {128, 128, 14, 14, 3, 1, 1}, {256, 256, 7, 7, 3, 1, 1},
		{32, 64, 56, 56, 1, 1, 1}, {128, 128, 28, 28, 1, 1, 1}, {256, 512, 14, 14, 1, 1, 1},
		{64, 128, 56, 56, 3, 2, 1}, {64, 64, 1, 400, 3, 1, 1}, {8, 8, 64, 64, 3, 1, 1},
	} {
		add("conv", fmt.Sprintf("%dto%d_%dx%d_k%ds%d", c.cin, c.cout, c.h, c.w, c.k, c.stride), c.cin*c.cout*c.h*c.w >= 1<<20,
			convChain(c.cin, c.cout, c.h, c.w, c.k, c.stride, c.group))
	}
	// Depthwise convs (one channel per group), as in MobileNets; the
	// last four on wide maps, two of them a few rows high, where most
	// kernel rows fall in the padding (text-line and audio CNNs)
	for _, c := range []struct{ ch, h, w, k, stride int64 }{
		{32, 112, 112, 3, 1}, {96, 56, 56, 3, 2}, {144, 56, 56, 3, 1}, {240, 28, 28, 5, 1}, {576, 14, 14, 3, 1}, {64, 1, 400, 3, 1},
		{192, 3, 128, 5, 1}, {64, 16, 160, 5, 1}, {128, 24, 96, 3, 1}, {48, 2, 256, 3, 1},
	} {
		add("depthwise", fmt.Sprintf("%d_%dx%d_k%ds%d", c.ch, c.h, c.w, c.k, c.stride), false, convChain(c.ch, c.ch, c.h, c.w, c.k, c.stride, c.ch))
	}
	// Elementwise chains across sizes that fit in L1, L2 and only in
	// memory.
	for _, n := range []int64{1 << 10, 1 << 14, 1 << 17, 1 << 20, 1 << 22} {
		for _, op := range []string{"Relu", "Add", "Mul", "Sigmoid", "Tanh", "Div", "Clip"} {
			if n == 1<<10 && op != "Relu" && op != "Add" {
				continue // tiny tensors: the host cost is the same for all
			}
			add("elementwise", fmt.Sprintf("%s_%d", op, n), n >= 1<<20, unaryChain(op, n))
		}
	}
	add("elementwise", "Exp_65536", false, unaryChain("Exp", 1<<16))
	add("elementwise", "Erf_65536", false, unaryChain("Erf", 1<<16))
	add("elementwise", "bcast_mul_64x3136", false, broadcastChain(64, 3136))
	// Reductions and normalizations.
	for _, r := range []struct{ rows, cols int64 }{{128, 128}, {512, 1000}, {16, 4096}, {2048, 64}} {
		add("reduction", fmt.Sprintf("Softmax_%dx%d", r.rows, r.cols), false, rowOpChain("Softmax", r.rows, r.cols))
		add("reduction", fmt.Sprintf("ReduceMean_%dx%d", r.rows, r.cols), false, rowOpChain("ReduceMean", r.rows, r.cols))
	}
	for _, r := range []struct{ rows, cols int64 }{{128, 768}, {16, 256}, {1024, 512}} {
		add("norm", fmt.Sprintf("LayerNorm_%dx%d", r.rows, r.cols), false, rowOpChain("LayerNormalization", r.rows, r.cols))
	}
	for _, c := range []struct{ ch, hw int64 }{{64, 56}, {256, 14}, {16, 112}} {
		add("norm", fmt.Sprintf("BatchNorm_%dx%d", c.ch, c.hw), false, spatialChain("BatchNormalization", c.ch, c.hw))
		add("norm", fmt.Sprintf("InstanceNorm_%dx%d", c.ch, c.hw), false, spatialChain("InstanceNormalization", c.ch, c.hw))
	}
	for _, c := range []struct{ ch, hw int64 }{{64, 112}, {256, 14}} {
		add("reduction", fmt.Sprintf("MaxPool_%dx%d", c.ch, c.hw), false, spatialChain("MaxPool", c.ch, c.hw))
		add("reduction", fmt.Sprintf("AveragePool_%dx%d", c.ch, c.hw), false, spatialChain("AveragePool", c.ch, c.hw))
		add("reduction", fmt.Sprintf("GlobalAveragePool_%dx%d", c.ch, c.hw), false, spatialChain("GlobalAveragePool", c.ch, c.hw))
	}
	// Data movement.
	for _, c := range []struct{ ch, hw int64 }{{64, 56}, {16, 28}, {256, 14}} {
		add("movement", fmt.Sprintf("Transpose_%dx%d", c.ch, c.hw), false, spatialChain("Transpose", c.ch, c.hw))
		add("movement", fmt.Sprintf("Concat_%dx%d", c.ch, c.hw), false, spatialChain("Concat", c.ch, c.hw))
		add("movement", fmt.Sprintf("Slice_%dx%d", c.ch, c.hw), false, spatialChain("Slice", c.ch, c.hw))
		add("movement", fmt.Sprintf("Resize_%dx%d", c.ch, c.hw), false, spatialChain("Resize", c.ch, c.hw))
		add("movement", fmt.Sprintf("Pad_%dx%d", c.ch, c.hw), false, spatialChain("Pad", c.ch, c.hw))
	}
	add("movement", "Gather_1000x256_64", false, gatherChain(1000, 256, 64))
	add("movement", "Cast_65536", false, castChain(1<<16))
	// Views and shape arithmetic, and chains of tiny kernels: the per-node
	// host cost of the runtime's executor.
	for _, n := range []int{8, 32, 96} {
		add("host", fmt.Sprintf("tiny_chain_%d", n), false, Chain(n, 16))
		add("view", fmt.Sprintf("reshape_chain_%d", n), false, viewChain("Reshape", n))
	}
	add("view", "identity_chain_32", false, viewChain("Identity", 32))
	add("view", "unsqueeze_chain_32", false, viewChain("Unsqueeze", 32))
	add("view", "shape_arith_8", false, shapeArith(8))
	add("host", "tiny_chain_32_w4096", false, Chain(32, 4096))
	add("host", "tiny_chain_32_w65536", false, Chain(32, 1<<16))
	// many small graph inputs (a tabular or ML-pipeline model's features,
	// a loop's trip count and condition): the cost of binding one
	for _, n := range []int{4, 16} {
		add("host", fmt.Sprintf("inputs_%d", n), false, manyInputs(n, 16))
	}
	// what a run and a node cost beyond the kernels, one thing at a time
	hostSuite(add)
	// Control flow.
	add("control", "loop_16", false, loopModel(16, 64))
	add("control", "loop_4_wide", false, loopModel(4, 1<<14))
	add("control", "if_small", false, ifModel(256))
	// more trip counts and body sizes: a body execution's fixed time
	// (subgraph_us) is pinned by several models, not one
	add("control", "loop_64_narrow", false, loopModel(64, 16))
	add("control", "loop_2", false, loopModel(2, 256))
	add("control", "if_wide", false, ifModel(1<<14))
	// Recurrent layers (speech and VAD models).
	add("rnn", "lstm_20x1x64x64", false, rnnModel("LSTM", 20, 1, 64, 64))
	add("rnn", "lstm_50x1x128x128", false, rnnModel("LSTM", 50, 1, 128, 128))
	add("rnn", "gru_20x1x64x64", false, rnnModel("GRU", 20, 1, 64, 64))
	add("rnn", "lstm_10x4x256x256", false, rnnModel("LSTM", 10, 4, 256, 256))
	add("rnn", "gru_50x1x128x128", false, rnnModel("GRU", 50, 1, 128, 128))
	add("rnn", "lstm_100x1x32x32", false, rnnModel("LSTM", 100, 1, 32, 32))
	add("rnn", "lstm_16x2x96x48", false, rnnModel("LSTM", 16, 2, 96, 48))
	// Transformer fused operators, attention, recurrent layers as speech
	// models use them.
	transformerSuite(add)
	cnnSuite(add)
	// Dynamically quantized convolutions and products (their own kernels).
	quantSuite(add)
	// The fixed cost per call of the ops small models run.
	zooSuite(add)
	// Front ends and small heads: the same ops mixed as small audio and
	// vision models run them.
	frontSuite(add)
	// Small complete models.
	add("model", "mlp_3x64", false, tinyMLP(64, 3))
	add("model", "mlp_4x512", false, tinyMLP(512, 4))
	add("model", "sample_cnn", false, fixBatch(SampleCNN(), "N", 1))
	add("model", "cnn_lenet_like", false, leNetLike())
	add("model", "transformer_1x16x64", false, Transformer(1, 1, 16, 64, 4, 256))
	add("model", "transformer_1x64x128", false, Transformer(1, 1, 64, 128, 4, 512))
	laterSuite(add)
	return s
}

// laterSuite adds the families added after the first suite, last, so
// that the every-4th hold-back of the models before them stays the same.
func laterSuite(add func(group, name string, two bool, m *ir.Model)) {
	// GEMM chains of few rows whose weights stay well inside
	// the cache (0.3 of a 2 MiB L2): the speed by rows (hw
	// gemm_half_rows) apart from where the weights start to miss.
	for _, m := range []int64{4, 12, 24} {
		add("gemm", fmt.Sprintf("%dx192x192", m), false, matmulChain(m, 192, 192))
	}
	// Recurrent layers whose weights exceed the cache: every step
	// streams the recurrence weights from memory (a speech model's
	// large LSTM), which the layers above, all in cache, do not measure.
	add("rnn", "lstm_8x1x512x512", false, rnnModel("LSTM", 8, 1, 512, 512))
	add("rnn", "gru_8x1x384x384", false, rnnModel("GRU", 8, 1, 384, 384))
	// GEMM chains of 8-64 rows whose weights (9.4 MB) are past the cache:
	// between memory- and compute-bound, where the kernel's streaming of
	// its weights does not hide behind its arithmetic (hw
	// weight_stream_stall), as a classifier or projection layer of a
	// batch-1 sequence model runs.
	for _, m := range []int64{8, 32} {
		add("gemm", fmt.Sprintf("%dx768x768", m), false, matmulChain(m, 768, 768))
	}
	for _, m := range []int64{16, 64} {
		add("gemm", fmt.Sprintf("gemm_bias_%dx768x768", m), false, gemmChain(m, 768, 768))
	}
	// GEMM chains whose weights (101 and 134 MB) are past any 2-vCPU
	// VM's share of an L3: one row streams them from DRAM (hw
	// dram_bandwidth_gbs), 16 rows add that streaming to the arithmetic
	// (hw dram_stream_stall), as a large speech or language model's
	// layers at batch 1 run. The chains the two parameters rest on sit
	// where the harness's every-4th hold-out does not take them
	// (TestDRAMChainsFitted); the 101 MB 16-row one is held back.
	// (Their weights repeat every 256 KiB: TiledWeight.)
	add("gemm", "dram_1x2512x2512", false, tiledChain(1, 2512))
	add("gemm", "dram_16x2512x2512", false, tiledChain(16, 2512))
	add("gemm", "dram_1x2896x2896", false, tiledChain(1, 2896))
	add("gemm", "dram_16x2896x2896", false, tiledChain(16, 2896))
	// After the DRAM chains, so that the hold-out positions above stay
	// where they are: the kernels ONNX Runtime runs by path (GridSample,
	// stride-1 pools, reductions at scale), a subset of opFamilies.
	opFamilies(add, false)
}

// opFamilies adds models of the kernels whose cost depends on the path
// ONNX Runtime takes (cost.gridSampleCost, poolCost, reduceCost): all of
// them when all is set (AnchorSuite: the models the simulate tests hold
// cpu-1t to), else the few the calibration suite measures (the fit needs
// one fraction each; every model costs calibrate --host time).
func opFamilies(add func(group, name string, two bool, m *ir.Model), all bool) {
	// GridSample in its three modes: a warp of a feature map onto itself
	// (optical flow, spatial transformers) and points sampled from a map
	// (keypoint descriptors, deformable heads); bilinear with
	// align_corners 1 takes ORT's generic loop, not its planned fast path
	for _, g := range []struct{ ch, hw, ho, wo int64 }{{16, 48, 48, 48}, {32, 48, 2048, 1}, {128, 16, 512, 1}, {1, 256, 1024, 1}} {
		for _, mode := range []string{"nearest", "bilinear", "bicubic"} {
			name := fmt.Sprintf("GridSample_%s_%dx%d_to_%dx%d", mode, g.ch, g.hw, g.ho, g.wo)
			if all || suiteGridSample[name] {
				add("movement", name, false, gridSampleChain(mode, g.ch, g.hw, g.ho, g.wo, false))
			}
		}
	}
	add("movement", "GridSample_bilinear_corners_3x96_to_96x96", false, gridSampleChain("bilinear", 3, 96, 96, 96, true))
	// ReduceSum and ReduceMax over rows at scale (the zoo's tiny ones
	// alone set their fixed cost, not their speed)
	for _, r := range []struct{ rows, cols int64 }{{512, 1000}, {2048, 64}} {
		if all || r.rows == 512 {
			add("reduction", fmt.Sprintf("ReduceSum_%dx%d", r.rows, r.cols), false, rowOpChain("ReduceSum", r.rows, r.cols))
		}
		if all || r.rows == 2048 {
			add("reduction", fmt.Sprintf("ReduceMax_%dx%d", r.rows, r.cols), false, rowOpChain("ReduceMax", r.rows, r.cols))
		}
	}
	// Reductions over the channel axis of a feature map (a grey image
	// from RGB, a spatial-attention map): few rows of long rows, which
	// ONNX Runtime reduces in its generic loop (cost.reduceFastKind).
	add("reduction", "ReduceSum_axis1_8x96x96", false, channelReduce("ReduceSum", 8, 96))
	add("reduction", "ReduceMean_axis1_16x64x64", false, channelReduce("ReduceMean", 16, 64))
	// Pools with stride 1 (morphology in image pipelines, a detector's
	// SPP block), which ONNX Runtime's pooling kernel runs faster per tap
	// than the strided pools above (cost: the "/s1" efficiency key).
	for _, p := range []struct {
		op        string
		ch, hw, k int64
	}{{"MaxPool", 64, 56, 3}, {"MaxPool", 32, 40, 5}, {"AveragePool", 64, 56, 3}} {
		add("reduction", fmt.Sprintf("%s_s1_%dx%d_k%d", p.op, p.ch, p.hw, p.k), false, poolS1Chain(p.op, p.ch, p.hw, p.k))
	}
	// A per-channel scale of a channels-last tensor: one span of C
	// elements per position (hw broadcast_span_us), as TF and OpenVINO
	// exports run their batch norms.
	add("elementwise", "bcast_mul_32768x3", false, lastAxisBroadcastChain(32768, 3))
	add("elementwise", "bcast_mul_8192x16", false, lastAxisBroadcastChain(8192, 16))
	if !all {
		return
	}
	// Activations on feature maps (only the tiny zoo times them in the
	// suite: their speed at scale is the anchors' to check)
	for _, op := range []string{"Relu", "LeakyRelu", "HardSigmoid", "Clip", "Sigmoid"} {
		add("elementwise", fmt.Sprintf("%s_64x80", op), false, mapChain(op, 64, 80))
	}
}

// mapChain chains repeat ops of one input over [1, ch, hw, hw] (Clip
// with neither bound).
func mapChain(op string, ch, hw int64) *ir.Model {
	b := New(fmt.Sprintf("%s_%dx%d", op, ch, hw), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(ch), int(hw), int(hw))
	for i := 0; i < repeat; i++ {
		h = b.Op(op, []*ir.Value{h})
	}
	return b.outputY(h)
}

// suiteGridSample is the GridSample models the calibration suite measures:
// each mode once, the fast path on a warp and on one channel.
var suiteGridSample = map[string]bool{
	"GridSample_bilinear_16x48_to_48x48":  true,
	"GridSample_bilinear_1x256_to_1024x1": true,
	"GridSample_nearest_128x16_to_512x1":  true,
	"GridSample_bicubic_32x48_to_2048x1":  true,
}

// AnchorSuite returns every model of opFamilies, named as in the suite:
// the models whose measured times the simulate tests hold cpu-1t to.
func AnchorSuite() []SuiteModel {
	var s []SuiteModel
	opFamilies(func(group, name string, two bool, m *ir.Model) {
		s = append(s, SuiteModel{Name: group + "_" + name, Group: group, Model: m, TwoThreads: two})
	}, true)
	return s
}

// fixBatch gives every graph input's symbolic dim name the value v.
func fixBatch(m *ir.Model, name string, v int64) *ir.Model {
	for _, in := range m.Graph.Inputs {
		for i, d := range in.Type.Shape.Dims {
			if d.Sym == name {
				in.Type.Shape.Dims[i] = ir.D(v)
			}
		}
		if in.Declared != nil {
			d := in.Type.Clone()
			in.Declared = &d
		}
	}
	return m
}

func matmulChain(m, k, n int64) *ir.Model { return matmulChainOf(m, k, n, (*Builder).Weight) }

// matmulChainOf is matmulChain with the weights weight makes.
func matmulChainOf(m, k, n int64, weight func(*Builder, string, ...int64) *ir.Value) *ir.Model {
	b := New(fmt.Sprintf("matmul_%dx%dx%d", m, k, n), suiteOpset)
	h := b.Input("x", ir.Float32, int(m), int(k))
	// alternate K x N and N x K weights so the chain keeps its shape
	for i := 0; i < repeat; i++ {
		if i%2 == 0 {
			h = b.Op("MatMul", []*ir.Value{h, weight(b, fmt.Sprintf("w%d", i), k, n)})
		} else {
			h = b.Op("MatMul", []*ir.Value{h, weight(b, fmt.Sprintf("w%d", i), n, k)})
		}
	}
	return b.outputY(h)
}

// tiledChain is matmulChain(m, k, k) with TiledWeight's weights.
func tiledChain(m, k int64) *ir.Model { return matmulChainOf(m, k, k, (*Builder).TiledWeight) }

func gemmChain(m, k, n int64) *ir.Model {
	b := New(fmt.Sprintf("gemm_%dx%dx%d", m, k, n), suiteOpset)
	h := b.Input("x", ir.Float32, int(m), int(k))
	for i := 0; i < repeat; i++ {
		h = b.Op("Gemm", []*ir.Value{h, b.Weight(fmt.Sprintf("w%d", i), k, k), b.Weight(fmt.Sprintf("b%d", i), k)}, Int("transB", 1))
	}
	return b.outputY(h)
}

// convChain chains convs that keep the shape: the first maps cin to cout
// with the given stride, the rest are cout -> cout at stride 1 (the same
// work per layer for square 3x3 stages).
func convChain(cin, cout, h, w, k, stride, group int64) *ir.Model {
	b := New(fmt.Sprintf("conv_%d_%d_%dx%d_k%d_s%d_g%d", cin, cout, h, w, k, stride, group), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(cin), int(h), int(w))
	kh, ph := k, k/2
	if h == 1 {
		kh, ph = 1, 0 // a 1-D conv over the width
	}
	layers := repeat
	if stride > 1 || cin != cout {
		layers = 1 // the shape changes: one layer carries the case
	}
	c := cin
	for i := 0; i < layers; i++ {
		g := group
		if g > 1 {
			g = c
		}
		wt := b.Weight(fmt.Sprintf("w%d", i), cout, c/g, kh, k)
		bias := b.Weight(fmt.Sprintf("b%d", i), cout)
		x = b.Op("Conv", []*ir.Value{x, wt, bias}, Ints("kernel_shape", kh, k), Ints("strides", min(stride, h), stride),
			Ints("pads", ph, k/2, ph, k/2), Int("group", g))
		c = cout
	}
	return b.outputY(x)
}

func unaryChain(op string, n int64) *ir.Model {
	b := New(fmt.Sprintf("%s_chain_%d", op, n), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(n))
	h := x
	for i := 0; i < repeat; i++ {
		switch op {
		case "Add", "Mul":
			h = b.Op(op, []*ir.Value{h, x}) // two streamed inputs, no weight on disk
		case "Div":
			h = b.Op(op, []*ir.Value{h, b.ConstF(fmt.Sprintf("d%d", i), []int64{1}, 1.5)})
		case "Clip":
			h = b.Op(op, []*ir.Value{h, b.ConstF(fmt.Sprintf("lo%d", i), nil, 0), b.ConstF(fmt.Sprintf("hi%d", i), nil, 6)})
		default:
			h = b.Op(op, []*ir.Value{h})
		}
	}
	return b.outputY(h)
}

// lastAxisBroadcastChain multiplies [1, rows, c] by a [c] scale: ONNX
// Runtime's broadcast loop makes one call per row (a span of c elements).
func lastAxisBroadcastChain(rows, c int64) *ir.Model {
	b := New(fmt.Sprintf("bcast_last_%dx%d", rows, c), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(rows), int(c))
	s := b.Weight("scale", c)
	for i := 0; i < repeat; i++ {
		h = b.Op("Mul", []*ir.Value{h, s})
	}
	return b.outputY(h)
}

// broadcastChain multiplies [1, c, hw] by a per-channel [c, 1] scale.
func broadcastChain(c, hw int64) *ir.Model {
	b := New(fmt.Sprintf("bcast_%dx%d", c, hw), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(c), int(hw))
	s := b.Weight("scale", c, 1)
	for i := 0; i < repeat; i++ {
		h = b.Op("Mul", []*ir.Value{h, s})
	}
	return b.outputY(h)
}

// rowOpChain applies op over the last axis of [rows, cols]
// (ReduceMean keeps the dim, then an Add broadcasts it back).
func rowOpChain(op string, rows, cols int64) *ir.Model {
	b := New(fmt.Sprintf("%s_%dx%d", op, rows, cols), suiteOpset)
	h := b.Input("x", ir.Float32, int(rows), int(cols))
	for i := 0; i < repeat; i++ {
		switch op {
		case "Softmax":
			h = b.Op(op, []*ir.Value{h}, Int("axis", -1))
		case "ReduceMean", "ReduceMax":
			r := b.Op(op, []*ir.Value{h}, Ints("axes", -1), Int("keepdims", 1))
			h = b.Op("Sub", []*ir.Value{h, r})
		case "ReduceSum": // axes an input from opset 13
			r := b.Op(op, []*ir.Value{h, b.ConstI(fmt.Sprintf("ax%d", i), []int64{1}, -1)}, Int("keepdims", 1))
			h = b.Op("Sub", []*ir.Value{h, r})
		case "LayerNormalization":
			h = b.Op(op, []*ir.Value{h, b.Weight(fmt.Sprintf("g%d", i), cols), b.Weight(fmt.Sprintf("b%d", i), cols)}, Int("axis", -1), Float("epsilon", 1e-5))
		}
	}
	return b.outputY(h)
}

// spatialChain applies op to [1, ch, hw, hw] feature maps.
func spatialChain(op string, ch, hw int64) *ir.Model {
	b := New(fmt.Sprintf("%s_%dx%d", op, ch, hw), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(ch), int(hw), int(hw))
	ones := func(name string) *ir.Value {
		v := make([]float32, ch)
		for i := range v {
			v[i] = 1
		}
		return b.ConstF(name, []int64{ch}, v...)
	}
	n := repeat
	switch op {
	case "MaxPool", "AveragePool", "GlobalAveragePool", "Resize", "Pad", "Concat", "Slice":
		n = 1 // the shape changes
	}
	for i := 0; i < n; i++ {
		switch op {
		case "BatchNormalization":
			h = b.Op(op, []*ir.Value{h, ones(fmt.Sprintf("s%d", i)), b.Weight(fmt.Sprintf("b%d", i), ch), b.Weight(fmt.Sprintf("m%d", i), ch), ones(fmt.Sprintf("v%d", i))}, Float("epsilon", 1e-5))
		case "InstanceNormalization":
			h = b.Op(op, []*ir.Value{h, ones(fmt.Sprintf("s%d", i)), b.Weight(fmt.Sprintf("b%d", i), ch)}, Float("epsilon", 1e-5))
		case "MaxPool", "AveragePool":
			h = b.Op(op, []*ir.Value{h}, Ints("kernel_shape", 3, 3), Ints("strides", 2, 2), Ints("pads", 1, 1, 1, 1))
		case "GlobalAveragePool":
			h = b.Op(op, []*ir.Value{h})
		case "Transpose":
			h = b.Op(op, []*ir.Value{h}, Ints("perm", 0, 2, 3, 1))
			h = b.Op(op, []*ir.Value{h}, Ints("perm", 0, 3, 1, 2))
			i++
		case "Concat":
			h = b.Op(op, []*ir.Value{h, h}, Int("axis", 1))
		case "Slice":
			h = b.Op(op, []*ir.Value{h, b.ConstI("st", []int64{2}, 1, 1), b.ConstI("en", []int64{2}, hw-1, hw-1), b.ConstI("ax", []int64{2}, 2, 3)})
		case "Resize":
			h = b.Op(op, []*ir.Value{h, b.ConstF("roi", []int64{0}), b.ConstF("scales", []int64{4}, 1, 1, 2, 2)}, Str("mode", "nearest"))
		case "Pad":
			h = b.Op(op, []*ir.Value{h, b.ConstI("pads", []int64{8}, 0, 0, 1, 1, 0, 0, 1, 1)})
		}
	}
	return b.outputY(h)
}

// channelReduce reduces [1, ch, hw, hw] over its channel axis (keepdims)
// and adds the map back: repeat times.
func channelReduce(op string, ch, hw int64) *ir.Model {
	b := New(fmt.Sprintf("%s_axis1_%dx%dx%d", op, ch, hw, hw), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(ch), int(hw), int(hw))
	for i := 0; i < repeat; i++ {
		var r *ir.Value
		if op == "ReduceSum" { // axes an input from opset 13
			r = b.Op(op, []*ir.Value{h, b.ConstI(fmt.Sprintf("ax%d", i), []int64{1}, 1)}, Int("keepdims", 1))
		} else {
			r = b.Op(op, []*ir.Value{h}, Ints("axes", 1), Int("keepdims", 1))
		}
		h = b.Op("Add", []*ir.Value{h, r})
	}
	return b.outputY(h)
}

// poolS1Chain chains repeat pools of a k x k window, stride 1, padded to
// keep [1, ch, hw, hw].
func poolS1Chain(op string, ch, hw, k int64) *ir.Model {
	b := New(fmt.Sprintf("%s_s1_%dx%d_k%d", op, ch, hw, k), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(ch), int(hw), int(hw))
	p := (k - 1) / 2
	for i := 0; i < repeat; i++ {
		h = b.Op(op, []*ir.Value{h}, Ints("kernel_shape", k, k), Ints("strides", 1, 1), Ints("pads", p, p, p, p))
	}
	return b.outputY(h)
}

// gridSampleChain samples [1, ch, hw, hw] at a fixed grid of ho x wo
// points spread over the map (zero padding, align_corners 0 unless
// corners): repeat times when the output is the map's own size (a warp),
// once otherwise.
func gridSampleChain(mode string, ch, hw, ho, wo int64, corners bool) *ir.Model {
	b := New(fmt.Sprintf("gridsample_%s_%dx%d_%dx%d", mode, ch, hw, ho, wo), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(ch), int(hw), int(hw))
	grid := make([]float32, 2*ho*wo)
	for i := int64(0); i < ho*wo; i++ {
		// a low-discrepancy spread over [-1, 1]^2 (golden-ratio steps),
		// so points are neither sorted nor on the pixel centres
		grid[2*i] = float32(2*math.Mod(float64(i)*0.6180339887, 1) - 1)
		grid[2*i+1] = float32(2*math.Mod(float64(i)*0.7548776662+0.5, 1) - 1)
	}
	g := b.ConstF("grid", []int64{1, ho, wo, 2}, grid...)
	n := 1
	if ho == hw && wo == hw {
		n = repeat
	}
	for i := 0; i < n; i++ {
		ac := int64(0)
		if corners {
			ac = 1
		}
		h = b.Op("GridSample", []*ir.Value{h, g}, Str("mode", mode), Str("padding_mode", "zeros"), Int("align_corners", ac))
	}
	return b.outputY(h)
}

func gatherChain(rows, cols, idx int64) *ir.Model {
	b := New(fmt.Sprintf("gather_%dx%d_%d", rows, cols, idx), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(cols))
	table := b.Weight("table", rows, cols)
	ids := make([]int64, idx)
	for i := range ids {
		ids[i] = (int64(i) * 37) % rows
	}
	ix := b.ConstI("ids", []int64{idx}, ids...)
	h := x
	for i := 0; i < repeat; i++ {
		g := b.Op("Gather", []*ir.Value{table, ix}, Int("axis", 0))
		h = b.Op("Add", []*ir.Value{h, b.Op("ReduceSum", []*ir.Value{g, b.ConstI(fmt.Sprintf("ax%d", i), []int64{1}, 0)}, Int("keepdims", 1))})
	}
	return b.outputY(h)
}

func castChain(n int64) *ir.Model {
	b := New(fmt.Sprintf("cast_%d", n), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(n))
	for i := 0; i < repeat; i++ {
		to := int64(ir.Float64)
		if i%2 == 1 {
			to = int64(ir.Float32)
		}
		// a computing op between casts: ONNX Runtime drops back-to-back
		// casts even with graph optimizations disabled
		h = b.Op("Relu", []*ir.Value{b.Op("Cast", []*ir.Value{h}, Int("to", to))})
	}
	return b.outputY(h)
}

// viewChain is n views over a small tensor, closed by one Relu so the
// output is a computed value.
func viewChain(op string, n int) *ir.Model {
	b := New(fmt.Sprintf("%s_chain_%d", op, n), suiteOpset)
	h := b.Input("x", ir.Float32, 4, 64)
	shapes := [][]int64{{16, 16}, {4, 64}}
	for i := 0; i < n; i++ {
		switch op {
		case "Reshape":
			s := shapes[i%2]
			h = b.Op(op, []*ir.Value{h, b.ConstI(fmt.Sprintf("s%d", i), []int64{2}, s...)})
		case "Unsqueeze":
			h = b.Op(op, []*ir.Value{h, b.ConstI(fmt.Sprintf("a%d", i), []int64{1}, 0)})
			h = b.Op("Squeeze", []*ir.Value{h, b.ConstI(fmt.Sprintf("q%d", i), []int64{1}, 0)})
			i++
		default:
			h = b.Op(op, []*ir.Value{h})
		}
	}
	h = b.Op("Relu", []*ir.Value{h})
	return b.outputY(h)
}

// shapeArith is the Shape -> Gather -> Unsqueeze -> Concat -> Reshape
// pattern exporters write, n times over.
func shapeArith(n int) *ir.Model {
	b := New(fmt.Sprintf("shape_arith_%d", n), suiteOpset)
	h := b.Input("x", ir.Float32, 2, 8, 16)
	for i := 0; i < n; i++ {
		s := b.Op("Shape", []*ir.Value{h})
		d0 := b.Op("Gather", []*ir.Value{s, b.ConstI(fmt.Sprintf("i%d", i), nil, 0)}, Int("axis", 0))
		u := b.Op("Unsqueeze", []*ir.Value{d0, b.ConstI(fmt.Sprintf("a%d", i), []int64{1}, 0)})
		shp := b.Op("Concat", []*ir.Value{u, b.ConstI(fmt.Sprintf("r%d", i), []int64{2}, 8, 16)}, Int("axis", 0))
		h = b.Op("Reshape", []*ir.Value{h, shp})
	}
	h = b.Op("Relu", []*ir.Value{h})
	return b.outputY(h)
}

// manyInputs sums n graph inputs of [1, width] in one Sum node.
func manyInputs(n int, width int64) *ir.Model {
	b := New(fmt.Sprintf("inputs_%d", n), suiteOpset)
	ins := make([]*ir.Value, n)
	for i := range ins {
		ins[i] = b.Input(fmt.Sprintf("x%d", i), ir.Float32, 1, int(width))
	}
	return b.outputY(b.Op("Sum", ins))
}

// loopModel runs a body of three small kernels trip times.
func loopModel(trip int64, width int64) *ir.Model {
	b := New(fmt.Sprintf("loop_%d_%d", trip, width), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(width))
	body := ir.NewGraph("body")
	iter := body.AddInput("iter", ir.TensorType(ir.Int64, ir.Shape{Known: true}))
	cond := body.AddInput("cond", ir.TensorType(ir.Bool, ir.Shape{Known: true}))
	acc := body.AddInput("acc", ir.TensorType(ir.Float32, shapeOf(1, int(width))))
	_ = iter
	w := b.Weight("w", 1, width)
	n1 := body.AddNode("Mul", "", "body_mul", []*ir.Value{acc, w}, []string{"m"})
	n2 := body.AddNode("Tanh", "", "body_tanh", []*ir.Value{n1.Outputs[0]}, []string{"t"})
	n3 := body.AddNode("Identity", "", "body_cond", []*ir.Value{cond}, []string{"cond_out"})
	n4 := body.AddNode("Add", "", "body_add", []*ir.Value{n2.Outputs[0], acc}, []string{"acc_out"})
	body.Outputs = []*ir.Value{n3.Outputs[0], n4.Outputs[0]}
	tripV := b.ConstI("trip", nil, trip)
	condV := b.G.AddInitializer(&ir.Tensor{Name: "cond0", DType: ir.Bool, Raw: []byte{1}})
	out := b.G.AddNode("Loop", "", "loop", []*ir.Value{tripV, condV, x}, []string{"y"}, &ir.Attr{Name: "body", Type: ir.AttrGraph, G: body})
	b.Output(out.Outputs[0])
	return b.Model()
}

// ifModel branches on a constant condition between two small bodies.
func ifModel(width int64) *ir.Model {
	b := New(fmt.Sprintf("if_%d", width), suiteOpset)
	x := b.Input("x", ir.Float32, 1, int(width))
	branch := func(name, op string) *ir.Graph {
		g := ir.NewGraph(name)
		n := g.AddNode(op, "", name+"_op", []*ir.Value{x}, []string{name + "_y"})
		g.Outputs = []*ir.Value{n.Outputs[0]}
		return g
	}
	h := b.Op("Relu", []*ir.Value{x})
	cond := b.G.AddInitializer(&ir.Tensor{Name: "cond", DType: ir.Bool, Raw: []byte{1}})
	out := b.G.AddNode("If", "", "if", []*ir.Value{cond}, []string{"branch_out"},
		&ir.Attr{Name: "then_branch", Type: ir.AttrGraph, G: branch("then", "Sigmoid")},
		&ir.Attr{Name: "else_branch", Type: ir.AttrGraph, G: branch("else", "Tanh")})
	y := b.Op("Add", []*ir.Value{out.Outputs[0], h})
	return b.outputY(y)
}

// rnnModel is one ONNX LSTM or GRU layer over [seq, batch, input].
func rnnModel(op string, seq, batch, input, hidden int64) *ir.Model {
	b := New(fmt.Sprintf("%s_%dx%dx%dx%d", op, seq, batch, input, hidden), suiteOpset)
	x := b.Input("x", ir.Float32, int(seq), int(batch), int(input))
	gates := int64(4)
	if op == "GRU" {
		gates = 3
	}
	w := b.Weight("W", 1, gates*hidden, input)
	r := b.Weight("R", 1, gates*hidden, hidden)
	bias := b.Weight("B", 1, 2*gates*hidden)
	outs := b.OpN(op, 2, []*ir.Value{x, w, r, bias}, Int("hidden_size", hidden))
	outs[1].Name = "y_h"
	b.Output(outs[1])
	return b.Model()
}

// tinyMLP is layers x (Gemm + Relu) over [1, width]: a wake-word-sized
// classifier.
func tinyMLP(width int64, layers int) *ir.Model {
	b := New(fmt.Sprintf("mlp_%dx%d", layers, width), suiteOpset)
	h := b.Input("x", ir.Float32, 1, int(width))
	for i := 0; i < layers; i++ {
		h = b.Op("Gemm", []*ir.Value{h, b.Weight(fmt.Sprintf("w%d", i), width, width), b.Weight(fmt.Sprintf("b%d", i), width)}, Int("transB", 1))
		if i < layers-1 {
			h = b.Op("Relu", []*ir.Value{h})
		}
	}
	h = b.Op("Softmax", []*ir.Value{h}, Int("axis", -1))
	return b.outputY(h)
}

// leNetLike is a LeNet-style classifier over 1x1x36x36 (6 and 12
// channels: not the shared MNIST models' 28x28, 8 and 16).
func leNetLike() *ir.Model {
	b := New("lenet_like", suiteOpset)
	x := b.Input("x", ir.Float32, 1, 1, 36, 36)
	conv := func(in *ir.Value, cin, cout int64) *ir.Value {
		i := b.count["Conv"]
		return b.Op("Conv", []*ir.Value{in, b.Weight(fmt.Sprintf("cw%d", i), cout, cin, 5, 5), b.Weight(fmt.Sprintf("cb%d", i), cout)},
			Ints("kernel_shape", 5, 5), Ints("pads", 2, 2, 2, 2))
	}
	pool := func(in *ir.Value) *ir.Value {
		return b.Op("MaxPool", []*ir.Value{in}, Ints("kernel_shape", 2, 2), Ints("strides", 2, 2))
	}
	h := pool(b.Op("Relu", []*ir.Value{conv(x, 1, 6)}))
	h = pool(b.Op("Relu", []*ir.Value{conv(h, 6, 12)}))
	h = b.Op("Reshape", []*ir.Value{h, b.ConstI("flat", []int64{2}, 1, 972)})
	h = b.Op("MatMul", []*ir.Value{h, b.Weight("fc", 972, 10)})
	h = b.Op("Add", []*ir.Value{h, b.Weight("fcb", 10)})
	return b.outputY(h)
}
