package eval

// This file implements the recurrent ops LSTM, GRU and RNN (all
// directions, layouts, sequence lengths, peepholes, clipping and custom
// activations).

import (
	"math"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

func registerRnn() {
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

// rnnKinds holds what distinguishes LSTM, GRU and RNN: the gates per
// hidden unit, the activations per direction and their defaults.
var rnnKinds = map[string]struct {
	gates, nAct int
	defAct      []string
}{
	"LSTM": {4, 3, []string{"Sigmoid", "Tanh", "Tanh"}},
	"GRU":  {3, 2, []string{"Sigmoid", "Tanh"}},
	"RNN":  {1, 1, []string{"Tanh"}},
}

// rnnOp is one recurrent node's operands and attributes, checked against
// each other and read into float64 in [dirs, batch, hs] state layout.
type rnnOp struct {
	kind                      string
	gates, nAct               int
	layout                    int64
	dir                       string
	seq, batch, isz, hs, dirs int
	x, w, r                   []float64
	bias, peep                []float64 // nil when omitted
	lens                      []int64   // nil when omitted
	h0, c0                    []float64 // c0: LSTM only
	acts                      []func(float64) float64
	clip                      float64
	lbr, inputForget          bool
}

func rnnKernel(kind string) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x, w, r := in[0], in[1], in[2]
		p, err := newRNNOp(c, kind, in, x, w, r)
		if err != nil {
			return nil, err
		}
		yShape := []int{p.seq, p.dirs, p.batch, p.hs}
		if err := c.check(x.DType, yShape); err != nil {
			return nil, err
		}
		p.x = x.f64()
		y, hN, cN, err := p.run(c)
		if err != nil {
			return nil, err
		}
		return p.outputs(x.DType, y, hN, cN), nil
	}
}

// newRNNOp checks the node's shapes and attributes and reads its weights,
// bias, sequence lengths, initial states and activations. X is read later
// (by the caller, after the output allocation is checked).
func newRNNOp(c *Ctx, kind string, in []*Tensor, x, w, r *Tensor) (*rnnOp, error) {
	k := rnnKinds[kind]
	p := &rnnOp{kind: kind, gates: k.gates, nAct: k.nAct}
	if x.Rank() != 3 || w.Rank() != 3 || r.Rank() != 3 {
		return nil, c.Errorf("X, W and R must be 3-D, got %s, %s, %s", x, w, r)
	}
	p.layout = c.Int("layout", 0)
	p.seq, p.batch, p.isz = x.Shape[0], x.Shape[1], x.Shape[2]
	if p.layout != 0 {
		p.seq, p.batch = p.batch, p.seq
	}
	p.dir = c.Str("direction", "forward")
	p.dirs = 1
	if p.dir == "bidirectional" {
		p.dirs = 2
	} else if p.dir != "forward" && p.dir != "reverse" {
		return nil, c.Errorf("unknown direction %q", p.dir)
	}
	hs, dirs, gates := int(c.Int("hidden_size", int64(r.Shape[2]))), p.dirs, p.gates
	p.hs = hs
	if w.Shape[0] != dirs || w.Shape[1] != gates*hs || w.Shape[2] != p.isz || r.Shape[0] != dirs || r.Shape[1] != gates*hs || r.Shape[2] != hs {
		return nil, c.Errorf("W %s or R %s does not fit X %s with hidden size %d", w, r, x, hs)
	}
	if b := optIn(in, 3); b != nil {
		if b.Len() != dirs*2*gates*hs {
			return nil, c.Errorf("B %s does not fit", b)
		}
		p.bias = b.f64()
	}
	if t := optIn(in, 4); t != nil {
		var err error
		if p.lens, err = ints(t, "sequence_lens"); err != nil {
			return nil, err
		}
		if len(p.lens) != p.batch {
			return nil, c.Errorf("sequence_lens has %d entries for batch %d", len(p.lens), p.batch)
		}
	}
	var err error
	if p.h0, err = p.readState(c, optIn(in, 5), "initial_h"); err != nil {
		return nil, err
	}
	if kind == "LSTM" {
		if p.c0, err = p.readState(c, optIn(in, 6), "initial_c"); err != nil {
			return nil, err
		}
		if pp := optIn(in, 7); pp != nil {
			if pp.Len() != dirs*3*hs {
				return nil, c.Errorf("P %s does not fit", pp)
			}
			p.peep = pp.f64()
		}
	}
	if p.acts, err = rnnActivations(c, k.nAct, dirs, k.defAct); err != nil {
		return nil, err
	}
	p.clip = float64(c.Float("clip", 0))
	p.lbr = c.Int("linear_before_reset", 0) != 0
	p.inputForget = c.Int("input_forget", 0) != 0
	p.w, p.r = w.f64(), r.f64()
	return p, nil
}

// readState reads an initial state (zeros when omitted) into
// [dirs, batch, hs] order, transposing from layout 1's [batch, dirs, hs].
func (p *rnnOp) readState(c *Ctx, t *Tensor, what string) ([]float64, error) {
	dirs, batch, hs := p.dirs, p.batch, p.hs
	if t == nil {
		return make([]float64, dirs*batch*hs), nil
	}
	if t.Len() != dirs*batch*hs {
		return nil, c.Errorf("%s %s does not fit", what, t)
	}
	f := t.f64()
	if p.layout != 0 { // [batch, dirs, hs] -> [dirs, batch, hs]
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

// rnnActivations reads the activations attribute (nAct per direction,
// defAct when absent) with its alpha and beta values.
func rnnActivations(c *Ctx, nAct, dirs int, defAct []string) ([]func(float64) float64, error) {
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
		var err error
		if acts[i], err = activation(n, &alpha, &beta); err != nil {
			return nil, err
		}
	}
	return acts, nil
}

// clipped applies the clip attribute (no clipping when it is 0).
func (p *rnnOp) clipped(v float64) float64 {
	if p.clip > 0 {
		return math.Max(-p.clip, math.Min(p.clip, v))
	}
	return v
}

// xAt returns X's input vector for time t and batch entry b.
func (p *rnnOp) xAt(t, b int) []float64 {
	if p.layout != 0 {
		return p.x[(b*p.seq+t)*p.isz : (b*p.seq+t+1)*p.isz]
	}
	return p.x[(t*p.batch+b)*p.isz : (t*p.batch+b+1)*p.isz]
}

// rnnDir is one direction's weights and biases (wb, rb nil without B).
type rnnDir struct {
	d            int
	W, R, wb, rb []float64
	acts         []func(float64) float64
}

// run computes Y in [seq, dirs, batch, hs] order and the final states
// (cN: LSTM only) in [dirs, batch, hs] order.
func (p *rnnOp) run(c *Ctx) (y, hN, cN []float64, err error) {
	dirs, batch, hs, seq := p.dirs, p.batch, p.hs, p.seq
	y = make([]float64, seq*dirs*batch*hs)
	hN = append([]float64{}, p.h0...)
	cN = append([]float64{}, p.c0...)
	G := p.gates * hs
	xw := make([]float64, G)
	hr := make([]float64, G)
	for d := 0; d < dirs; d++ {
		reverse := p.dir == "reverse" || d == 1
		wd := rnnDir{d: d, W: p.w[d*G*p.isz : (d+1)*G*p.isz], R: p.r[d*G*hs : (d+1)*G*hs], acts: p.acts[d*p.nAct:]}
		if p.bias != nil {
			wd.wb = p.bias[d*2*G : d*2*G+G]
			wd.rb = p.bias[d*2*G+G : (d+1)*2*G]
		}
		for b := 0; b < batch; b++ {
			n := seq
			if p.lens != nil {
				n = int(p.lens[b])
				if n < 0 || n > seq {
					return nil, nil, nil, c.Errorf("sequence length %d out of range", n)
				}
			}
			h := hN[(d*batch+b)*hs : (d*batch+b+1)*hs]
			var cs []float64
			if p.kind == "LSTM" {
				cs = cN[(d*batch+b)*hs : (d*batch+b+1)*hs]
			}
			for step := 0; step < n; step++ {
				t := step
				if reverse {
					t = n - 1 - step
				}
				p.gatesPre(&wd, p.xAt(t, b), h, xw, hr)
				switch p.kind {
				case "RNN":
					for j := 0; j < hs; j++ {
						h[j] = wd.acts[0](p.clipped(xw[j] + hr[j]))
					}
				case "LSTM":
					p.lstmCell(&wd, xw, hr, h, cs)
				case "GRU":
					p.gruCell(&wd, xw, hr, h)
				}
				copy(y[((t*dirs+d)*batch+b)*hs:((t*dirs+d)*batch+b+1)*hs], h)
			}
		}
	}
	return y, hN, cN, nil
}

// gatesPre computes every gate's input product xw = W x + Wb and
// recurrent product hr = R h + Rb.
func (p *rnnOp) gatesPre(wd *rnnDir, xt, h, xw, hr []float64) {
	isz, hs := p.isz, p.hs
	for g := range xw {
		xw[g] = affineRow(wd.W[g*isz:(g+1)*isz], xt, wd.wb, g)
		hr[g] = affineRow(wd.R[g*hs:(g+1)*hs], h, wd.rb, g)
	}
}

// affineRow is row . x, plus bias[g] when there is a bias, summed in
// that order.
func affineRow(row, x, bias []float64, g int) float64 {
	s := 0.0
	for k, v := range x {
		s += row[k] * v
	}
	if bias != nil {
		s += bias[g]
	}
	return s
}

// lstmCell updates h and cs (gate order i, o, f, c) for one step.
func (p *rnnOp) lstmCell(wd *rnnDir, xw, hr, h, cs []float64) {
	hs, af, d := p.hs, wd.acts, wd.d
	newC := make([]float64, hs)
	newH := make([]float64, hs)
	for j := 0; j < hs; j++ {
		pi, po, pf := 0.0, 0.0, 0.0
		if p.peep != nil {
			pi, po, pf = p.peep[d*3*hs+j], p.peep[d*3*hs+hs+j], p.peep[d*3*hs+2*hs+j]
		}
		it := af[0](p.clipped(xw[j] + hr[j] + pi*cs[j]))
		ft := af[0](p.clipped(xw[2*hs+j] + hr[2*hs+j] + pf*cs[j]))
		if p.inputForget {
			ft = 1 - it
		}
		ct := af[1](p.clipped(xw[3*hs+j] + hr[3*hs+j]))
		newC[j] = ft*cs[j] + it*ct
		ot := af[0](p.clipped(xw[hs+j] + hr[hs+j] + po*newC[j]))
		newH[j] = ot * af[2](newC[j])
	}
	copy(cs, newC)
	copy(h, newH)
}

// gruCell updates h (gate order z, r, h) for one step.
func (p *rnnOp) gruCell(wd *rnnDir, xw, hr, h []float64) {
	hs, af := p.hs, wd.acts
	rt := make([]float64, hs)
	for j := 0; j < hs; j++ {
		rt[j] = af[0](p.clipped(xw[hs+j] + hr[hs+j]))
	}
	newH := make([]float64, hs)
	for j := 0; j < hs; j++ {
		zt := af[0](p.clipped(xw[j] + hr[j]))
		var ht float64
		if p.lbr {
			ht = af[1](p.clipped(xw[2*hs+j] + rt[j]*hr[2*hs+j]))
		} else {
			// (rt (.) H) * Rh: the reset gate scales H before the product.
			s := 0.0
			rrow := wd.R[(2*hs+j)*hs : (2*hs+j+1)*hs]
			for k, v := range h {
				s += rrow[k] * rt[k] * v
			}
			if wd.rb != nil {
				s += wd.rb[2*hs+j]
			}
			ht = af[1](p.clipped(xw[2*hs+j] + s))
		}
		newH[j] = (1-zt)*ht + zt*h[j]
	}
	copy(h, newH)
}

// outputs makes Y, Y_h (and Y_c for LSTM) of type dt, transposed to
// layout 1's [batch, seq, dirs, hs] and [batch, dirs, hs] when asked.
func (p *rnnOp) outputs(dt ir.DType, y, hN, cN []float64) []*Tensor {
	dirs, batch, hs, seq := p.dirs, p.batch, p.hs, p.seq
	var yT, hT, cT *Tensor
	if p.layout != 0 {
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
		if p.kind == "LSTM" {
			cT = fromFloat64s(dt, []int{batch, dirs, hs}, tr(cN))
		}
	} else {
		yT = fromFloat64s(dt, []int{seq, dirs, batch, hs}, y)
		hT = fromFloat64s(dt, []int{dirs, batch, hs}, hN)
		if p.kind == "LSTM" {
			cT = fromFloat64s(dt, []int{dirs, batch, hs}, cN)
		}
	}
	if p.kind == "LSTM" {
		return []*Tensor{yT, hT, cT}
	}
	return []*Tensor{yT, hT}
}
