package modelgen

// This file builds models whose work sits in If/Loop/Scan bodies, in the
// shapes exporters write: weights as initializers of the main graph that
// the bodies capture from the outer scope, conditions computed from inputs
// or shapes, recurrences as a Loop over time or a Scan.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// Body returns a builder for a new subgraph named name whose nodes and
// weights are named in b's sequence (names stay unique in the model).
// Its Input adds a formal input of the body.
func (b *Builder) Body(name string) *Builder {
	return &Builder{M: b.M, G: ir.NewGraph(name), Seed: b.Seed, count: b.count}
}

// Control adds an If/Loop/Scan node with n outputs whose GRAPH attributes
// are bodies (attribute name, body), setting each body's parent links.
func (b *Builder) Control(op string, n int, inputs []*ir.Value, attrs []*ir.Attr, bodies ...any) []*ir.Value {
	var gs []*ir.Graph
	for i := 0; i+1 < len(bodies); i += 2 {
		g := bodies[i+1].(*Builder).G
		attrs = append(attrs, &ir.Attr{Name: bodies[i].(string), Type: ir.AttrGraph, G: g})
		gs = append(gs, g)
	}
	outs := b.addNode("", op, n, false, inputs, attrs)
	node := outs[0].Producer
	for _, g := range gs {
		g.Parent, g.ParentNode = b.G, node
	}
	return outs
}

func vs(v ...*ir.Value) []*ir.Value { return v }

// finish infers the model's types and returns it.
func (b *Builder) finish() *ir.Model {
	ir.InferModel(b.M, ir.InferOptions{})
	return b.M
}

// WakeWordIf is a keyword-spotting classifier whose If branch holds most
// of the model: input mel [1,1,40,frames] and a bool "enabled"; the then
// branch runs a conv stack (Conv+BatchNorm+Relu blocks, global pooling,
// Gemm, Softmax) over weights the main graph holds, the else branch
// returns a constant "no keyword" distribution.
func WakeWordIf(frames int, channels int64) *ir.Model {
	b := New("wakeword_if", 17)
	x := b.Input("mel", ir.Float32, 1, 1, 40, frames)
	en := b.Input("enabled", ir.Bool)
	th := b.Body("then_branch")
	h := x
	cin := int64(1)
	for blk := 0; blk < 3; blk++ {
		w := b.Weight(fmt.Sprintf("conv%d.weight", blk), channels, cin, 3, 3)
		bias := b.Weight(fmt.Sprintf("conv%d.bias", blk), channels)
		h = th.Op("Conv", vs(h, w, bias), Ints("pads", 1, 1, 1, 1))
		sc, sh := b.Weight(fmt.Sprintf("bn%d.scale", blk), channels), b.Weight(fmt.Sprintf("bn%d.shift", blk), channels)
		mean, vr := b.ConstF(fmt.Sprintf("bn%d.mean", blk), []int64{channels}, filled(channels, 0.1)...), b.ConstF(fmt.Sprintf("bn%d.var", blk), []int64{channels}, filled(channels, 1.5)...)
		h = th.Op("BatchNormalization", vs(h, sc, sh, mean, vr))
		h = th.Op("Relu", vs(h))
		cin = channels
	}
	h = th.Op("GlobalAveragePool", vs(h))
	h = th.Op("Flatten", vs(h), Int("axis", 1))
	h = th.Op("Gemm", vs(h, b.Weight("fc.weight", 2, channels), b.Weight("fc.bias", 2)), Int("transB", 1))
	th.Output(th.Op("Softmax", vs(h), Int("axis", 1)))
	el := b.Body("else_branch")
	el.Output(el.Op("Identity", vs(b.ConstF("no_keyword", []int64{1, 2}, 1, 0))))
	b.Output(b.Control("If", 1, vs(en), nil, "then_branch", th, "else_branch", el)...)
	return b.finish()
}

func filled(n int64, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// VADSampleRate is a voice-activity detector that picks its front end by
// sample rate, as Silero's exports do: If(sr == 16000) runs a stride-4
// Conv1d stack, else a stride-2 one, both into a shared head. With
// constSR > 0 the rate is an initializer (the If folds); else "sr" is an
// int64 input.
func VADSampleRate(samples int, constSR int64) *ir.Model {
	b := New("vad_sr_if", 17)
	x := b.Input("audio", ir.Float32, 1, samples)
	var sr *ir.Value
	if constSR > 0 {
		sr = b.ConstI("sr", []int64{}, constSR)
	} else {
		sr = b.Input("sr", ir.Int64)
	}
	cond := b.Op("Equal", vs(sr, b.ConstI("sr16k", []int64{}, 16000)))
	x3 := b.Op("Unsqueeze", vs(x, b.ConstI("ax1", []int64{1}, 1)))
	headW := b.Weight("head.weight", 16, 1)
	front := func(name string, stride int64) *Builder {
		br := b.Body(name)
		h := br.Op("Conv", vs(x3, b.Weight(name+".c1.weight", 16, 1, 8), b.Weight(name+".c1.bias", 16)), Ints("strides", stride))
		h = br.Op("Relu", vs(h))
		h = br.Op("Conv", vs(h, b.Weight(name+".c2.weight", 16, 16, 3), b.Weight(name+".c2.bias", 16)), Ints("pads", 1, 1))
		h = br.Op("Relu", vs(h))
		h = br.Op("ReduceMean", vs(h), Ints("axes", 2), Int("keepdims", 0))
		h = br.Op("MatMul", vs(h, headW))
		br.Output(br.Op("Sigmoid", vs(h)))
		return br
	}
	b.Output(b.Control("If", 1, vs(cond), nil, "then_branch", front("then_branch", 4), "else_branch", front("else_branch", 2))...)
	return b.finish()
}

// DecoderPast is a decoder step that chooses its path by whether past
// state exists: If(past length > 0) attends over Concat(past, x), else
// over x alone; both return the output and the new state. x is
// [1, T, d], past [1, P, d] (T and P symbolic).
func DecoderPast(d int64) *ir.Model {
	b := New("decoder_past_if", 17)
	x := b.Input("x", ir.Float32, 1, "T", d)
	past := b.Input("past", ir.Float32, 1, "P", d)
	plen := b.Op("Gather", vs(b.Op("Shape", vs(past)), b.ConstI("one_i", []int64{}, 1)))
	cond := b.Op("Greater", vs(plen, b.ConstI("zero_i", []int64{}, 0)))
	wq, wo := b.Weight("wq", d, d), b.Weight("wo", d, d)
	scale := b.ConstF("scale", []int64{}, float32(1/float64(d)))
	attend := func(name string, withPast bool) *Builder {
		br := b.Body(name)
		kv := x
		if withPast {
			kv = br.Op("Concat", vs(past, x), Int("axis", 1))
		}
		q := br.Op("MatMul", vs(x, wq))
		s := br.Op("MatMul", vs(q, br.Op("Transpose", vs(kv), Ints("perm", 0, 2, 1))))
		p := br.Op("Softmax", vs(br.Op("Mul", vs(s, scale))), Int("axis", -1))
		o := br.Op("MatMul", vs(br.Op("MatMul", vs(p, kv)), wo))
		o = br.Op("Relu", vs(br.Op("Add", vs(o, x))))
		br.Output(o, br.Op("Identity", vs(kv)))
		return br
	}
	b.Output(b.Control("If", 2, vs(cond), nil, "then_branch", attend("then_branch", true), "else_branch", attend("else_branch", false))...)
	return b.finish()
}

// LoopRNN is the Deep Speech recurrence in its exported form: a Loop over
// the T time steps of xs [T, 1, d] carrying h [1, hidden], whose body
// gathers x_t, computes h = clip(x_t W + h R + b, 0, 20) and emits h as
// a scan output. The body also scales W and sums the two biases each
// iteration (loop-invariant work exporters leave in bodies). With trip > 0
// the trip count is a constant (and xs has trip steps); else it is the
// input's symbolic time dim T.
func LoopRNN(d, hidden int64, trip int) *ir.Model {
	b := New("loop_rnn", 17)
	var t any = "T"
	if trip > 0 {
		t = trip
	}
	xs := b.Input("xs", ir.Float32, t, 1, d)
	h0 := b.Input("h0", ir.Float32, 1, hidden)
	var m *ir.Value
	if trip > 0 {
		m = b.ConstI("trip", []int64{}, int64(trip))
	} else {
		m = b.Op("Squeeze", vs(b.Op("Slice", vs(b.Op("Shape", vs(xs)), b.ConstI("s0", []int64{1}, 0), b.ConstI("s1", []int64{1}, 1)))))
	}
	w, r := b.Weight("W", d, hidden), b.Weight("R", hidden, hidden)
	bi, bh := b.Weight("b_ih", hidden), b.Weight("b_hh", hidden)
	wscale := b.ConstF("w_scale", []int64{}, 0.5)
	body := b.Body("loop_body")
	i := body.Input("iter", ir.Int64)
	c := body.Input("cond_in", ir.Bool)
	h := body.Input("h", ir.Float32, 1, hidden)
	xt := body.Op("Gather", vs(xs, i), Int("axis", 0))
	ws := body.Op("Mul", vs(w, wscale))
	bias := body.Op("Add", vs(bi, bh))
	a := body.Op("Add", vs(body.Op("Add", vs(body.Op("MatMul", vs(xt, ws)), body.Op("MatMul", vs(h, r)))), bias))
	hn := body.Op("Clip", vs(a, b.ConstF("lo", []int64{}, 0), b.ConstF("hi", []int64{}, 20)))
	hs := body.Op("Identity", vs(hn))
	body.Output(body.Op("Identity", vs(c)), hn, hs)
	b.Output(b.Control("Loop", 2, vs(m, nil, h0), nil, "body", body)...)
	return b.finish()
}

// ScanGRU is a gated recurrence as a Scan over xs [T, 1, d] with state h
// [1, hidden]: z = sigmoid(x Wz + h Rz + bz), n = tanh(x Wn + (z*h) Rn +
// bn), h' = n + z*(h - n). The weights are main-graph initializers the
// body captures; bz is the sum of two bias vectors computed in the body.
// T is symbolic when steps is 0, else steps.
func ScanGRU(d, hidden int64, steps int) *ir.Model {
	b := New("scan_gru", 17)
	var t any = "T"
	if steps > 0 {
		t = steps
	}
	xs := b.Input("xs", ir.Float32, t, 1, d)
	h0 := b.Input("h0", ir.Float32, 1, hidden)
	wz, rz, wn, rn := b.Weight("Wz", d, hidden), b.Weight("Rz", hidden, hidden), b.Weight("Wn", d, hidden), b.Weight("Rn", hidden, hidden)
	bz1, bz2, bn := b.Weight("bz_i", hidden), b.Weight("bz_h", hidden), b.Weight("bn", hidden)
	body := b.Body("scan_body")
	h := body.Input("h", ir.Float32, 1, hidden)
	x := body.Input("x", ir.Float32, 1, d)
	bz := body.Op("Add", vs(bz1, bz2))
	z := body.Op("Sigmoid", vs(body.Op("Add", vs(body.Op("Add", vs(body.Op("MatMul", vs(x, wz)), body.Op("MatMul", vs(h, rz)))), bz))))
	zh := body.Op("Mul", vs(z, h))
	n := body.Op("Tanh", vs(body.Op("Add", vs(body.Op("Add", vs(body.Op("MatMul", vs(x, wn)), body.Op("MatMul", vs(zh, rn)))), bn))))
	hn := body.Op("Add", vs(n, body.Op("Mul", vs(z, body.Op("Sub", vs(h, n))))))
	body.Output(hn, body.Op("Identity", vs(hn)))
	b.Output(b.Control("Scan", 2, vs(h0, xs), []*ir.Attr{Int("num_scan_inputs", 1)}, "body", body)...)
	return b.finish()
}

// NestedIfLoopScan nests the three: If(flag) whose then branch runs a
// Loop of trip count 3 (its body holding an If on the iteration number
// and invariant work on the outer x) and then a Scan over the rows of
// the result; the else branch passes x through a small chain. Every body
// reads outer-scope values.
func NestedIfLoopScan(rows, cols int64) *ir.Model {
	b := New("nested_if_loop_scan", 17)
	x := b.Input("x", ir.Float32, rows, cols)
	flag := b.Input("flag", ir.Bool)
	s := b.ConstF("s", []int64{}, 0.25)
	w := b.Weight("row_w", cols)
	th := b.Body("then_branch")
	loop := b.Body("loop_body")
	i := loop.Input("i", ir.Int64)
	c := loop.Input("c", ir.Bool)
	acc := loop.Input("acc", ir.Float32, rows, cols)
	t := loop.Op("Relu", vs(loop.Op("Mul", vs(x, s))))
	acc2 := loop.Op("Add", vs(acc, loop.Op("Tanh", vs(loop.Op("Add", vs(t, acc))))))
	inner := loop.Op("Less", vs(i, b.ConstI("two", []int64{}, 2)))
	ith := loop.Body("inner_then")
	ith.Output(ith.Op("Sigmoid", vs(ith.Op("Mul", vs(acc2, b.ConstF("k2", []int64{}, 2))))))
	iel := loop.Body("inner_else")
	iel.Output(iel.Op("Neg", vs(iel.Op("Abs", vs(acc2)))))
	nxt := loop.Control("If", 1, vs(inner), nil, "then_branch", ith, "else_branch", iel)[0]
	loop.Output(loop.Op("Identity", vs(c)), nxt)
	lout := th.Control("Loop", 1, vs(b.ConstI("three", []int64{}, 3), nil, x), nil, "body", loop)[0]
	sc := th.Body("row_scan")
	st := sc.Input("st", ir.Float32, cols)
	row := sc.Input("row", ir.Float32, cols)
	st2 := sc.Op("Add", vs(st, sc.Op("Mul", vs(sc.Op("Relu", vs(row)), w))))
	sc.Output(st2)
	th.Output(th.Control("Scan", 1, vs(b.ConstF("st0", []int64{cols}, filled(cols, 0)...), lout), []*ir.Attr{Int("num_scan_inputs", 1)}, "body", sc)[0])
	el := b.Body("else_branch")
	el.Output(el.Op("ReduceSum", vs(el.Op("Relu", vs(el.Op("Add", vs(x, s)))), b.ConstI("ax0", []int64{1}, 0)), Int("keepdims", 0)))
	b.Output(b.Control("If", 1, vs(flag), nil, "then_branch", th, "else_branch", el)...)
	return b.finish()
}

// ControlFlowModels are the generated control-flow models by name, for
// tests and benchmarks.
func ControlFlowModels() map[string]*ir.Model {
	return map[string]*ir.Model{
		"wakeword_if":         WakeWordIf(32, 16),
		"vad_sr_if":           VADSampleRate(512, 0),
		"vad_sr_const":        VADSampleRate(512, 16000),
		"decoder_past_if":     DecoderPast(32),
		"loop_rnn":            LoopRNN(16, 32, 0),
		"loop_rnn_trip8":      LoopRNN(16, 32, 8),
		"scan_gru":            ScanGRU(16, 32, 0),
		"scan_gru_t6":         ScanGRU(16, 32, 6),
		"nested_if_loop_scan": NestedIfLoopScan(4, 8),
		"loop_lstm":           LoopLSTM(16, 32, 0),
		"loop_lstm_t32":       LoopLSTM(16, 32, 32),
		"scan_gru_cell_t32":   ScanGRUCell(16, 32, 32),
		"loop_wide_state":     LoopWideState(64, 128, 4),
	}
}
