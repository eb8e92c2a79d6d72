package eval

// This file implements the 8-bit and 4-bit float formats (float8e4m3fn,
// float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float4e2m1): decoding by
// formula and encoding by nearest-value search with round-half-to-even.

import (
	"math"
	"sort"
	"sync"

	"github.com/wolong-dev/wolong/ir"
)

type minifloat struct {
	exp, mant int
	bias      int
	fnuz      bool // no infinity, no negative zero, NaN is 0x80
	ieee      bool // IEEE-style infinities and NaNs (e5m2)
	noNaN     bool // float4e2m1: every code is finite
	pos       []float64
	max       float64
	next      float64 // the value one step beyond max (overflow marker)
}

// minifloats holds the small float formats' tables, built on first use.
var minifloats = sync.OnceValue(func() map[ir.DType]*minifloat {
	t := map[ir.DType]*minifloat{}
	for dt, f := range map[ir.DType]*minifloat{
		ir.Float8E4M3FN:   {exp: 4, mant: 3, bias: 7},
		ir.Float8E4M3FNUZ: {exp: 4, mant: 3, bias: 8, fnuz: true},
		ir.Float8E5M2:     {exp: 5, mant: 2, bias: 15, ieee: true},
		ir.Float8E5M2FNUZ: {exp: 5, mant: 2, bias: 16, fnuz: true},
		ir.Float4E2M1:     {exp: 2, mant: 1, bias: 1, noNaN: true},
	} {
		f.build()
		t[dt] = f
	}
	return t
})

// floatCodec converts between a small float format's codes and values.
type floatCodec interface {
	decode(b uint8) float32
	encode(x float64, saturate bool) uint8
}

// minifloatFor returns the codec of an 8- or 4-bit float type, or nil.
func minifloatFor(dt ir.DType) floatCodec {
	if dt == ir.Float8E8M0 {
		return e8m0{roundUp: true}
	}
	if f, ok := minifloats()[dt]; ok {
		return f
	}
	return nil
}

// e8m0 is float8e8m0: an unsigned power of two 2^(b-127); 0xFF is NaN.
// Encoding takes float32's exponent field and rounds up (the Cast default,
// round_mode="up") or to nearest when the mantissa is at least half.
type e8m0 struct{ roundUp, nearest bool }

func (e8m0) decode(b uint8) float32 {
	if b == 0xFF {
		return float32(math.NaN())
	}
	return float32(math.Ldexp(1, int(b)-127))
}

func (c e8m0) encode(x float64, saturate bool) uint8 {
	f := float32(x)
	if math.IsNaN(x) {
		return 0xFF
	}
	if math.IsInf(x, 0) {
		if saturate {
			return 0xFE
		}
		return 0xFF
	}
	bits := math.Float32bits(f)
	e := int(bits >> 23 & 0xFF)
	m := bits & 0x7FFFFF
	switch {
	case c.roundUp && m != 0:
		e++
	case c.nearest && m >= 0x400000:
		e++
	}
	if e > 0xFE {
		if saturate {
			return 0xFE
		}
		return 0xFF
	}
	return uint8(e)
}

func (f *minifloat) signBit() uint8 { return 1 << uint(f.exp+f.mant) }

// build tabulates the finite non-negative values in code order.
func (f *minifloat) build() {
	for c := 0; c < int(f.signBit()); c++ {
		v := float64(f.decode(uint8(c)))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			break
		}
		f.pos = append(f.pos, v)
	}
	f.max = f.pos[len(f.pos)-1]
	ulp := math.Ldexp(1, int(math.Floor(math.Log2(f.max)))-f.mant)
	f.next = f.max + ulp
}

func (f *minifloat) decode(b uint8) float32 {
	sign := b & f.signBit()
	e := int(b>>uint(f.mant)) & (1<<uint(f.exp) - 1)
	m := int(b) & (1<<uint(f.mant) - 1)
	eAll := 1<<uint(f.exp) - 1
	mAll := 1<<uint(f.mant) - 1
	switch {
	case f.fnuz && b == 0x80:
		return float32(math.NaN())
	case f.ieee && e == eAll && m == 0:
		if sign != 0 {
			return float32(math.Inf(-1))
		}
		return float32(math.Inf(1))
	case f.ieee && e == eAll:
		return float32(math.NaN())
	case !f.fnuz && !f.ieee && !f.noNaN && e == eAll && m == mAll:
		return float32(math.NaN())
	}
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-f.bias-f.mant)
	} else {
		v = math.Ldexp(1+float64(m)/float64(int(1)<<uint(f.mant)), e-f.bias)
	}
	if sign != 0 {
		v = -v
	}
	return float32(v)
}

func (f *minifloat) nan() uint8 {
	switch {
	case f.fnuz:
		return 0x80
	case f.noNaN:
		return 0x8 // float4e2m1 has no NaN: the reference gives -0
	}
	return 0x7F
}

func (f *minifloat) inf(neg bool) uint8 {
	var s uint8
	if neg {
		s = f.signBit()
	}
	return s | uint8((1<<uint(f.exp)-1)<<uint(f.mant))
}

// encode rounds x to the nearest code (ties to even). With saturate, values
// beyond the range become the largest finite value of the same sign;
// without, they become infinity (e5m2) or NaN.
func (f *minifloat) encode(x float64, saturate bool) uint8 {
	if math.IsNaN(x) {
		return f.nan()
	}
	neg := math.Signbit(x)
	a := math.Abs(x)
	var sign uint8
	if neg {
		sign = f.signBit()
	}
	var code int
	if a >= f.next || math.IsInf(a, 0) {
		code = -1
	} else {
		i := sort.SearchFloat64s(f.pos, a) // first pos[i] >= a
		switch {
		case i == len(f.pos):
			// between max and next: compare the two.
			if d1, d2 := a-f.max, f.next-a; d1 < d2 || (d1 == d2 && (len(f.pos)-1)%2 == 0) {
				code = len(f.pos) - 1
			} else {
				code = -1
			}
		case f.pos[i] == a || i == 0:
			code = i
		default:
			lo, hi := f.pos[i-1], f.pos[i]
			if d1, d2 := a-lo, hi-a; d1 < d2 || (d1 == d2 && (i-1)%2 == 0) {
				code = i - 1
			} else {
				code = i
			}
		}
	}
	if code < 0 {
		switch {
		case saturate || f.noNaN:
			code = len(f.pos) - 1
		case f.ieee:
			return f.inf(neg)
		default:
			return f.nan()
		}
	}
	if code == 0 && f.fnuz {
		return 0
	}
	return sign | uint8(code)
}
