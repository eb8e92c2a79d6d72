package eval

// This file implements DFT and STFT (direct O(n^2) transforms in float64).

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerDft() {
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
	x := in[0]
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
	xf := x.f64()
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
	x, st := in[0], in[1]
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
		window = w.f64()
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
	xf := x.f64()
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

func registerDft2() {
	register(kernelMelWeightMatrix, "MelWeightMatrix")
}

// kernelMelWeightMatrix builds the [dft_length/2+1, num_mel_bins]
// triangular filter bank exactly as the ONNX reference does (including its
// mel step of (high-low)/(num_mel_bins+2) and floor division).
func kernelMelWeightMatrix(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	var v [5]float64
	for i := range v {
		t, err := need(in, i, "MelWeightMatrix input")
		if err != nil {
			return nil, err
		}
		if v[i], err = scalarFloat(t, "MelWeightMatrix input"); err != nil {
			return nil, err
		}
	}
	nMel, dft, rate, lo, hi := int(v[0]), int(v[1]), v[2], v[3], v[4]
	if nMel <= 0 || dft <= 0 || rate <= 0 {
		return nil, c.Errorf("num_mel_bins, dft_length and sample_rate must be positive")
	}
	nSpec := dft/2 + 1
	dt := ir.DType(c.Int("output_datatype", int64(ir.Float32)))
	out, err := c.alloc(dt, []int{nSpec, nMel})
	if err != nil {
		return nil, err
	}
	if !isFloatCls(out) {
		return nil, c.unsupported("output type %s", dt)
	}
	loMel := 2595 * math.Log10(1+lo/700)
	hiMel := 2595 * math.Log10(1+hi/700)
	step := (hiMel - loMel) / float64(nMel+2)
	bins := make([]int, nMel+2)
	for i := range bins {
		hz := 700 * (math.Pow(10, (float64(i)*step+loMel)/2595) - 1)
		bins[i] = int(math.Floor(float64(dft+1) * hz / rate))
	}
	res := make([]float64, nSpec*nMel)
	set := func(j, i int, val float64) error {
		if j < 0 || j >= nSpec {
			return c.Errorf("frequency bin %d out of range", j)
		}
		res[j*nMel+i] = val
		return nil
	}
	for i := 0; i < nMel; i++ {
		l, ctr, h := bins[i], bins[i+1], bins[i+2]
		if ctr == l {
			if err := set(ctr, i, 1); err != nil {
				return nil, err
			}
		} else {
			for j := l; j <= ctr; j++ {
				if err := set(j, i, float64(j-l)/float64(ctr-l)); err != nil {
					return nil, err
				}
			}
		}
		for j := ctr; j < h; j++ {
			if err := set(j, i, float64(h-j)/float64(h-ctr)); err != nil {
				return nil, err
			}
		}
	}
	for i, x := range res {
		out.setF(i, x)
	}
	return []*Tensor{out}, nil
}
