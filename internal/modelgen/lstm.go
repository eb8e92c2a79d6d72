package modelgen

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// LSTM is an LSTM unrolled over steps time steps in primitive ops, the
// way Deep Speech's recurrent layer looks to a framework without a fused
// RNN kernel: the input X [steps, batch, input] is split into x_t; each
// step computes the four gates as separate GEMMs
//
//	a_g = x_t·W_g + h·U_g + b_g      g in i, f, g, o
//	c = σ(a_f)·c + σ(a_i)·tanh(a_g);  h = σ(a_o)·tanh(c)
//
// with h0 and c0 as graph inputs; the outputs are h and c of the last
// step. LSTM(50, 4, 1024, 1024) is the Deep Speech case.
func LSTM(steps, batch, input, hidden int) *ir.Model {
	b := New(fmt.Sprintf("lstm_unrolled_%d", steps), 17)
	x := b.Input("X", ir.Float32, steps, batch, input)
	h := b.Input("h0", ir.Float32, batch, hidden)
	c := b.Input("c0", ir.Float32, batch, hidden)
	gates := []string{"i", "f", "g", "o"}
	W := map[string]*ir.Value{}
	U := map[string]*ir.Value{}
	B := map[string]*ir.Value{}
	for _, g := range gates {
		W[g] = b.Weight("W_"+g, int64(input), int64(hidden))
		U[g] = b.Weight("U_"+g, int64(hidden), int64(hidden))
		B[g] = b.Weight("b_"+g, int64(hidden))
	}
	sizes := make([]int64, steps)
	for i := range sizes {
		sizes[i] = 1
	}
	xs := b.OpN("Split", steps, []*ir.Value{x, b.ConstI("split_sizes", []int64{int64(steps)}, sizes...)}, Int("axis", 0))
	axis0 := b.ConstI("axis0", []int64{1}, 0)
	for t := 0; t < steps; t++ {
		xt := b.Op("Squeeze", []*ir.Value{xs[t], axis0})
		a := map[string]*ir.Value{}
		for _, g := range gates {
			xw := b.Op("MatMul", []*ir.Value{xt, W[g]})
			hu := b.Op("MatMul", []*ir.Value{h, U[g]})
			a[g] = b.Op("Add", []*ir.Value{b.Op("Add", []*ir.Value{xw, hu}), B[g]})
		}
		i := b.Op("Sigmoid", []*ir.Value{a["i"]})
		f := b.Op("Sigmoid", []*ir.Value{a["f"]})
		gg := b.Op("Tanh", []*ir.Value{a["g"]})
		o := b.Op("Sigmoid", []*ir.Value{a["o"]})
		c = b.Op("Add", []*ir.Value{b.Op("Mul", []*ir.Value{f, c}), b.Op("Mul", []*ir.Value{i, gg})})
		h = b.Op("Mul", []*ir.Value{o, b.Op("Tanh", []*ir.Value{c})})
	}
	h.Name, c.Name = "h_last", "c_last"
	b.Output(h, c)
	return b.Model()
}
