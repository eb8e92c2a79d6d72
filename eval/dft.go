package eval

// This file implements DFT and STFT (direct O(n^2) transforms in float64).

import (
	"math"
)

func init() {
	register(kernelDFT, "DFT")
	register(kernelSTFT, "STFT")
}

// dft1 transforms n complex samples (re, im) to m output bins.
func dft1(re, im []float64, n, m int, inverse bool) ([]float64, []float64) {
	or, oi := make([]float64, m), make([]float64, m)
	sign := -1.0
	if inverse {
		sign = 1
	}
	for k := 0; k < m; k++ {
		var sr, si float64
		for t := 0; t < n; t++ {
			a := sign * 2 * math.Pi * float64(k) * float64(t) / float64(n)
			c, s := math.Cos(a), math.Sin(a)
			sr += re[t]*c - im[t]*s
			si += re[t]*s + im[t]*c
		}
		if inverse {
			sr /= float64(n)
			si /= float64(n)
		}
		or[k], oi[k] = sr, si
	}
	return or, oi
}

func kernelDFT(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, err := need(in, 0, "input")
	if err != nil {
		return nil, err
	}
	if err := requireFloat(x, "input"); err != nil {
		return nil, err
	}
	r := x.Rank()
	if r < 2 || (x.Shape[r-1] != 1 && x.Shape[r-1] != 2) {
		return nil, c.Errorf("input must end in a dim of 1 (real) or 2 (complex), got %s", x)
	}
	axis := int64(1)
	if c.Opset >= 20 {
		axis = -2
		if t := optIn(in, 2); t != nil {
			v, err := ints(t, "axis")
			if err != nil || len(v) != 1 {
				return nil, c.Errorf("axis must be an integer scalar")
			}
			axis = v[0]
		}
	} else {
		axis = c.Int("axis", 1)
	}
	ax, err := normAxis(axis, r)
	if err != nil || ax == r-1 {
		return nil, c.Errorf("axis %d is not a signal axis of %s", axis, x)
	}
	n := x.Shape[ax]
	inverse := c.Int("inverse", 0) != 0
	onesided := c.Int("onesided", 0) != 0
	if inverse && onesided {
		n = 2 * (x.Shape[ax] - 1) // irfft: real output from a half spectrum
	}
	if t := optIn(in, 1); t != nil && t.Len() > 0 {
		v, err := ints(t, "dft_length")
		if err != nil || len(v) != 1 || v[0] <= 0 {
			return nil, c.Errorf("dft_length must be a positive integer scalar")
		}
		n = int(v[0])
	}
	m := n
	if onesided && !inverse {
		m = n/2 + 1
	}
	irfft := inverse && onesided
	shape := append([]int{}, x.Shape...)
	shape[ax] = m
	shape[r-1] = 2
	if irfft {
		shape[r-1] = 1
	}
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	out := make([]float64, numel(shape))
	xf := x.Float64s()
	cin := x.Shape[r-1]
	outer, inner := numel(x.Shape[:ax]), numel(x.Shape[ax+1:r-1])
	re, im := make([]float64, n), make([]float64, n)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			for t := 0; t < n; t++ {
				re[t], im[t] = 0, 0
				src := t
				conj := false
				if irfft && t >= x.Shape[ax] {
					src, conj = n-t, true // Hermitian symmetry
				}
				if src < x.Shape[ax] {
					base := ((o*x.Shape[ax]+src)*inner + i) * cin
					re[t] = xf[base]
					if cin == 2 {
						im[t] = xf[base+1]
						if conj {
							im[t] = -im[t]
						}
					}
				}
			}
			or, oi := dft1(re, im, n, m, inverse)
			for k := 0; k < m; k++ {
				if irfft {
					out[(o*m+k)*inner+i] = or[k]
					continue
				}
				base := ((o*m+k)*inner + i) * 2
				out[base], out[base+1] = or[k], oi[k]
			}
		}
	}
	return []*Tensor{fromFloat64s(x.DType, shape, out)}, nil
}

func kernelSTFT(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, err := need(in, 0, "signal")
	if err != nil {
		return nil, err
	}
	st, err := need(in, 1, "frame_step")
	if err != nil {
		return nil, err
	}
	if err := requireFloat(x, "signal"); err != nil {
		return nil, err
	}
	if x.Rank() != 3 || (x.Shape[2] != 1 && x.Shape[2] != 2) {
		return nil, c.Errorf("signal must be (batch, length, 1 or 2), got %s", x)
	}
	sv, err := ints(st, "frame_step")
	if err != nil || len(sv) != 1 || sv[0] <= 0 {
		return nil, c.Errorf("frame_step must be a positive integer scalar")
	}
	step := int(sv[0])
	var window []float64
	if w := optIn(in, 2); w != nil {
		window = w.Float64s()
	}
	fl := len(window)
	if t := optIn(in, 3); t != nil {
		v, err := ints(t, "frame_length")
		if err != nil || len(v) != 1 || v[0] <= 0 {
			return nil, c.Errorf("frame_length must be a positive integer scalar")
		}
		fl = int(v[0])
	}
	if fl <= 0 || (window != nil && len(window) != fl) {
		return nil, c.Errorf("frame length %d does not fit the window %d", fl, len(window))
	}
	B, L, cin := x.Shape[0], x.Shape[1], x.Shape[2]
	if L < fl {
		return nil, c.Errorf("signal of %d samples is shorter than a frame of %d", L, fl)
	}
	frames := (L-fl)/step + 1
	m := fl
	if c.Int("onesided", 1) != 0 {
		m = fl/2 + 1
	}
	shape := []int{B, frames, m, 2}
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	xf := x.Float64s()
	out := make([]float64, numel(shape))
	re, im := make([]float64, fl), make([]float64, fl)
	for b := 0; b < B; b++ {
		for f := 0; f < frames; f++ {
			for t := 0; t < fl; t++ {
				base := (b*L + f*step + t) * cin
				w := 1.0
				if window != nil {
					w = window[t]
				}
				re[t] = xf[base] * w
				im[t] = 0
				if cin == 2 {
					im[t] = xf[base+1] * w
				}
			}
			or, oi := dft1(re, im, fl, m, false)
			for k := 0; k < m; k++ {
				base := ((b*frames+f)*m + k) * 2
				out[base], out[base+1] = or[k], oi[k]
			}
		}
	}
	return []*Tensor{fromFloat64s(x.DType, shape, out)}, nil
}
