package eval

// This file implements Cast and CastLike.

import (
	"math"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

func registerCast() {
	register(func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		a := c.Attr("to")
		if a == nil || a.Type != ir.AttrInt {
			return nil, c.Errorf("missing attribute to")
		}
		out, err := castTensor(c, x, ir.DType(a.I), c.Int("saturate", 1) != 0)
		if err != nil {
			return nil, err
		}
		return []*Tensor{out}, nil
	}, "Cast")
	register(func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x, like := in[0], in[1]
		out, err := castTensor(c, x, like.DType, c.Int("saturate", 1) != 0)
		if err != nil {
			return nil, err
		}
		return []*Tensor{out}, nil
	}, "CastLike")
}

// formatFloat prints a float the way ONNX's reference Cast does.
func formatFloat(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "INF"
	case math.IsInf(v, -1):
		return "-INF"
	}
	s := strconv.FormatFloat(v, 'g', -1, bits)
	// numpy prints exponents with at least two digits ("1e-05").
	if i := strings.IndexAny(s, "e"); i >= 0 {
		exp := s[i+1:]
		sign := ""
		if exp[0] == '-' || exp[0] == '+' {
			sign, exp = exp[:1], exp[1:]
		}
		if len(exp) < 2 {
			exp = "0" + exp
		}
		s = s[:i+1] + sign + exp
	}
	return s
}

func parseFloat(s string) float64 {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1)
	case "-inf", "-infinity":
		return math.Inf(-1)
	case "nan", "+nan", "-nan":
		return math.NaN()
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// castTensor converts x to type to.
func castTensor(c *Ctx, x *Tensor, to ir.DType, saturate bool) (*Tensor, error) {
	if classOf(to) == clsBad {
		return nil, c.unsupported("cast to %s", to)
	}
	out, err := c.alloc(to, x.Shape)
	if err != nil {
		return nil, err
	}
	n := x.Len()
	if x.DType == to {
		copyData(out, x)
		return out, nil
	}
	switch out.cls() {
	case clsS:
		for i := 0; i < n; i++ {
			switch x.cls() {
			case clsF:
				bits := 32
				out.S[i] = formatFloat(float64(x.F[i]), bits)
			case clsD:
				out.S[i] = formatFloat(x.D[i], 64)
			case clsI:
				if x.DType == ir.Uint64 {
					out.S[i] = strconv.FormatUint(uint64(x.I[i]), 10)
				} else {
					out.S[i] = strconv.FormatInt(x.I[i], 10)
				}
			case clsB:
				out.S[i] = "0"
				if x.B[i] {
					out.S[i] = "1"
				}
			}
		}
		return out, nil
	case clsB:
		if x.cls() == clsS {
			for i, s := range x.S {
				out.B[i] = parseFloat(s) != 0
			}
			return out, nil
		}
		for i, v := range x.f64() {
			out.B[i] = v != 0
		}
		return out, nil
	}
	var f []float64
	switch x.cls() {
	case clsS:
		f = make([]float64, n)
		for i, s := range x.S {
			f[i] = parseFloat(s)
		}
	case clsI:
		if out.cls() == clsI {
			for i, v := range x.I {
				out.I[i] = castIntToInt(v, x.DType, to)
			}
			return out, nil
		}
		f = x.f64()
	default:
		f = x.f64()
	}
	switch out.cls() {
	case clsD:
		copy(out.D, f)
	case clsF:
		if mf := minifloatFor(to); mf != nil {
			if to == ir.Float8E8M0 {
				switch c.Str("round_mode", "up") {
				case "down":
					mf = e8m0{}
				case "nearest":
					mf = e8m0{nearest: true}
				}
			}
			for i, v := range f {
				out.F[i] = mf.decode(mf.encode(v, saturate))
			}
		} else if to == ir.Float16 && x.DType == ir.Float64 {
			// Round once, from the float64 value, through float32 only when exact.
			for i, v := range f {
				out.F[i] = roundHalf64(v)
			}
		} else {
			for i, v := range f {
				out.F[i] = float32(v)
			}
		}
	case clsI:
		small := to.Bits() < 8
		for i, v := range f {
			switch {
			case small:
				out.I[i] = wrapInt(to, int64(v))
			case math.IsNaN(v):
				out.I[i] = 0
			case to == ir.Uint64 && v >= 0:
				if v >= 18446744073709551615 {
					out.I[i] = -1
				} else {
					out.I[i] = int64(uint64(v))
				}
			case v >= 9.2e18:
				out.I[i] = math.MaxInt64
			case v <= -9.2e18:
				out.I[i] = math.MinInt64
			default:
				out.I[i] = int64(v)
			}
		}
	}
	return out, nil
}

// castIntToInt converts between integer types (sub-byte targets saturate,
// others wrap, as numpy does).
func castIntToInt(v int64, from, to ir.DType) int64 {
	return wrapInt(to, v)
}

// roundHalf64 rounds a float64 to the nearest float16 value directly.
func roundHalf64(v float64) float32 {
	f := float32(v)
	h := ir.Float32ToHalf(f)
	r := ir.HalfToFloat32(h)
	if float64(f) == v || math.IsNaN(v) || math.IsInf(v, 0) {
		return r
	}
	// Double rounding can only go wrong at an exact half-way point of f.
	lo, hi := r, r
	if float64(r) < v {
		hi = ir.HalfToFloat32(h + 1)
		if math.Signbit(v) {
			hi = ir.HalfToFloat32(h - 1)
		}
	} else {
		lo = ir.HalfToFloat32(h - 1)
		if math.Signbit(v) {
			lo = ir.HalfToFloat32(h + 1)
		}
	}
	if math.Abs(float64(lo)-v) < math.Abs(float64(hi)-v) {
		return lo
	}
	if math.Abs(float64(hi)-v) < math.Abs(float64(lo)-v) {
		return hi
	}
	return r
}
