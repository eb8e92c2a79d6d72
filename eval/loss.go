package eval

// This file implements the loss ops NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss.

import (
	"math"
)

func registerLoss() {
	register(kernelNLLLoss, "NegativeLogLikelihoodLoss")
	register(kernelSCELoss, "SoftmaxCrossEntropyLoss")
}

// nll computes the negative log-likelihood loss of logp [N,C,d...] at
// the target classes.
func nll(c *Ctx, logp []float64, shape []int, target *Tensor, weight *Tensor) ([]float64, []int, float64, error) {
	if len(shape) < 2 {
		return nil, nil, 0, c.Errorf("input must have rank >= 2")
	}
	n, ch := shape[0], shape[1]
	sp := numel(shape[2:])
	tshape := append([]int{n}, shape[2:]...)
	if !equalInts(target.Shape, tshape) {
		return nil, nil, 0, c.Errorf("target %s does not match input %v", target, shape)
	}
	tv, err := ints(target, "target")
	if err != nil {
		return nil, nil, 0, err
	}
	var w []float64
	if weight != nil {
		if weight.Len() != ch {
			return nil, nil, 0, c.Errorf("weight %s does not match %d classes", weight, ch)
		}
		w = weight.f64()
	}
	ignore, hasIgnore := int64(0), c.Attr("ignore_index") != nil
	if hasIgnore {
		ignore = c.Int("ignore_index", 0)
	}
	loss := make([]float64, n*sp)
	wsum := 0.0
	for b := 0; b < n; b++ {
		for j := 0; j < sp; j++ {
			t := tv[b*sp+j]
			if hasIgnore && t == ignore {
				continue
			}
			if t < 0 || t >= int64(ch) {
				return nil, nil, 0, c.Errorf("target %d out of range [0, %d)", t, ch)
			}
			wt := 1.0
			if w != nil {
				wt = w[t]
			}
			loss[b*sp+j] = -logp[(b*ch+int(t))*sp+j] * wt
			wsum += wt
		}
	}
	return loss, tshape, wsum, nil
}

func reduceLoss(c *Ctx, loss []float64, shape []int, wsum float64, like *Tensor) (*Tensor, error) {
	switch red := c.Str("reduction", "mean"); red {
	case "none":
		return fromFloat64s(like.DType, shape, loss), nil
	case "sum", "mean":
		s := 0.0
		for _, v := range loss {
			s += v
		}
		if red == "mean" {
			s /= wsum
		}
		return fromFloat64s(like.DType, []int{}, []float64{s}), nil
	default:
		return nil, c.Errorf("unknown reduction %q", red)
	}
}

func kernelNLLLoss(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, t := in[0], in[1]
	w := optIn(in, 2)
	loss, shape, wsum, err := nll(c, x.f64(), x.Shape, t, w)
	if err != nil {
		return nil, err
	}
	out, err := reduceLoss(c, loss, shape, wsum, x)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelSCELoss(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, t := in[0], in[1]
	if x.Rank() < 2 {
		return nil, c.Errorf("scores must have rank >= 2")
	}
	if err := c.check(x.DType, x.Shape); err != nil {
		return nil, err
	}
	n, ch := x.Shape[0], x.Shape[1]
	sp := numel(x.Shape[2:])
	f := x.f64()
	logp := make([]float64, len(f))
	for b := 0; b < n; b++ {
		for j := 0; j < sp; j++ {
			m := math.Inf(-1)
			for k := 0; k < ch; k++ {
				m = math.Max(m, f[(b*ch+k)*sp+j])
			}
			s := 0.0
			for k := 0; k < ch; k++ {
				s += math.Exp(f[(b*ch+k)*sp+j] - m)
			}
			ls := math.Log(s)
			for k := 0; k < ch; k++ {
				i := (b*ch+k)*sp + j
				logp[i] = f[i] - m - ls
			}
		}
	}
	w := optIn(in, 2)
	loss, shape, wsum, err := nll(c, logp, x.Shape, t, w)
	if err != nil {
		return nil, err
	}
	out, err := reduceLoss(c, loss, shape, wsum, x)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out, fromFloat64s(x.DType, x.Shape, logp)}, nil
}
