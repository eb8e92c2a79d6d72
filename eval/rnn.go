package eval

// This file implements the recurrent ops LSTM, GRU and RNN (all
// directions, layouts, sequence lengths, peepholes, clipping and custom
// activations).

import (
	"math"
	"strings"
)

func init() {
	register(rnnKernel("LSTM"), "LSTM")
	register(rnnKernel("GRU"), "GRU")
	register(rnnKernel("RNN"), "RNN")
}

// activation returns the named RNN activation, consuming alpha/beta
// values as the function needs them.
func activation(name string, alpha, beta *[]float32) (func(float64) float64, error) {
	take := func(l *[]float32, def float64) float64 {
		if len(*l) == 0 {
			return def
		}
		v := float64((*l)[0])
		*l = (*l)[1:]
		return v
	}
	switch strings.ToLower(name) {
	case "relu":
		return func(x float64) float64 { return math.Max(0, x) }, nil
	case "tanh":
		return math.Tanh, nil
	case "sigmoid":
		return sigmoid, nil
	case "affine":
		a, b := take(alpha, 1), take(beta, 0)
		return func(x float64) float64 { return a*x + b }, nil
	case "leakyrelu":
		a := take(alpha, 0.01)
		return func(x float64) float64 {
			if x < 0 {
				return a * x
			}
			return x
		}, nil
	case "thresholdedrelu":
		a := take(alpha, 1)
		return func(x float64) float64 {
			if x > a {
				return x
			}
			return 0
		}, nil
	case "scaledtanh":
		a, b := take(alpha, 1), take(beta, 1)
		return func(x float64) float64 { return a * math.Tanh(b*x) }, nil
	case "hardsigmoid":
		a, b := take(alpha, 0.2), take(beta, 0.5)
		return func(x float64) float64 { return math.Max(0, math.Min(1, a*x+b)) }, nil
	case "elu":
		a := take(alpha, 1)
		return func(x float64) float64 {
			if x < 0 {
				return a * (math.Exp(x) - 1)
			}
			return x
		}, nil
	case "softsign":
		return func(x float64) float64 { return x / (1 + math.Abs(x)) }, nil
	case "softplus":
		return softplus, nil
	}
	return nil, errf("unknown activation %q", name)
}

func rnnKernel(kind string) Kernel {
	gates := map[string]int{"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
	nAct := map[string]int{"LSTM": 3, "GRU": 2, "RNN": 1}[kind]
	defAct := map[string][]string{"LSTM": {"Sigmoid", "Tanh", "Tanh"}, "GRU": {"Sigmoid", "Tanh"}, "RNN": {"Tanh"}}[kind]
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x, err := need(in, 0, "X")
		if err != nil {
			return nil, err
		}
		w, err := need(in, 1, "W")
		if err != nil {
			return nil, err
		}
		r, err := need(in, 2, "R")
		if err != nil {
			return nil, err
		}
		if err := requireFloat(x, "X"); err != nil {
			return nil, err
		}
		opt := func(i int) *Tensor {
			if i < len(in) {
				return in[i]
			}
			return nil
		}
		if x.Rank() != 3 || w.Rank() != 3 || r.Rank() != 3 {
			return nil, c.Errorf("X, W and R must be 3-D, got %s, %s, %s", x, w, r)
		}
		layout := c.Int("layout", 0)
		seq, batch, isz := x.Shape[0], x.Shape[1], x.Shape[2]
		if layout != 0 {
			seq, batch = batch, seq
		}
		dir := c.Str("direction", "forward")
		dirs := 1
		if dir == "bidirectional" {
			dirs = 2
		} else if dir != "forward" && dir != "reverse" {
			return nil, c.Errorf("unknown direction %q", dir)
		}
		hs := int(c.Int("hidden_size", int64(r.Shape[2])))
		if w.Shape[0] != dirs || w.Shape[1] != gates*hs || w.Shape[2] != isz || r.Shape[0] != dirs || r.Shape[1] != gates*hs || r.Shape[2] != hs {
			return nil, c.Errorf("W %s or R %s does not fit X %s with hidden size %d", w, r, x, hs)
		}
		var bias []float64
		if b := opt(3); b != nil {
			if b.Len() != dirs*2*gates*hs {
				return nil, c.Errorf("B %s does not fit", b)
			}
			bias = b.f64()
		}
		var lens []int64
		if t := opt(4); t != nil {
			if lens, err = ints(t, "sequence_lens"); err != nil {
				return nil, err
			}
			if len(lens) != batch {
				return nil, c.Errorf("sequence_lens has %d entries for batch %d", len(lens), batch)
			}
		}
		readState := func(t *Tensor, what string) ([]float64, error) {
			if t == nil {
				return make([]float64, dirs*batch*hs), nil
			}
			if t.Len() != dirs*batch*hs {
				return nil, c.Errorf("%s %s does not fit", what, t)
			}
			f := t.f64()
			if layout != 0 { // [batch, dirs, hs] -> [dirs, batch, hs]
				g := make([]float64, len(f))
				for b := 0; b < batch; b++ {
					for d := 0; d < dirs; d++ {
						copy(g[(d*batch+b)*hs:(d*batch+b+1)*hs], f[(b*dirs+d)*hs:(b*dirs+d+1)*hs])
					}
				}
				f = g
			}
			return append([]float64{}, f...), nil
		}
		h0, err := readState(opt(5), "initial_h")
		if err != nil {
			return nil, err
		}
		var c0, peep []float64
		if kind == "LSTM" {
			if c0, err = readState(opt(6), "initial_c"); err != nil {
				return nil, err
			}
			if p := opt(7); p != nil {
				if p.Len() != dirs*3*hs {
					return nil, c.Errorf("P %s does not fit", p)
				}
				peep = p.f64()
			}
		}
		names, ok := c.Strs("activations")
		if !ok {
			for d := 0; d < dirs; d++ {
				names = append(names, defAct...)
			}
		}
		if len(names) != nAct*dirs {
			return nil, c.Errorf("activations %v: want %d", names, nAct*dirs)
		}
		alpha, _ := c.Floats("activation_alpha")
		beta, _ := c.Floats("activation_beta")
		alpha, beta = append([]float32{}, alpha...), append([]float32{}, beta...)
		acts := make([]func(float64) float64, len(names))
		for i, n := range names {
			if acts[i], err = activation(n, &alpha, &beta); err != nil {
				return nil, err
			}
		}
		clip := float64(c.Float("clip", 0))
		cl := func(v float64) float64 {
			if clip > 0 {
				return math.Max(-clip, math.Min(clip, v))
			}
			return v
		}
		lbr := c.Int("linear_before_reset", 0) != 0
		inputForget := c.Int("input_forget", 0) != 0
		yShape := []int{seq, dirs, batch, hs}
		if err := c.check(x.DType, yShape); err != nil {
			return nil, err
		}
		xf := x.f64()
		xat := func(t, b int) []float64 {
			if layout != 0 {
				return xf[(b*seq+t)*isz : (b*seq+t+1)*isz]
			}
			return xf[(t*batch+b)*isz : (t*batch+b+1)*isz]
		}
		wf, rf := w.f64(), r.f64()
		y := make([]float64, seq*dirs*batch*hs)
		hN := append([]float64{}, h0...)
		cN := append([]float64{}, c0...)
		G := gates * hs
		xw := make([]float64, G)
		hr := make([]float64, G)
		for d := 0; d < dirs; d++ {
			reverse := dir == "reverse" || d == 1
			W := wf[d*G*isz : (d+1)*G*isz]
			R := rf[d*G*hs : (d+1)*G*hs]
			var wb, rb []float64
			if bias != nil {
				wb = bias[d*2*G : d*2*G+G]
				rb = bias[d*2*G+G : (d+1)*2*G]
			}
			for b := 0; b < batch; b++ {
				n := seq
				if lens != nil {
					n = int(lens[b])
					if n < 0 || n > seq {
						return nil, c.Errorf("sequence length %d out of range", n)
					}
				}
				h := hN[(d*batch+b)*hs : (d*batch+b+1)*hs]
				var cs []float64
				if kind == "LSTM" {
					cs = cN[(d*batch+b)*hs : (d*batch+b+1)*hs]
				}
				for step := 0; step < n; step++ {
					t := step
					if reverse {
						t = n - 1 - step
					}
					xt := xat(t, b)
					for g := 0; g < G; g++ {
						s := 0.0
						row := W[g*isz : (g+1)*isz]
						for k, v := range xt {
							s += row[k] * v
						}
						if wb != nil {
							s += wb[g]
						}
						xw[g] = s
						s = 0
						rrow := R[g*hs : (g+1)*hs]
						for k, v := range h {
							s += rrow[k] * v
						}
						if rb != nil {
							s += rb[g]
						}
						hr[g] = s
					}
					af := acts[d*nAct:]
					switch kind {
					case "RNN":
						for j := 0; j < hs; j++ {
							h[j] = af[0](cl(xw[j] + hr[j]))
						}
					case "LSTM":
						newC := make([]float64, hs)
						newH := make([]float64, hs)
						for j := 0; j < hs; j++ {
							pi, po, pf := 0.0, 0.0, 0.0
							if peep != nil {
								pi, po, pf = peep[d*3*hs+j], peep[d*3*hs+hs+j], peep[d*3*hs+2*hs+j]
							}
							it := af[0](cl(xw[j] + hr[j] + pi*cs[j]))
							ft := af[0](cl(xw[2*hs+j] + hr[2*hs+j] + pf*cs[j]))
							if inputForget {
								ft = 1 - it
							}
							ct := af[1](cl(xw[3*hs+j] + hr[3*hs+j]))
							newC[j] = ft*cs[j] + it*ct
							ot := af[0](cl(xw[hs+j] + hr[hs+j] + po*newC[j]))
							newH[j] = ot * af[2](newC[j])
						}
						copy(cs, newC)
						copy(h, newH)
					case "GRU":
						rt := make([]float64, hs)
						for j := 0; j < hs; j++ {
							rt[j] = af[0](cl(xw[hs+j] + hr[hs+j]))
						}
						newH := make([]float64, hs)
						for j := 0; j < hs; j++ {
							zt := af[0](cl(xw[j] + hr[j]))
							var ht float64
							if lbr {
								ht = af[1](cl(xw[2*hs+j] + rt[j]*hr[2*hs+j]))
							} else {
								// (rt (.) H) * Rh: the reset gate scales H before the product.
								s := 0.0
								rrow := R[(2*hs+j)*hs : (2*hs+j+1)*hs]
								for k, v := range h {
									s += rrow[k] * rt[k] * v
								}
								if rb != nil {
									s += rb[2*hs+j]
								}
								ht = af[1](cl(xw[2*hs+j] + s))
							}
							newH[j] = (1-zt)*ht + zt*h[j]
						}
						copy(h, newH)
					}
					copy(y[((t*dirs+d)*batch+b)*hs:((t*dirs+d)*batch+b+1)*hs], h)
				}
			}
		}
		dt := x.DType
		var yT, hT, cT *Tensor
		if layout != 0 {
			yy := make([]float64, len(y))
			for t := 0; t < seq; t++ {
				for d := 0; d < dirs; d++ {
					for b := 0; b < batch; b++ {
						copy(yy[((b*seq+t)*dirs+d)*hs:((b*seq+t)*dirs+d+1)*hs], y[((t*dirs+d)*batch+b)*hs:((t*dirs+d)*batch+b+1)*hs])
					}
				}
			}
			yT = fromFloat64s(dt, []int{batch, seq, dirs, hs}, yy)
			tr := func(s []float64) []float64 {
				o := make([]float64, len(s))
				for d := 0; d < dirs; d++ {
					for b := 0; b < batch; b++ {
						copy(o[(b*dirs+d)*hs:(b*dirs+d+1)*hs], s[(d*batch+b)*hs:(d*batch+b+1)*hs])
					}
				}
				return o
			}
			hT = fromFloat64s(dt, []int{batch, dirs, hs}, tr(hN))
			if kind == "LSTM" {
				cT = fromFloat64s(dt, []int{batch, dirs, hs}, tr(cN))
			}
		} else {
			yT = fromFloat64s(dt, yShape, y)
			hT = fromFloat64s(dt, []int{dirs, batch, hs}, hN)
			if kind == "LSTM" {
				cT = fromFloat64s(dt, []int{dirs, batch, hs}, cN)
			}
		}
		if kind == "LSTM" {
			return []*Tensor{yT, hT, cT}, nil
		}
		return []*Tensor{yT, hT}, nil
	}
}
