package eval

// This file implements the ai.onnx.preview.training optimizer ops
// Adagrad, Momentum and Adam (Gradient needs autodiff and is not here).

import (
	"math"
)

const trainingDomain = "ai.onnx.preview.training"

func registerTraining() {
	registerDomain(trainingDomain, "Adagrad", optimizerKernel("adagrad", 2))
	registerDomain(trainingDomain, "Momentum", optimizerKernel("momentum", 2))
	registerDomain(trainingDomain, "Adam", optimizerKernel("adam", 3))
}

// optimizerKernel: inputs R, T, then groups of n tensors each for X, G
// and the states (groups-1 state groups follow X and G).
func optimizerKernel(kind string, states int) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		rt, tt := in[0], in[1]
		r, err := scalarFloat(rt, "R")
		if err != nil {
			return nil, err
		}
		t, err := scalarFloat(tt, "T")
		if err != nil {
			return nil, err
		}
		groups := 2 + states - 1 // X, G and the state groups
		rest := in[2:]
		if len(rest) == 0 || len(rest)%groups != 0 {
			return nil, c.Errorf("%d tensors do not form %d equal groups", len(rest), groups)
		}
		n := len(rest) / groups
		outs := make([]*Tensor, n*(groups-1))
		norm := float64(c.Float("norm_coefficient", 0))
		for i := 0; i < n; i++ {
			x, g := rest[i], rest[n+i]
			if x == nil || g == nil || !isFloatCls(x) || !equalInts(x.Shape, g.Shape) {
				return nil, c.Errorf("tensor %d: X and G must be float tensors of one shape", i)
			}
			xf, gf := x.f64(), g.f64()
			st := make([][]float64, groups-2)
			for k := range st {
				s := rest[(2+k)*n+i]
				if s == nil || !equalInts(s.Shape, x.Shape) {
					return nil, c.Errorf("tensor %d: state %d must have X's shape", i, k)
				}
				st[k] = s.f64()
			}
			nx := make([]float64, len(xf))
			ns := make([][]float64, len(st))
			for k := range ns {
				ns[k] = make([]float64, len(xf))
			}
			switch kind {
			case "adagrad":
				decay, eps := float64(c.Float("decay_factor", 0)), float64(c.Float("epsilon", 0))
				lr := r / (1 + t*decay)
				for j := range xf {
					gr := norm*xf[j] + gf[j]
					h := st[0][j] + gr*gr
					ns[0][j] = h
					nx[j] = xf[j] - lr*gr/(math.Sqrt(h)+eps)
				}
			case "momentum":
				alpha, beta := float64(c.Float("alpha", 0)), float64(c.Float("beta", 0))
				nesterov := c.Str("mode", "standard") == "nesterov"
				if t <= 0 {
					beta = 1
				}
				for j := range xf {
					gr := norm*xf[j] + gf[j]
					v := alpha*st[0][j] + beta*gr
					ns[0][j] = v
					if nesterov {
						nx[j] = xf[j] - r*(gr+alpha*v)
					} else {
						nx[j] = xf[j] - r*v
					}
				}
			case "adam":
				alpha, beta := float64(c.Float("alpha", 0.9)), float64(c.Float("beta", 0.999))
				eps := float64(c.Float("epsilon", 1e-6))
				post := float64(c.Float("norm_coefficient_post", 0))
				lr := r
				if t > 0 {
					lr = r * math.Sqrt(1-math.Pow(beta, t)) / (1 - math.Pow(alpha, t))
				}
				for j := range xf {
					gr := norm*xf[j] + gf[j]
					v := alpha*st[0][j] + (1-alpha)*gr
					h := beta*st[1][j] + (1-beta)*gr*gr
					ns[0][j], ns[1][j] = v, h
					nx[j] = (1 - post) * (xf[j] - lr*v/(math.Sqrt(h)+eps))
				}
			}
			outs[i] = fromFloat64s(x.DType, x.Shape, nx)
			for k := range ns {
				outs[(1+k)*n+i] = fromFloat64s(x.DType, x.Shape, ns[k])
			}
		}
		return outs, nil
	}
}
