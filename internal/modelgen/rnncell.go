package modelgen

// This file builds rolled recurrences: an LSTM or GRU cell written with
// MatMul + Add + Sigmoid/Tanh inside a Loop or Scan over the time steps,
// as exporters write an RNN they do not express as an LSTM/GRU op (a
// scripted PyTorch cell, a Keras RNN layer through tf2onnx). The weights
// are main-graph initializers the bodies capture.

import (
	"github.com/wolong-dev/wolong/ir"
)

// LoopLSTM is an LSTM cell rolled in a Loop over the steps of xs [T, 1,
// d], carrying h and c [1, hidden]: gates = x_t W + h R + b (W [d, 4h],
// R [hidden, 4h]) split into i, f, g, o; c' = sigmoid(f) c + sigmoid(i)
// tanh(g); h' = sigmoid(o) tanh(c'); h' is also a scan output. With steps
// > 0 the trip count is a constant and T = steps; else T is symbolic and
// the trip count is read from xs's shape.
func LoopLSTM(d, hidden int64, steps int) *ir.Model {
	b := New("loop_lstm", 17)
	var t any = "T"
	if steps > 0 {
		t = steps
	}
	xs := b.Input("xs", ir.Float32, t, 1, d)
	h0 := b.Input("h0", ir.Float32, 1, hidden)
	c0 := b.Input("c0", ir.Float32, 1, hidden)
	var m *ir.Value
	if steps > 0 {
		m = b.ConstI("trip", []int64{}, int64(steps))
	} else {
		m = b.Op("Squeeze", vs(b.Op("Slice", vs(b.Op("Shape", vs(xs)), b.ConstI("s0", []int64{1}, 0), b.ConstI("s1", []int64{1}, 1)))))
	}
	w, r, bias := b.Weight("W", d, 4*hidden), b.Weight("R", hidden, 4*hidden), b.Weight("b", 4*hidden)
	sizes := b.ConstI("gate_sizes", []int64{4}, hidden, hidden, hidden, hidden)
	body := b.Body("lstm_body")
	i := body.Input("iter", ir.Int64)
	cond := body.Input("cond_in", ir.Bool)
	h := body.Input("h", ir.Float32, 1, hidden)
	c := body.Input("c", ir.Float32, 1, hidden)
	xt := body.Op("Gather", vs(xs, i), Int("axis", 0))
	g := body.Op("Add", vs(body.Op("Add", vs(body.Op("MatMul", vs(xt, w)), body.Op("MatMul", vs(h, r)))), bias))
	gs := body.OpN("Split", 4, vs(g, sizes), Int("axis", 1))
	ig, fg := body.Op("Sigmoid", vs(gs[0])), body.Op("Sigmoid", vs(gs[1]))
	cg, og := body.Op("Tanh", vs(gs[2])), body.Op("Sigmoid", vs(gs[3]))
	c2 := body.Op("Add", vs(body.Op("Mul", vs(fg, c)), body.Op("Mul", vs(ig, cg))))
	h2 := body.Op("Mul", vs(og, body.Op("Tanh", vs(c2))))
	body.Output(body.Op("Identity", vs(cond)), h2, c2, body.Op("Identity", vs(h2)))
	b.Output(b.Control("Loop", 3, vs(m, nil, h0, c0), nil, "body", body)...)
	return b.finish()
}

// ScanGRUCell is a GRU cell (linear_before_reset, as PyTorch's) rolled in
// a Scan over xs [T, 1, d] with state h [1, hidden]: xg = x Wx + bx, hg =
// h Rh + bh (Wx [d, 3h], Rh [hidden, 3h]), each split into z, r, n; z =
// sigmoid(xz + hz), r = sigmoid(xr + hr), n = tanh(xn + r hn), h' = n +
// z (h - n); h' is also the scan output. T is symbolic when steps is 0.
func ScanGRUCell(d, hidden int64, steps int) *ir.Model {
	b := New("scan_gru_cell", 17)
	var t any = "T"
	if steps > 0 {
		t = steps
	}
	xs := b.Input("xs", ir.Float32, t, 1, d)
	h0 := b.Input("h0", ir.Float32, 1, hidden)
	wx, rh := b.Weight("Wx", d, 3*hidden), b.Weight("Rh", hidden, 3*hidden)
	bx, bh := b.Weight("bx", 3*hidden), b.Weight("bh", 3*hidden)
	sizes := b.ConstI("gate_sizes", []int64{3}, hidden, hidden, hidden)
	body := b.Body("gru_body")
	h := body.Input("h", ir.Float32, 1, hidden)
	x := body.Input("x", ir.Float32, 1, d)
	xg := body.OpN("Split", 3, vs(body.Op("Add", vs(body.Op("MatMul", vs(x, wx)), bx)), sizes), Int("axis", 1))
	hg := body.OpN("Split", 3, vs(body.Op("Add", vs(body.Op("MatMul", vs(h, rh)), bh)), sizes), Int("axis", 1))
	z := body.Op("Sigmoid", vs(body.Op("Add", vs(xg[0], hg[0]))))
	r := body.Op("Sigmoid", vs(body.Op("Add", vs(xg[1], hg[1]))))
	n := body.Op("Tanh", vs(body.Op("Add", vs(xg[2], body.Op("Mul", vs(r, hg[2]))))))
	h2 := body.Op("Add", vs(n, body.Op("Mul", vs(z, body.Op("Sub", vs(h, n))))))
	body.Output(h2, body.Op("Identity", vs(h2)))
	b.Output(b.Control("Scan", 2, vs(h0, xs), []*ir.Attr{Int("num_scan_inputs", 1)}, "body", body)...)
	return b.finish()
}

// RolledRNNSizes are the (input, hidden, steps) sizes the rolled-RNN
// checks run LoopLSTM and ScanGRUCell at: from a keyword spotter's cell to
// a speech model's, all longer than loopunroll's limit of 16 steps.
var RolledRNNSizes = [][3]int64{{16, 32, 24}, {40, 64, 50}, {64, 128, 100}, {128, 256, 200}}

// LoopWideState is a short refinement loop with a large body: trip
// iterations (a constant) of h' = tanh(h W) on a wide state h [rows,
// cols] (W [cols, cols]), every iterate also a scan output [trip, rows,
// cols]. Each step's GEMM reads the previous step's result, so nothing
// batches across iterations: unrolling saves only the per-iteration
// set-up and adds the stacking of the scan output.
func LoopWideState(rows, cols int64, trip int) *ir.Model {
	b := New("loop_wide_state", 17)
	h0 := b.Input("h0", ir.Float32, rows, cols)
	w := b.Weight("W", cols, cols)
	body := b.Body("refine_body")
	body.Input("iter", ir.Int64)
	cond := body.Input("cond_in", ir.Bool)
	h := body.Input("h", ir.Float32, rows, cols)
	h2 := body.Op("Tanh", vs(body.Op("MatMul", vs(h, w))))
	body.Output(body.Op("Identity", vs(cond)), h2, body.Op("Identity", vs(h2)))
	b.Output(b.Control("Loop", 2, vs(b.ConstI("trip", []int64{}, int64(trip)), nil, h0), nil, "body", body)...)
	return b.finish()
}
