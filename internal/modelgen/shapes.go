package modelgen

// This file holds the benchmark shape family: generators of graphs of
// about any node count in the shapes real models take (issue 25), so
// that speed claims rest on more than one graph. Each builds blocks until
// the model holds at least the nodes asked for (subgraph nodes counted),
// with small tensors (hidden sizes 4-16) so that a million-node model
// stays a few hundred MB, and distinct weights per block where real
// models have them (what the batching passes and the name generators
// see). The batch dimension is the symbolic "batch" where the shape
// allows it (--dim batch=8 binds it).

import (
	"fmt"
	"math"
	"sort"

	"github.com/wolong-dev/wolong/ir"
)

// Shape is one generator of the family.
type Shape struct {
	Name string
	Doc  string
	// Build returns a model of at least nodes nodes (at most one block
	// more), for nodes >= 1.
	Build func(nodes int) *ir.Model
}

// Shapes returns the family, in a fixed order.
func Shapes() []Shape {
	return []Shape{
		{"elementwise", "chain of unary and binary elementwise ops over [batch, 64] (Relu, Add, Mul, Sigmoid, Tanh, Sub)", Elementwise},
		{"matmul", "MatMul+Add+Relu chain over [batch, 64], one shared weight, a Sigmoid/Mul side branch every fourth block (modelgen.Wide, testdata/gen -wide)", Wide},
		{"fanout", "parallel branches of 5 x (MatMul by a distinct 8x8 weight, Relu) from one input, 256-511 per Concat, the Concats summed by Add", FanOut},
		{"concat", "parallel branches of 2 x (MatMul by a distinct 8x8 weight, Relu) from one input, all joined by one Concat: one node of nodes/4 inputs", WideConcat},
		{"encoder", "BERT-style encoder layers in primitive ops over [batch, 8, 16], distinct weights per layer: Q/K/V MatMuls, Softmax attention, decomposed LayerNorm, erf-GELU MLP (2 heads, FF 64)", Encoder},
		{"decoder", "decoder blocks as torch exporters write them: RMSNorm in primitive ops, GQA attention (4 query, 2 key/value heads, Expand+Reshape), rotary embedding (Slice/Neg/Concat), causal mask, SiLU-gated MLP (hidden 16, seq 8)", DecoderBlocks},
		{"cnn", "ResNet basic blocks over [batch, 4, 8, 8]: Conv/BatchNorm/Relu, residual Add, a MaxPool every fourth block, distinct weights", CNN},
		{"rnn", "unrolled recurrent layers over 32 steps, alternating LSTM and GRU cells in primitive ops (hidden 8), distinct weights per layer", RNN},
		{"heads", "a MatMul+Relu trunk over [batch, 16] with a head (MatMul by a distinct 16x4 weight, Sigmoid) after every trunk block, each head a graph output: one output per 4 nodes, as multi-task and detection exports and debug exports of every intermediate have", Heads},
		{"control", "chain of blocks each an If (two 2-node branches on a graph input flag) and a Loop (trip 2, a 3-node body), weights captured from the main graph", Control},
	}
}

// ShapeByName returns the shape of that name.
func ShapeByName(name string) (Shape, error) {
	var names []string
	for _, s := range Shapes() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	sort.Strings(names)
	return Shape{}, fmt.Errorf("unknown shape %q (known: %v)", name, names)
}

// CountNodes returns the nodes of m at any depth.
func CountNodes(m *ir.Model) int {
	n := 0
	m.Graph.Walk(func(g *ir.Graph) bool {
		n += len(g.Nodes)
		return true
	})
	return n
}

// Elementwise is a chain of elementwise ops over [batch, 64] of about
// nodes nodes.
func Elementwise(nodes int) *ir.Model {
	b := New(fmt.Sprintf("elementwise_%d", nodes), 17)
	h := b.Input("x", ir.Float32, "batch", 64)
	c := b.Weight("c", 64)
	ops := []string{"Relu", "Add", "Mul", "Sigmoid", "Tanh", "Sub"}
	for i := 0; len(b.G.Nodes) < nodes; i++ {
		switch op := ops[i%len(ops)]; op {
		case "Add", "Mul", "Sub":
			h = b.Op(op, []*ir.Value{h, c})
		default:
			h = b.Op(op, []*ir.Value{h})
		}
	}
	return b.outputY(h)
}

// FanOut is branches of depth 10 from one input [batch, 8], each
// 5 x (MatMul by its own 8x8 weight, Relu), joined 256 to 511 at a time
// by a Concat on the last axis; the Concats are summed by a chain of Adds.
func FanOut(nodes int) *ir.Model {
	b := New(fmt.Sprintf("fanout_%d", nodes), 17)
	x := b.Input("x", ir.Float32, "batch", 8)
	branches := max(1, (nodes+9)/10)
	groups := max(1, branches/256)
	per := (branches + groups - 1) / groups // 256 to 511: Concats of one width
	var sum *ir.Value
	for g := 0; g < groups; g++ {
		outs := make([]*ir.Value, per)
		for i := range outs {
			h := x
			for d := 0; d < 5; d++ {
				w := b.Weight(fmt.Sprintf("branch%d_%d.w%d", g, i, d), 8, 8)
				h = b.Op("Relu", []*ir.Value{b.Op("MatMul", []*ir.Value{h, w})})
			}
			outs[i] = h
		}
		cat := b.Op("Concat", outs, Int("axis", -1))
		if sum == nil {
			sum = cat
		} else {
			sum = b.Op("Add", []*ir.Value{sum, cat})
		}
	}
	return b.outputY(sum)
}

// WideConcat is branches of depth 2 from one input [batch, 8], each
// 2 x (MatMul by its own 8x8 weight, Relu), all joined by one Concat on
// the last axis: a node of about nodes/4 inputs, where per-input work that
// scans the inputs already seen is quadratic.
func WideConcat(nodes int) *ir.Model {
	b := New(fmt.Sprintf("concat_%d", nodes), 17)
	x := b.Input("x", ir.Float32, "batch", 8)
	outs := make([]*ir.Value, max(1, (nodes-1+3)/4))
	for i := range outs {
		h := x
		for d := 0; d < 2; d++ {
			w := b.Weight(fmt.Sprintf("branch%d.w%d", i, d), 8, 8)
			h = b.Op("Relu", []*ir.Value{b.Op("MatMul", []*ir.Value{h, w})})
		}
		outs[i] = h
	}
	return b.outputY(b.Op("Concat", outs, Int("axis", -1)))
}

// Heads is a trunk of MatMul (a distinct 16x16 weight) + Relu blocks over
// [batch, 16], each block followed by a head, MatMul by a distinct 16x4
// weight then Sigmoid, that is a graph output (head0, head1, ...; the last
// trunk value is y): about nodes/4 graph outputs.
func Heads(nodes int) *ir.Model {
	b := New(fmt.Sprintf("heads_%d", nodes), 17)
	h := b.Input("x", ir.Float32, "batch", 16)
	for i := 0; len(b.G.Nodes) < nodes; i++ {
		w := b.Weight(fmt.Sprintf("trunk%d.w", i), 16, 16)
		h = b.Op("Relu", []*ir.Value{b.Op("MatMul", []*ir.Value{h, w})})
		hw := b.Weight(fmt.Sprintf("head%d.w", i), 16, 4)
		o := b.Op("Sigmoid", []*ir.Value{b.Op("MatMul", []*ir.Value{h, hw})})
		o.Name = fmt.Sprintf("head%d", i)
		b.Output(o)
	}
	return b.outputY(h)
}

// Encoder is a chain of BERT-style post-LN encoder layers over
// [batch, 8, 16] written as Transformer writes them (primitive ops: Q/K/V
// MatMul+Add, Reshape/Transpose into 2 heads, MatMul-Div-Softmax-MatMul,
// LayerNorm as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add, erf
// GELU, FF width 64), each layer its own weights, with a symbolic batch
// (Reshape by 0 copies it).
func Encoder(nodes int) *ir.Model {
	const S, D, H, F = 8, 16, 2, 64
	b := New(fmt.Sprintf("encoder_%d", nodes), 17)
	x := b.Input("x", ir.Float32, "batch", S, D)
	eps, two := b.ConstF("ln_eps", nil, 1e-5), b.ConstF("two", nil, 2)
	scale := b.ConstF("attn_scale", nil, float32(math.Sqrt(D/H)))
	sqrt2, one, half := b.ConstF("sqrt2", nil, float32(math.Sqrt2)), b.ConstF("one_f", nil, 1), b.ConstF("half", nil, 0.5)
	toHeads, fromHeads := b.ConstI("to_heads", []int64{4}, 0, S, H, D/H), b.ConstI("from_heads", []int64{3}, 0, S, D)
	layerNorm := func(in *ir.Value, name string) *ir.Value {
		d := b.Op("Sub", []*ir.Value{in, b.Op("ReduceMean", []*ir.Value{in}, Ints("axes", -1))})
		v := b.Op("ReduceMean", []*ir.Value{b.Op("Pow", []*ir.Value{d, two})}, Ints("axes", -1))
		n := b.Op("Div", []*ir.Value{d, b.Op("Sqrt", []*ir.Value{b.Op("Add", []*ir.Value{v, eps})})})
		return b.Op("Add", []*ir.Value{b.Op("Mul", []*ir.Value{n, b.Weight(name+".gamma", D)}), b.Weight(name+".beta", D)})
	}
	linear := func(in *ir.Value, name string, din, dout int64) *ir.Value {
		return b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{in, b.Weight(name+".weight", din, dout)}), b.Weight(name+".bias", dout)})
	}
	split := func(t *ir.Value, perm ...int64) *ir.Value {
		return b.Op("Transpose", []*ir.Value{b.Op("Reshape", []*ir.Value{t, toHeads})}, Ints("perm", perm...))
	}
	for l := 0; len(b.G.Nodes) < nodes; l++ {
		p := fmt.Sprintf("layer%d", l)
		q, k, v := split(linear(x, p+".q", D, D), 0, 2, 1, 3), split(linear(x, p+".k", D, D), 0, 2, 3, 1), split(linear(x, p+".v", D, D), 0, 2, 1, 3)
		s := b.Op("Div", []*ir.Value{b.Op("MatMul", []*ir.Value{q, k}), scale})
		a := b.Op("MatMul", []*ir.Value{b.Op("Softmax", []*ir.Value{s}, Int("axis", -1)), v})
		a = b.Op("Reshape", []*ir.Value{b.Op("Transpose", []*ir.Value{a}, Ints("perm", 0, 2, 1, 3)), fromHeads})
		x = layerNorm(b.Op("Add", []*ir.Value{x, linear(a, p+".out", D, D)}), p+".ln1")
		f := linear(x, p+".ff1", D, F)
		e := b.Op("Add", []*ir.Value{b.Op("Erf", []*ir.Value{b.Op("Div", []*ir.Value{f, sqrt2})}), one})
		f = b.Op("Mul", []*ir.Value{b.Op("Mul", []*ir.Value{f, e}), half})
		x = layerNorm(b.Op("Add", []*ir.Value{x, linear(f, p+".ff2", F, D)}), p+".ln2")
	}
	return b.outputY(x)
}

// DecoderBlocks is a chain of decoder blocks over [batch, 8, 16] as torch's
// exporters write a Llama-style model without fused ops: RMSNorm as
// Pow/ReduceMean/Add/Sqrt/Div/Mul, grouped-query attention (4 query heads,
// 2 key/value heads of 4 repeated by Unsqueeze/Expand/Reshape), rotary
// embedding by rotate-half (Slice/Neg/Concat, Mul by cos and sin), an
// additive causal mask, and a SiLU-gated MLP (x·sigmoid(x)) of width 32.
func DecoderBlocks(nodes int) *ir.Model {
	const S, D, H, KV, dh, F = 8, 16, 4, 2, 4, 32
	b := New(fmt.Sprintf("decoder_%d", nodes), 17)
	x := b.Input("x", ir.Float32, "batch", S, D)
	c := newDecoderShared(b, S, dh, H, KV)
	for l := 0; len(b.G.Nodes) < nodes; l++ {
		p := fmt.Sprintf("layers.%d", l)
		n := rmsNorm(b, x, p+".input_layernorm", D, c)
		q := heads(b, b.Op("MatMul", []*ir.Value{n, b.Weight(p+".q_proj.weight", D, H*dh)}), b.ConstI(p+".q_shape", []int64{4}, 0, S, H, dh))
		k := heads(b, b.Op("MatMul", []*ir.Value{n, b.Weight(p+".k_proj.weight", D, KV*dh)}), b.ConstI(p+".k_shape", []int64{4}, 0, S, KV, dh))
		v := heads(b, b.Op("MatMul", []*ir.Value{n, b.Weight(p+".v_proj.weight", D, KV*dh)}), b.ConstI(p+".v_shape", []int64{4}, 0, S, KV, dh))
		q, k = rotary(b, q, c), rotary(b, k, c)
		k, v = repeatKV(b, k, c), repeatKV(b, v, c)
		s := b.Op("Mul", []*ir.Value{b.Op("MatMul", []*ir.Value{q, b.Op("Transpose", []*ir.Value{k}, Ints("perm", 0, 1, 3, 2))}), c.scale})
		a := b.Op("MatMul", []*ir.Value{b.Op("Softmax", []*ir.Value{b.Op("Add", []*ir.Value{s, c.mask})}, Int("axis", -1)), v})
		a = b.Op("Reshape", []*ir.Value{b.Op("Transpose", []*ir.Value{a}, Ints("perm", 0, 2, 1, 3)), c.merge})
		x = b.Op("Add", []*ir.Value{x, b.Op("MatMul", []*ir.Value{a, b.Weight(p+".o_proj.weight", H*dh, D)})})
		n = rmsNorm(b, x, p+".post_attention_layernorm", D, c)
		g := b.Op("MatMul", []*ir.Value{n, b.Weight(p+".gate_proj.weight", D, F)})
		u := b.Op("MatMul", []*ir.Value{n, b.Weight(p+".up_proj.weight", D, F)})
		g = b.Op("Mul", []*ir.Value{b.Op("Mul", []*ir.Value{g, b.Op("Sigmoid", []*ir.Value{g})}), u})
		x = b.Op("Add", []*ir.Value{x, b.Op("MatMul", []*ir.Value{g, b.Weight(p+".down_proj.weight", F, D)})})
	}
	return b.outputY(x)
}

// decoderShared holds the constants every decoder block shares.
type decoderShared struct {
	two, eps, one, scale, mask, cos, sin, half, dh, zero, axis2, expand, repShape, merge *ir.Value
}

func newDecoderShared(b *Builder, S, dh, H, KV int64) decoderShared {
	cos, sin := make([]float32, S*dh), make([]float32, S*dh)
	for p := int64(0); p < S; p++ {
		for i := int64(0); i < dh; i++ {
			f := float64(p) / math.Pow(10000, float64(2*(i%(dh/2)))/float64(dh))
			cos[p*dh+i], sin[p*dh+i] = float32(math.Cos(f)), float32(math.Sin(f))
		}
	}
	mask := make([]float32, S*S)
	for i := int64(0); i < S; i++ {
		for j := i + 1; j < S; j++ {
			mask[i*S+j] = float32(math.Inf(-1))
		}
	}
	return decoderShared{
		two: b.ConstF("two", nil, 2), eps: b.ConstF("rms_eps", nil, 1e-6), one: b.ConstF("one", nil, 1),
		scale: b.ConstF("attn_scale", nil, float32(1/math.Sqrt(float64(dh)))),
		mask:  b.ConstF("causal_mask", []int64{S, S}, mask...),
		cos:   b.ConstF("rope_cos", []int64{S, dh}, cos...), sin: b.ConstF("rope_sin", []int64{S, dh}, sin...),
		half: b.ConstI("rope_half", []int64{1}, dh/2), dh: b.ConstI("rope_end", []int64{1}, dh),
		zero: b.ConstI("rope_start", []int64{1}, 0), axis2: b.ConstI("axis2", []int64{1}, 2),
		expand:   b.ConstI("kv_expand", []int64{5}, 1, 1, H/KV, 1, 1),
		repShape: b.ConstI("kv_repeated", []int64{4}, 0, H, S, dh),
		merge:    b.ConstI("attn_merge", []int64{3}, 0, S, H*dh),
	}
}

// rmsNorm is x / sqrt(mean(x^2) + eps) * weight.
func rmsNorm(b *Builder, x *ir.Value, name string, d int64, c decoderShared) *ir.Value {
	ms := b.Op("ReduceMean", []*ir.Value{b.Op("Pow", []*ir.Value{x, c.two})}, Ints("axes", -1))
	r := b.Op("Div", []*ir.Value{c.one, b.Op("Sqrt", []*ir.Value{b.Op("Add", []*ir.Value{ms, c.eps})})})
	return b.Op("Mul", []*ir.Value{b.Weight(name+".weight", d), b.Op("Mul", []*ir.Value{x, r})})
}

// heads reshapes [B, S, h*dh] to [B, h, S, dh].
func heads(b *Builder, t, shape *ir.Value) *ir.Value {
	return b.Op("Transpose", []*ir.Value{b.Op("Reshape", []*ir.Value{t, shape})}, Ints("perm", 0, 2, 1, 3))
}

// rotary is t·cos + rotate_half(t)·sin on [B, h, S, dh].
func rotary(b *Builder, t *ir.Value, c decoderShared) *ir.Value {
	axis := b.ConstI(fmt.Sprintf("rope_axis_%d", b.count["Slice"]), []int64{1}, -1)
	x1 := b.Op("Slice", []*ir.Value{t, c.zero, c.half, axis})
	x2 := b.Op("Slice", []*ir.Value{t, c.half, c.dh, axis})
	rot := b.Op("Concat", []*ir.Value{b.Op("Neg", []*ir.Value{x2}), x1}, Int("axis", -1))
	return b.Op("Add", []*ir.Value{b.Op("Mul", []*ir.Value{t, c.cos}), b.Op("Mul", []*ir.Value{rot, c.sin})})
}

// repeatKV repeats [B, kv, S, dh] to [B, h, S, dh] as transformers'
// repeat_kv exports: Unsqueeze, Expand, Reshape.
func repeatKV(b *Builder, t *ir.Value, c decoderShared) *ir.Value {
	e := b.Op("Expand", []*ir.Value{b.Op("Unsqueeze", []*ir.Value{t, c.axis2}), c.expand})
	return b.Op("Reshape", []*ir.Value{e, c.repShape})
}

// CNN is a chain of ResNet basic blocks over [batch, 4, 8, 8] (3x3
// Conv, BatchNorm, Relu, 3x3 Conv, BatchNorm, residual Add, Relu), a
// 3x3 MaxPool of stride 1 after every fourth block, each Conv and
// BatchNorm with its own weights.
func CNN(nodes int) *ir.Model {
	const C = 4
	b := New(fmt.Sprintf("cnn_%d", nodes), 17)
	h := b.Input("x", ir.Float32, "batch", C, 8, 8)
	for i := 0; len(b.G.Nodes) < nodes; i++ {
		y := b.Op("Relu", []*ir.Value{b.batchNorm(b.conv(h, C, C, 3, 1, false), C)})
		y = b.batchNorm(b.conv(y, C, C, 3, 1, false), C)
		h = b.Op("Relu", []*ir.Value{b.Op("Add", []*ir.Value{y, h})})
		if i%4 == 3 {
			h = b.Op("MaxPool", []*ir.Value{h}, Ints("kernel_shape", 3, 3), Ints("pads", 1, 1, 1, 1))
		}
	}
	return b.outputY(h)
}
