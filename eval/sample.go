package eval

// This file implements GridSample, AffineGrid and Col2Im (N-d), after the
// ONNX reference implementation.

import (
	"math"
)

func registerSample() {
	register(kernelGridSample, "GridSample")
	register(kernelAffineGrid, "AffineGrid")
	register(kernelCol2Im, "Col2Im")
}

// gsReflect reflects x by the borders until it lies within [lo, hi].
func gsReflect(x, lo, hi float64) float64 {
	rng := hi - lo
	if rng <= 0 {
		return lo
	}
	switch {
	case x < lo:
		dx := lo - x
		n := math.Floor(dx / rng)
		r := dx - n*rng
		if int64(n)%2 == 0 {
			return lo + r
		}
		return hi - r
	case x > hi:
		dx := x - hi
		n := math.Floor(dx / rng)
		r := dx - n*rng
		if int64(n)%2 == 0 {
			return hi - r
		}
		return lo + r
	}
	return x
}

func cubicCoeffs(t float64) [4]float64 {
	a := -0.75
	t = math.Abs(t)
	return [4]float64{
		((a*(t+1)-5*a)*(t+1)+8*a)*(t+1) - 4*a,
		((a+2)*t-(a+3))*t*t + 1,
		((a+2)*(1-t)-(a+3))*(1-t)*(1-t) + 1,
		((a*(2-t)-5*a)*(2-t)+8*a)*(2-t) - 4*a,
	}
}

func kernelGridSample(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, grid := in[0], in[1]
	if err := requireFloat(x, "X"); err != nil {
		return nil, err
	}
	r := x.Rank() - 2
	if r < 1 || grid.Rank() != r+2 || grid.Shape[0] != x.Shape[0] || grid.Shape[r+1] != r {
		return nil, c.Errorf("grid %s does not fit X %s", grid, x)
	}
	mode := c.Str("mode", "linear")
	switch mode {
	case "bilinear":
		mode = "linear"
	case "bicubic":
		mode = "cubic"
	case "linear", "nearest", "cubic":
	default:
		return nil, c.Errorf("unknown mode %q", mode)
	}
	pad := c.Str("padding_mode", "zeros")
	if pad != "zeros" && pad != "border" && pad != "reflection" {
		return nil, c.Errorf("unknown padding_mode %q", pad)
	}
	align := c.Int("align_corners", 0) != 0
	n, ch := x.Shape[0], x.Shape[1]
	dims := x.Shape[2:]
	oshape := grid.Shape[1 : r+1]
	shape := append([]int{n, ch}, oshape...)
	out, err := c.alloc(x.DType, shape)
	if err != nil {
		return nil, err
	}
	lo, hi := make([]float64, r), make([]float64, r)
	for i, d := range dims {
		lo[i], hi[i] = -0.5, float64(d)-0.5
		if align {
			lo[i], hi[i] = 0, float64(d-1)
		}
	}
	xf, gf := x.f64(), grid.f64()
	P := numel(oshape)
	img := numel(dims)
	xst := strides(dims)
	// fetch maps a per-dim integer index through the padding mode; -1
	// means "outside, reads zero".
	fetch := func(d, i int) int {
		switch pad {
		case "zeros":
			if i < 0 || i >= dims[d] {
				return -1
			}
			return i
		case "border":
			return max(0, min(dims[d]-1, i))
		}
		return int(gsReflect(float64(i), lo[d], hi[d]))
	}
	type tp struct {
		idx int
		w   float64
	}
	taps := make([][]tp, r)
	coord := make([]float64, r)
	for b := 0; b < n; b++ {
		for p := 0; p < P; p++ {
			g := gf[(b*P+p)*r : (b*P+p+1)*r]
			for d := 0; d < r; d++ {
				nv := g[r-1-d] // the grid lists coordinates innermost first
				var v float64
				if align {
					v = (nv + 1) / 2 * float64(dims[d]-1)
				} else {
					v = ((nv+1)*float64(dims[d]) - 1) / 2
				}
				v = float64(float32(v))
				if mode == "nearest" {
					// The test data rounds half to even in every rank.
					v = math.RoundToEven(v)
				}
				if v < lo[d] || v > hi[d] {
					if pad == "border" {
						v = math.Max(0, math.Min(float64(dims[d]-1), v))
					} else if pad == "reflection" {
						v = gsReflect(v, lo[d], hi[d])
					}
				}
				coord[d] = v
				taps[d] = taps[d][:0]
				switch mode {
				case "nearest":
					taps[d] = append(taps[d], tp{fetch(d, int(v)), 1})
				case "linear":
					x0 := math.Floor(v)
					t := v - x0
					taps[d] = append(taps[d], tp{fetch(d, int(x0)), 1 - t}, tp{fetch(d, int(x0)+1), t})
				case "cubic":
					x0 := math.Floor(v)
					cf := cubicCoeffs(v - x0)
					for k := 0; k < 4; k++ {
						taps[d] = append(taps[d], tp{fetch(d, int(x0)-1+k), cf[k]})
					}
				}
			}
			for cc := 0; cc < ch; cc++ {
				base := (b*ch + cc) * img
				sum := 0.0
				// Cartesian product of the per-dim taps.
				ctr := make([]int, r)
				for {
					w := 1.0
					off := 0
					for d := 0; d < r; d++ {
						t := taps[d][ctr[d]]
						w *= t.w
						if t.idx < 0 {
							off = -1
						} else if off >= 0 {
							off += t.idx * xst[d]
						}
					}
					if off >= 0 && w != 0 {
						sum += w * xf[base+off]
					}
					d := r - 1
					for ; d >= 0; d-- {
						ctr[d]++
						if ctr[d] < len(taps[d]) {
							break
						}
						ctr[d] = 0
					}
					if d < 0 {
						break
					}
				}
				out.setF((b*ch+cc)*P+p, sum)
			}
		}
	}
	return []*Tensor{out}, nil
}

func kernelAffineGrid(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	theta, st := in[0], in[1]
	size, err := ints(st, "size")
	if err != nil {
		return nil, err
	}
	r := len(size) - 2
	if r != 2 && r != 3 || theta.Rank() != 3 || theta.Shape[1] != r || theta.Shape[2] != r+1 || int64(theta.Shape[0]) != size[0] {
		return nil, c.Errorf("theta %s does not fit size %v", theta, size)
	}
	align := c.Int("align_corners", 0) != 0
	sp := toInts(size[2:]) // D, H, W or H, W
	shape := append(append([]int{int(size[0])}, sp...), r)
	out, err := c.alloc(theta.DType, shape)
	if err != nil {
		return nil, err
	}
	lin := func(i, l int) float64 {
		if align {
			if l == 1 {
				return 0
			}
			return -1 + 2*float64(i)/float64(l-1)
		}
		return -1 + (2*float64(i)+1)/float64(l)
	}
	tf := theta.f64()
	P := numel(sp)
	base := make([]float64, r+1)
	for b := 0; b < int(size[0]); b++ {
		th := tf[b*r*(r+1):]
		forEachIndex(sp, func(k int, ix []int) {
			// base = [x (innermost), y, (z), 1]
			for d := 0; d < r; d++ {
				base[d] = lin(ix[r-1-d], sp[r-1-d])
			}
			base[r] = 1
			for i := 0; i < r; i++ {
				s := 0.0
				for j := 0; j <= r; j++ {
					s += th[i*(r+1)+j] * base[j]
				}
				out.setF((b*P+k)*r+i, s)
			}
		})
	}
	return []*Tensor{out}, nil
}

func kernelCol2Im(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, it, bt := in[0], in[1], in[2]
	imgS, err := ints(it, "image_shape")
	if err != nil {
		return nil, err
	}
	blkS, err := ints(bt, "block_shape")
	if err != nil {
		return nil, err
	}
	r := len(imgS)
	if len(blkS) != r || x.Rank() != 3 {
		return nil, c.Errorf("input %s, image_shape %v and block_shape %v do not fit", x, imgS, blkS)
	}
	if err := requireFloat(x, "input"); err != nil {
		return nil, err
	}
	dil, _ := c.Ints("dilations")
	pads, _ := c.Ints("pads")
	str, _ := c.Ints("strides")
	get := func(v []int64, i int, def int64) int {
		if i < len(v) {
			return int(v[i])
		}
		return int(def)
	}
	kn := numel(toInts(blkS))
	if kn == 0 || x.Shape[1]%kn != 0 {
		return nil, c.Errorf("input channels %d are not a multiple of the block size %d", x.Shape[1], kn)
	}
	ch := x.Shape[1] / kn
	nblk := make([]int, r)
	for d := 0; d < r; d++ {
		ek := get(dil, d, 1)*(int(blkS[d])-1) + 1
		s := get(str, d, 1)
		if s <= 0 {
			return nil, c.Errorf("invalid strides")
		}
		nblk[d] = (int(imgS[d])+get(pads, d, 0)+get(pads, d+r, 0)-ek)/s + 1
	}
	L := numel(nblk)
	if x.Shape[2] != L {
		return nil, c.Errorf("input has %d blocks, the geometry gives %d", x.Shape[2], L)
	}
	n := x.Shape[0]
	img := toInts(imgS)
	shape := append([]int{n, ch}, img...)
	out, err := c.alloc(x.DType, shape)
	if err != nil {
		return nil, err
	}
	res := make([]float64, out.Len())
	xf := x.f64()
	ist := strides(img)
	isz := numel(img)
	bs := toInts(blkS)
	w := &window{stride: make([]int, r), dil: make([]int, r), padB: make([]int, r)}
	for d := 0; d < r; d++ {
		w.stride[d], w.dil[d], w.padB[d] = get(str, d, 1), get(dil, d, 1), get(pads, d, 0)
	}
	kc := make([]int, r)
	bc := make([]int, r)
	for b := 0; b < n; b++ {
		for cc := 0; cc < ch; cc++ {
			for k := 0; k < kn; k++ {
				unravel(k, bs, kc)
				for l := 0; l < L; l++ {
					unravel(l, nblk, bc)
					if off := w.offset(bc, kc, img, ist); off >= 0 {
						res[(b*ch+cc)*isz+off] += xf[((b*x.Shape[1])+cc*kn+k)*L+l]
					}
				}
			}
		}
	}
	for i, v := range res {
		out.setF(i, v)
	}
	return []*Tensor{out}, nil
}
