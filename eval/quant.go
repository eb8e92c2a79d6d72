package eval

// This file implements quantization: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear and the shared per-tensor / per-axis / blocked
// scale handling used by the QLinear* ops.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerQuant() {
	register(kernelQuantizeLinear, "QuantizeLinear")
	register(kernelDequantizeLinear, "DequantizeLinear")
	register(kernelDynamicQuantizeLinear, "DynamicQuantizeLinear")
}

// paramIndex maps an element of a tensor of shape to the index of its
// quantization parameter p: per-tensor, per-axis (1-D p) or blocked (p of
// the same rank, blocks of block along axis).
func paramIndex(shape []int, p *Tensor, axis, block int) (func(i int) int, error) {
	if p.Len() == 1 {
		return func(int) int { return 0 }, nil
	}
	if axis < 0 {
		axis += len(shape)
	}
	if axis < 0 || axis >= len(shape) {
		return nil, errf("axis out of range for %v", shape)
	}
	inner := numel(shape[axis+1:])
	n := shape[axis]
	if block <= 0 {
		if p.Rank() != 1 || p.Len() != n {
			return nil, errf("parameter %v does not match axis %d of %v", p.Shape, axis, shape)
		}
		return func(i int) int { return (i / inner) % n }, nil
	}
	if p.Rank() != len(shape) {
		return nil, errf("blocked parameter %v does not match %v", p.Shape, shape)
	}
	for d := range shape {
		want := shape[d]
		if d == axis {
			want = (shape[d] + block - 1) / block
		}
		if p.Shape[d] != want {
			return nil, errf("blocked parameter %v does not match %v with block %d", p.Shape, shape, block)
		}
	}
	xs := strides(shape)
	ps := strides(p.Shape)
	return func(i int) int {
		off := 0
		for d := range shape {
			v := (i / xs[d]) % shape[d]
			if d == axis {
				v /= block
			}
			off += v * ps[d]
		}
		return off
	}, nil
}

// dequantize returns (x - zp) * scale as float64.
func dequantizeAxis(c *Ctx, x, scale, zp *Tensor, axis, block int) ([]float64, error) {
	si, err := paramIndex(x.Shape, scale, axis, block)
	if err != nil {
		return nil, err
	}
	var zi func(int) int
	var zf []float64
	if zp != nil {
		if zi, err = paramIndex(x.Shape, zp, axis, block); err != nil {
			return nil, err
		}
		zf = zp.f64()
	}
	sf := scale.f64()
	xf := x.f64()
	if sf == nil || xf == nil {
		return nil, c.Errorf("non-numeric quantization operands")
	}
	out := make([]float64, len(xf))
	for i, v := range xf {
		if zi != nil {
			v -= zf[zi(i)]
		}
		out[i] = v * sf[si(i)]
	}
	return out, nil
}

func dequantize(c *Ctx, x, scale, zp *Tensor, axis int) ([]float64, error) {
	return dequantizeAxis(c, x, scale, zp, axis, 0)
}

// quantize returns saturate(round(x/scale) + zp) as a tensor of type to.
func quantize(c *Ctx, x []float64, shape []int, scale, zp *Tensor, to ir.DType, axis int, saturate bool) (*Tensor, error) {
	return quantizeBlock(c, x, shape, scale, zp, to, axis, 0, saturate)
}

func quantizeBlock(c *Ctx, x []float64, shape []int, scale, zp *Tensor, to ir.DType, axis, block int, saturate bool) (*Tensor, error) {
	if axis < 0 && scale.Len() != 1 {
		axis = len(shape) - 1
		if scale.Rank() == 1 {
			for d := len(shape) - 1; d >= 0; d-- {
				if shape[d] == scale.Len() {
					axis = d
					break
				}
			}
		}
	}
	si, err := paramIndex(shape, scale, axis, block)
	if err != nil {
		return nil, err
	}
	var zi func(int) int
	var zf []float64
	if zp != nil {
		if zi, err = paramIndex(shape, zp, axis, block); err != nil {
			return nil, err
		}
		zf = zp.f64()
	}
	sf := scale.f64()
	// The reference divides in the scale's precision (float32 usually).
	div := func(v, s float64) float64 { return v / s }
	if scale.DType != ir.Float64 {
		div = func(v, s float64) float64 { return float64(float32(v) / float32(s)) }
	}
	out, err := c.alloc(to, shape)
	if err != nil {
		return nil, err
	}
	switch out.cls() {
	case clsI:
		lo, hi := intRange(to)
		for i, v := range x {
			q := math.RoundToEven(div(v, sf[si(i)]))
			if zi != nil {
				q += zf[zi(i)]
			}
			out.I[i] = int64(math.Max(lo, math.Min(hi, q)))
		}
	case clsF:
		mf := minifloatFor(to)
		for i, v := range x {
			q := div(v, sf[si(i)])
			if zi != nil {
				q += zf[zi(i)]
			}
			if mf != nil {
				out.F[i] = mf.decode(mf.encode(q, saturate))
			} else {
				out.F[i] = float32(q)
			}
		}
	default:
		return nil, c.Errorf("cannot quantize to %s", to)
	}
	return out, nil
}

func quantAxis(c *Ctx, rank int) (int, error) {
	return normAxis(c.Int("axis", 1), max(rank, 1))
}

func kernelQuantizeLinear(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, scale := in[0], in[1]
	var err error
	zp := optIn(in, 2)
	to := ir.Uint8
	if zp != nil {
		to = zp.DType
	} else if a := c.Attr("output_dtype"); a != nil && a.I != 0 {
		to = ir.DType(a.I)
	}
	if classOf(to) == clsBad {
		return nil, c.unsupported("output type %s", to)
	}
	axis := -1
	if scale.Len() != 1 {
		if axis, err = quantAxis(c, x.Rank()); err != nil {
			return nil, err
		}
	}
	xf := x.f64()
	if xf == nil {
		return nil, c.Errorf("x must be numeric")
	}
	if x.DType == ir.Float32 {
		// The reference divides in float32.
		sf := scale.f64()
		_ = sf
	}
	out, err := quantizeBlock(c, xf, x.Shape, scale, zp, to, axis, int(c.Int("block_size", 0)), c.Int("saturate", 1) != 0)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelDequantizeLinear(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, scale := in[0], in[1]
	var err error
	zp := optIn(in, 2)
	axis := -1
	if scale.Len() != 1 {
		if axis, err = quantAxis(c, x.Rank()); err != nil {
			return nil, err
		}
	}
	vals, err := dequantizeAxis(c, x, scale, zp, axis, int(c.Int("block_size", 0)))
	if err != nil {
		return nil, err
	}
	to := scale.DType
	if a := c.Attr("output_dtype"); a != nil && a.I != 0 {
		to = ir.DType(a.I)
	}
	if !to.IsFloat() || classOf(to) == clsBad {
		return nil, c.Errorf("output type %s", to)
	}
	out, err := c.alloc(to, x.Shape)
	if err != nil {
		return nil, err
	}
	for i, v := range vals {
		out.setF(i, v)
	}
	return []*Tensor{out}, nil
}

func kernelDynamicQuantizeLinear(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	xf := x.f64()
	lo, hi := 0.0, 0.0
	for _, v := range xf {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	scale := float64(float32((hi - lo) / 255))
	zp := 0.0
	if scale != 0 {
		zp = math.Max(0, math.Min(255, math.RoundToEven(0-lo/scale)))
	}
	st := &Tensor{DType: ir.Float32, Shape: []int{}, F: []float32{float32(scale)}}
	zt := &Tensor{DType: ir.Uint8, Shape: []int{}, I: []int64{int64(zp)}}
	if scale == 0 {
		st = &Tensor{DType: ir.Float32, Shape: []int{}, F: []float32{1}}
	}
	y, err := quantize(c, xf, x.Shape, st, zt, ir.Uint8, -1, true)
	if err != nil {
		return nil, err
	}
	return []*Tensor{y, st, zt}, nil
}
