package eval

// This file implements elementwise ops: unary math, binary arithmetic with
// broadcasting, comparisons, logic, bitwise ops, variadic Sum/Mean/Max/Min,
// Where, Clip and the activation functions.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerElementwise() {
	for name, f := range map[string]func(float64) float64{
		"Sqrt": math.Sqrt, "Exp": math.Exp, "Log": math.Log, "Sin": math.Sin, "Cos": math.Cos, "Tan": math.Tan,
		"Asin": math.Asin, "Acos": math.Acos, "Atan": math.Atan, "Sinh": math.Sinh, "Cosh": math.Cosh,
		"Asinh": math.Asinh, "Acosh": math.Acosh, "Atanh": math.Atanh, "Tanh": math.Tanh,
		"Floor": math.Floor, "Ceil": math.Ceil, "Round": math.RoundToEven,
		"Reciprocal": func(x float64) float64 { return 1 / x },
		"Sigmoid":    sigmoid,
		"Softsign":   func(x float64) float64 { return x / (1 + math.Abs(x)) },
		"Softplus":   softplus,
		"Mish":       func(x float64) float64 { return x * math.Tanh(softplus(x)) },
		"HardSwish":  func(x float64) float64 { return x * math.Max(0, math.Min(1, x/6+0.5)) },
	} {
		register(unaryFloat(f), name)
	}
	// Erf takes every numeric type (an integer input gives erf truncated,
	// as the ONNX reference casts it back); the ops above take floats.
	register(unaryNumC(func(*Ctx) func(float64) float64 { return math.Erf }), "Erf")
	register(unaryFloatC(func(c *Ctx) func(float64) float64 {
		alpha := float64(c.Float("alpha", 1))
		return func(x float64) float64 {
			if x < 0 {
				return alpha * (math.Exp(x) - 1)
			}
			return x
		}
	}), "Elu")
	register(unaryFloatC(func(c *Ctx) func(float64) float64 {
		alpha := float64(c.Float("alpha", 1))
		return func(x float64) float64 { return math.Max(0, x) + math.Min(0, alpha*(math.Exp(x/alpha)-1)) }
	}), "Celu")
	register(unaryFloatC(func(c *Ctx) func(float64) float64 {
		alpha := float64(c.Float("alpha", 1.67326319217681884765625))
		gamma := float64(c.Float("gamma", 1.05070102214813232421875))
		return func(x float64) float64 {
			if x <= 0 {
				return gamma * (alpha*math.Exp(x) - alpha)
			}
			return gamma * x
		}
	}), "Selu")
	register(unaryFloatC(func(c *Ctx) func(float64) float64 {
		alpha := float64(c.Float("alpha", 0.01))
		return func(x float64) float64 {
			if x < 0 {
				return alpha * x
			}
			return x
		}
	}), "LeakyRelu")
	register(unaryFloatC(func(c *Ctx) func(float64) float64 {
		alpha := float64(c.Float("alpha", 1))
		return func(x float64) float64 {
			if x > alpha {
				return x
			}
			return 0
		}
	}), "ThresholdedRelu")
	register(unaryFloatC(func(c *Ctx) func(float64) float64 {
		alpha, beta := float64(c.Float("alpha", 0.2)), float64(c.Float("beta", 0.5))
		return func(x float64) float64 { return math.Max(0, math.Min(1, alpha*x+beta)) }
	}), "HardSigmoid")
	register(unaryFloatC(func(c *Ctx) func(float64) float64 {
		alpha := float64(c.Float("alpha", 1))
		return func(x float64) float64 { return x * sigmoid(alpha*x) }
	}), "Swish")
	register(unaryFloatC(func(c *Ctx) func(float64) float64 {
		if c.Str("approximate", "none") == "tanh" {
			return func(x float64) float64 {
				return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
			}
		}
		return func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }
	}), "Gelu")
	register(unaryNumC(func(c *Ctx) func(float64) float64 {
		bias, lambd := float64(c.Float("bias", 0)), float64(c.Float("lambd", 0.5))
		return func(x float64) float64 {
			switch {
			case x < -lambd:
				return x + bias
			case x > lambd:
				return x - bias
			}
			return 0
		}
	}), "Shrink")
	register(unaryNum(math.Abs, func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}), "Abs")
	register(unaryNum(func(x float64) float64 { return -x }, func(v int64) int64 { return -v }), "Neg")
	register(unaryNum(func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x
	}, func(v int64) int64 {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	}), "Sign")
	register(unaryNum(func(x float64) float64 { return math.Max(x, 0) }, func(v int64) int64 { return max(v, 0) }), "Relu")

	register(binaryOp(func(a, b float64) float64 { return a + b }, func(dt ir.DType, a, b int64) int64 { return a + b }), "Add")
	register(binaryOp(func(a, b float64) float64 { return a - b }, func(dt ir.DType, a, b int64) int64 { return a - b }), "Sub")
	register(binaryOp(func(a, b float64) float64 { return a * b }, func(dt ir.DType, a, b int64) int64 { return a * b }), "Mul")
	register(binaryOp(func(a, b float64) float64 { return a / b }, intDiv), "Div")
	register(kernelPow, "Pow")
	register(kernelMod, "Mod")
	register(kernelPRelu, "PRelu")
	register(bitwise(func(a, b int64) int64 { return a & b }), "BitwiseAnd")
	register(bitwise(func(a, b int64) int64 { return a | b }), "BitwiseOr")
	register(bitwise(func(a, b int64) int64 { return a ^ b }), "BitwiseXor")
	register(kernelBitShift, "BitShift")
	register(func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		return mapElems(c, in[0], intsOf, func(v int64) int64 { return ^v })
	}, "BitwiseNot")

	register(compare(func(o int) bool { return o == 0 }, true), "Equal")
	register(compare(func(o int) bool { return o < 0 }, false), "Less")
	register(compare(func(o int) bool { return o <= 0 }, false), "LessOrEqual")
	register(compare(func(o int) bool { return o > 0 }, false), "Greater")
	register(compare(func(o int) bool { return o >= 0 }, false), "GreaterOrEqual")
	register(logical(func(a, b bool) bool { return a && b }), "And")
	register(logical(func(a, b bool) bool { return a || b }), "Or")
	register(logical(func(a, b bool) bool { return a != b }), "Xor")
	register(func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		return mapElems(c, in[0], boolsOf, func(v bool) bool { return !v })
	}, "Not")
	register(func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		return floatPredicate(c, in, math.IsNaN)
	}, "IsNaN")
	register(func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		pos, neg := c.Int("detect_positive", 1) != 0, c.Int("detect_negative", 1) != 0
		return floatPredicate(c, in, func(x float64) bool { return pos && math.IsInf(x, 1) || neg && math.IsInf(x, -1) })
	}, "IsInf")

	register(variadic(func(a, b float64) float64 { return a + b }, func(a, b int64) int64 { return a + b }, false), "Sum")
	register(variadic(func(a, b float64) float64 { return a + b }, nil, true), "Mean")
	register(variadic(fmax, func(a, b int64) int64 { return max(a, b) }, false), "Max")
	register(variadic(fmin, func(a, b int64) int64 { return min(a, b) }, false), "Min")
	register(kernelWhere, "Where")
	register(kernelClip, "Clip")
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// fmax and fmin propagate NaN, as numpy's maximum does.
func fmax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

func fmin(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}

func unaryFloat(f func(float64) float64) Kernel {
	return unaryFloatC(func(*Ctx) func(float64) float64 { return f })
}

func unaryFloatC(mk func(c *Ctx) func(float64) float64) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		return mapFloat(c, x, mk(c))
	}
}

func mapFloat(c *Ctx, x *Tensor, f func(float64) float64) ([]*Tensor, error) {
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	if x.cls() == clsD {
		for i, v := range x.D {
			out.D[i] = f(v)
		}
	} else {
		for i, v := range x.F {
			out.F[i] = float32(f(float64(v)))
		}
	}
	return []*Tensor{out}, nil
}

func unaryNum(ff func(float64) float64, fi func(int64) int64) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		if x.cls() == clsI && fi != nil {
			out, err := c.alloc(x.DType, x.Shape)
			if err != nil {
				return nil, err
			}
			for i, v := range x.I {
				out.I[i] = fi(v)
			}
			if x.DType == ir.Uint64 || x.DType == ir.Uint32 || x.DType == ir.Uint16 || x.DType == ir.Uint8 {
				copy(out.I, x.I) // Abs, Relu of unsigned values are the identity; Neg wraps
				if c.Node.Is(ir.OpNeg) {
					for i, v := range x.I {
						out.I[i] = -v
					}
				}
				if c.Node.Is(ir.OpSign) {
					for i, v := range x.I {
						out.I[i] = 0
						if v != 0 {
							out.I[i] = 1
						}
					}
				}
			}
			return []*Tensor{out}, nil
		}
		if !isFloatCls(x) {
			return nil, c.Errorf("input must be numeric, got %s", x)
		}
		return mapFloat(c, x, ff)
	}
}

func unaryNumC(mk func(c *Ctx) func(float64) float64) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		f := mk(c)
		if x.cls() == clsI {
			out, err := c.alloc(x.DType, x.Shape)
			if err != nil {
				return nil, err
			}
			for i, v := range x.I {
				out.I[i] = int64(f(float64(v)))
			}
			return []*Tensor{out}, nil
		}
		if !isFloatCls(x) {
			return nil, c.Errorf("input must be numeric, got %s", x)
		}
		return mapFloat(c, x, f)
	}
}

func isUnsigned(dt ir.DType) bool { return dt.IsInt() && !dt.IsSigned() }

func intDiv(dt ir.DType, a, b int64) int64 {
	if b == 0 {
		return 0
	}
	if dt == ir.Uint64 {
		return int64(uint64(a) / uint64(b))
	}
	return a / b
}

// binaryOperands checks and broadcasts two operands.
func binaryOperands(c *Ctx, in []*Tensor, sameType bool) (a, b *Tensor, shape, ia, ib []int, err error) {
	if a, err = need(in, 0, "A"); err != nil {
		return
	}
	if b, err = need(in, 1, "B"); err != nil {
		return
	}
	if sameType && a.DType != b.DType {
		err = c.Errorf("operands have different types %s and %s", a.DType, b.DType)
		return
	}
	if shape, err = broadcastShapes(a.Shape, b.Shape); err != nil {
		return
	}
	if err = c.check(a.DType, shape); err != nil {
		return
	}
	return a, b, shape, bcastIndex(shape, a.Shape), bcastIndex(shape, b.Shape), nil
}

// binaryAlloc checks and broadcasts two operands (of one type when
// sameType) and allocates the output, of type dt, or of the operands'
// type when dt is Undefined.
func binaryAlloc(c *Ctx, in []*Tensor, sameType bool, dt ir.DType) (a, b, out *Tensor, ia, ib []int, err error) {
	var shape []int
	if a, b, shape, ia, ib, err = binaryOperands(c, in, sameType); err != nil {
		return
	}
	if dt == ir.Undefined {
		dt = a.DType
	}
	out, err = c.alloc(dt, shape)
	return
}

// zipKernel is the kernel of a binary op over two operands of one type,
// broadcast: body fills out (of type dt, or the operands' type when dt is
// Undefined) from a and b at the broadcast picks ia and ib.
func zipKernel(dt ir.DType, body func(c *Ctx, a, b, out *Tensor, ia, ib []int) error) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		a, b, out, ia, ib, err := binaryAlloc(c, in, true, dt)
		if err != nil {
			return nil, err
		}
		if err := body(c, a, b, out, ia, ib); err != nil {
			return nil, err
		}
		return []*Tensor{out}, nil
	}
}

// mapElems returns a tensor of x's type and shape whose elements are f
// of x's, in the storage slice at picks.
func mapElems[T any](c *Ctx, x *Tensor, at func(*Tensor) []T, f func(T) T) ([]*Tensor, error) {
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	dst := at(out)
	for i, v := range at(x) {
		dst[i] = f(v)
	}
	return []*Tensor{out}, nil
}

func binaryOp(ff func(a, b float64) float64, fi func(dt ir.DType, a, b int64) int64) Kernel {
	return zipKernel(ir.Undefined, func(c *Ctx, a, b, out *Tensor, ia, ib []int) error {
		switch a.cls() {
		case clsF:
			zipBroadcast(out.F, a.F, ia, b.F, ib, func(x, y float32) float32 { return float32(ff(float64(x), float64(y))) })
		case clsD:
			zipBroadcast(out.D, a.D, ia, b.D, ib, ff)
		case clsI:
			zipBroadcast(out.I, a.I, ia, b.I, ib, func(x, y int64) int64 { return fi(a.DType, x, y) })
		default:
			return c.Errorf("operands must be numeric, got %s", a)
		}
		return nil
	})
}

func kernelPow(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	a, b, out, ia, ib, err := binaryAlloc(c, in, false, ir.Undefined)
	if err != nil {
		return nil, err
	}
	if a.cls() == clsI && b.cls() == clsI {
		zipBroadcast(out.I, a.I, ia, b.I, ib, ipow)
		return []*Tensor{out}, nil
	}
	af, bf := a.f64(), b.f64()
	if af == nil || bf == nil {
		return nil, c.Errorf("operands must be numeric, got %s and %s", a, b)
	}
	for k := 0; k < out.Len(); k++ {
		v := math.Pow(af[at(ia, k)], bf[at(ib, k)])
		switch out.cls() {
		case clsI:
			out.I[k] = int64(v)
		default:
			out.setF(k, v)
		}
	}
	return []*Tensor{out}, nil
}

func ipow(a, b int64) int64 {
	if b < 0 {
		if a == 1 {
			return 1
		}
		if a == -1 {
			if b%2 == 0 {
				return 1
			}
			return -1
		}
		return 0
	}
	r := int64(1)
	for ; b > 0; b >>= 1 {
		if b&1 == 1 {
			r *= a
		}
		a *= a
	}
	return r
}

func kernelMod(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	fmod := c.Int("fmod", 0) != 0
	return binaryOp(func(a, b float64) float64 {
		if fmod {
			return math.Mod(a, b)
		}
		r := math.Mod(a, b)
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r
	}, func(dt ir.DType, a, b int64) int64 {
		if b == 0 {
			return 0
		}
		if dt == ir.Uint64 {
			return int64(uint64(a) % uint64(b))
		}
		r := a % b
		if !fmod && r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r
	})(c, in)
}

// zipSame is the kernel of a binary op over two operands of one type,
// broadcast, with an output of that type: f of their elements in the
// storage slice at picks.
func zipSame[T any](at func(*Tensor) []T, f func(a, b T) T) Kernel {
	return zipKernel(ir.Undefined, func(_ *Ctx, a, b, out *Tensor, ia, ib []int) error {
		zipBroadcast(at(out), at(a), ia, at(b), ib, f)
		return nil
	})
}

// The storage slices of the integer and bool classes, for mapElems and
// zipSame.
func intsOf(t *Tensor) []int64 { return t.I }
func boolsOf(t *Tensor) []bool { return t.B }

func bitwise(f func(a, b int64) int64) Kernel { return zipSame(intsOf, f) }

func kernelBitShift(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	left := c.Str("direction", "") == "LEFT"
	if d := c.Str("direction", ""); d != "LEFT" && d != "RIGHT" {
		return nil, c.Errorf("direction must be LEFT or RIGHT, got %q", d)
	}
	return bitwise(func(a, b int64) int64 {
		if b < 0 || b >= 64 {
			return 0
		}
		if left {
			return a << uint(b)
		}
		return int64(uint64(a) >> uint(b))
	})(c, in)
}

// cmpInt orders two integers of type dt.
func cmpInt(dt ir.DType, a, b int64) int {
	if dt == ir.Uint64 {
		return order(uint64(a), uint64(b))
	}
	return order(a, b)
}

// cmpFloat is order for floats: 0 when either is NaN (callers that must
// not see NaN as equal check for it first).
func cmpFloat(a, b float64) int { return order(a, b) }

// order is -1, 0 or 1 as a is below, equal to or above b.
func order[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compare(pred func(int) bool, eq bool) Kernel {
	return zipKernel(ir.Bool, func(c *Ctx, a, b, out *Tensor, ia, ib []int) error {
		switch a.cls() {
		case clsF:
			zipBroadcast(out.B, a.F, ia, b.F, ib, func(x, y float32) bool {
				return x == x && y == y && pred(cmpFloat(float64(x), float64(y)))
			})
		case clsD:
			zipBroadcast(out.B, a.D, ia, b.D, ib, func(x, y float64) bool {
				return x == x && y == y && pred(cmpFloat(x, y))
			})
		case clsI:
			zipBroadcast(out.B, a.I, ia, b.I, ib, func(x, y int64) bool { return pred(cmpInt(a.DType, x, y)) })
		case clsB:
			zipBroadcast(out.B, a.B, ia, b.B, ib, func(x, y bool) bool {
				o := 0
				if x != y {
					o = 1
					if !x {
						o = -1
					}
				}
				return pred(o)
			})
		case clsS:
			if !eq {
				return c.Errorf("cannot order strings")
			}
			zipBroadcast(out.B, a.S, ia, b.S, ib, func(x, y string) bool {
				o := 1
				if x == y {
					o = 0
				}
				return pred(o)
			})
		}
		return nil
	})
}

func logical(f func(a, b bool) bool) Kernel { return zipSame(boolsOf, f) }

func floatPredicate(c *Ctx, in []*Tensor, f func(float64) bool) ([]*Tensor, error) {
	x := in[0]
	out, err := c.alloc(ir.Bool, x.Shape)
	if err != nil {
		return nil, err
	}
	for i, v := range x.f64() {
		out.B[i] = f(v)
	}
	return []*Tensor{out}, nil
}

func variadic(ff func(a, b float64) float64, fi func(a, b int64) int64, mean bool) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		var ts []*Tensor
		for _, t := range in {
			if t != nil {
				ts = append(ts, t)
			}
		}
		if len(ts) == 0 {
			return nil, c.Errorf("needs at least one input")
		}
		shapes := make([][]int, len(ts))
		for i, t := range ts {
			if t.DType != ts[0].DType {
				return nil, c.Errorf("inputs have different types %s and %s", ts[0].DType, t.DType)
			}
			shapes[i] = t.Shape
		}
		shape, err := broadcastShapes(shapes...)
		if err != nil {
			return nil, err
		}
		out, err := c.alloc(ts[0].DType, shape)
		if err != nil {
			return nil, err
		}
		switch out.cls() {
		case clsF, clsD:
			acc := make([]float64, out.Len())
			for j, t := range ts {
				zipBroadcast(acc, acc, nil, t.f64(), bcastIndex(shape, t.Shape), firstOr(j, ff))
			}
			for k, v := range acc {
				if mean {
					v /= float64(len(ts))
				}
				out.setF(k, v)
			}
		case clsI:
			if fi == nil {
				return nil, c.unsupported("integer inputs")
			}
			for j, t := range ts {
				zipBroadcast(out.I, out.I, nil, t.I, bcastIndex(shape, t.Shape), firstOr(j, fi))
			}
		default:
			return nil, c.Errorf("inputs must be numeric, got %s", ts[0])
		}
		return []*Tensor{out}, nil
	}
}

// firstOr returns f, or for the first operand (j == 0) a function that
// takes it as it is: a fold of a variadic op starts from its first input.
func firstOr[T any](j int, f func(acc, x T) T) func(acc, x T) T {
	if j == 0 {
		return func(_, x T) T { return x }
	}
	return f
}

func kernelWhere(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	cond, x, y := in[0], in[1], in[2]
	if x.DType != y.DType {
		return nil, c.Errorf("X and Y have different types %s and %s", x.DType, y.DType)
	}
	shape, err := broadcastShapes(cond.Shape, x.Shape, y.Shape)
	if err != nil {
		return nil, err
	}
	out, err := c.alloc(x.DType, shape)
	if err != nil {
		return nil, err
	}
	ic, ix, iy := bcastIndex(shape, cond.Shape), bcastIndex(shape, x.Shape), bcastIndex(shape, y.Shape)
	for k := 0; k < out.Len(); k++ {
		if cond.B[at(ic, k)] {
			copyElem(out, k, x, at(ix, k))
		} else {
			copyElem(out, k, y, at(iy, k))
		}
	}
	return []*Tensor{out}, nil
}

func kernelClip(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var err error
	lo, hi := math.Inf(-1), math.Inf(1)
	if c.Opset < 11 {
		lo, hi = float64(c.Float("min", float32(math.Inf(-1)))), float64(c.Float("max", float32(math.Inf(1))))
	} else {
		if len(in) > 1 && in[1] != nil {
			if lo, err = scalarFloat(in[1], "min"); err != nil {
				return nil, err
			}
		}
		if len(in) > 2 && in[2] != nil {
			if hi, err = scalarFloat(in[2], "max"); err != nil {
				return nil, err
			}
		}
	}
	if x.cls() == clsI {
		out, err := c.alloc(x.DType, x.Shape)
		if err != nil {
			return nil, err
		}
		for i, v := range x.I {
			f := float64(v)
			switch {
			case f < lo:
				out.I[i] = int64(lo)
			case f > hi:
				out.I[i] = int64(hi)
			default:
				out.I[i] = v
			}
		}
		return []*Tensor{out}, nil
	}
	if !isFloatCls(x) {
		return nil, c.Errorf("input must be numeric, got %s", x)
	}
	return mapFloat(c, x, func(v float64) float64 {
		if v < lo {
			v = lo
		}
		if v > hi {
			v = hi
		}
		return v
	})
}

func kernelPRelu(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, slope := in[0], in[1]
	// Before opset 7 a 1-D slope applies per channel (axis 1).
	if _, err := broadcastShapes(x.Shape, slope.Shape); err != nil && slope.Rank() == 1 && x.Rank() >= 2 && slope.Len() == x.Shape[1] {
		shape := make([]int, x.Rank()-1)
		for i := range shape {
			shape[i] = 1
		}
		shape[0] = slope.Len()
		slope = slope.reshaped(shape)
	}
	return binaryOp(func(a, b float64) float64 {
		if a < 0 {
			return a * b
		}
		return a
	}, func(dt ir.DType, a, b int64) int64 {
		if a < 0 {
			return a * b
		}
		return a
	})(c, []*Tensor{x, slope})
}
