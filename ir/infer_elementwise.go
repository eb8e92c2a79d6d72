package ir

// This file implements inference for elementwise operators: unary math and
// activations, casts, broadcasting binary and variadic operators,
// comparisons and Where. Integer results on small shape tensors carry their
// values (Known) so that Shape -> Gather -> Mul -> Concat -> Reshape chains
// resolve.
//
// Helpers shared by the compute-op files (infer_reduce.go, infer_nn.go,
// infer_matmul.go, infer_rnn.go, infer_quant.go, infer_attention.go) are
// prefixed cx so they cannot collide with other families' helpers.

// cxSameAs sets output out to input in's dtype and shape.
func cxSameAs(c *InferContext, out, in int) {
	c.SetTensor(out, c.InDType(in), c.InShape(in).Clone())
}

// cxUnary infers a unary op whose output has the input's type and shape.
func cxUnary(c *InferContext) error {
	cxSameAs(c, 0, 0)
	return nil
}

// cxUnaryBool infers IsNaN / IsInf: same shape, bool elements.
func cxUnaryBool(c *InferContext) error {
	c.SetTensor(0, Bool, c.InShape(0).Clone())
	return nil
}

// cxNormAxis resolves a possibly negative axis against rank.
func cxNormAxis(axis int64, rank int) (int, error) {
	if axis < -int64(rank) || axis >= int64(rank) {
		return 0, errorf(CodeAxis, "axis %d out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += int64(rank)
	}
	return int(axis), nil
}

// cxFirstDType returns the first defined dtype among the given inputs.
func cxFirstDType(c *InferContext, idx ...int) DType {
	for _, i := range idx {
		if dt := c.InDType(i); dt != Undefined {
			return dt
		}
	}
	return Undefined
}

// cxBroadcastInputs broadcasts the shapes of the present inputs in idx
// (all inputs when idx is empty).
func cxBroadcastInputs(c *InferContext, idx ...int) (Shape, error) {
	if len(idx) == 0 {
		for i := 0; i < c.NumInputs(); i++ {
			idx = append(idx, i)
		}
	}
	var shapes []Shape
	for _, i := range idx {
		if c.HasInput(i) {
			shapes = append(shapes, c.InShape(i))
		}
	}
	if len(shapes) == 0 {
		return UnknownShape(), nil
	}
	return BroadcastShapes(shapes...)
}

// Known-value propagation. Known elements with Sym == "" are literal
// integers (negative ones included); symbolic elements are dims. An
// element that cannot be computed drops the whole result, since an unknown
// element has no representation distinct from the literal -1.

// cxKnownOp combines two known elements; ok=false when it cannot.
type cxKnownOp func(a, b Dim) (Dim, bool)

func cxLit(d Dim) bool { return d.Sym == "" }

// cxSymOK reports whether d can enter symbolic dim arithmetic: a symbol or
// a non-negative literal.
func cxSymOK(d Dim) bool { return d.Sym != "" || d.Val >= 0 }

func cxSymResult(d Dim) (Dim, bool) { return d, !d.IsUnknown() }

var cxKnownOps = map[string]cxKnownOp{
	"Add": func(a, b Dim) (Dim, bool) {
		if cxLit(a) && cxLit(b) {
			return D(a.Val + b.Val), true
		}
		if cxSymOK(a) && cxSymOK(b) {
			return cxSymResult(DimAdd(a, b))
		}
		return Dim{}, false
	},
	"Sub": func(a, b Dim) (Dim, bool) {
		if cxLit(a) && cxLit(b) {
			return D(a.Val - b.Val), true
		}
		if cxSymOK(a) && cxSymOK(b) {
			return cxSymResult(DimSub(a, b))
		}
		return Dim{}, false
	},
	"Mul": func(a, b Dim) (Dim, bool) {
		if cxLit(a) && cxLit(b) {
			return D(a.Val * b.Val), true
		}
		if cxSymOK(a) && cxSymOK(b) {
			return cxSymResult(DimMul(a, b))
		}
		return Dim{}, false
	},
	"Div": func(a, b Dim) (Dim, bool) {
		if cxLit(a) && cxLit(b) {
			if b.Val == 0 {
				return Dim{}, false
			}
			return D(a.Val / b.Val), true // C-style truncation, as runtimes do
		}
		if cxSymOK(a) && cxLit(b) && b.Val > 0 {
			return cxSymResult(DimDiv(a, b))
		}
		if a.Equal(b) {
			return D(1), true
		}
		return Dim{}, false
	},
	"Max": func(a, b Dim) (Dim, bool) {
		if cxLit(a) && cxLit(b) {
			return D(max(a.Val, b.Val)), true
		}
		if a.Equal(b) {
			return a, true
		}
		// A symbolic dim is at least 0 (and in practice at least 1).
		if a.Sym != "" && cxLit(b) && b.Val <= 0 {
			return a, true
		}
		if b.Sym != "" && cxLit(a) && a.Val <= 0 {
			return b, true
		}
		return Dim{}, false
	},
	"Min": func(a, b Dim) (Dim, bool) {
		if cxLit(a) && cxLit(b) {
			return D(min(a.Val, b.Val)), true
		}
		if a.Equal(b) {
			return a, true
		}
		if a.Sym != "" && cxLit(b) && b.Val <= 0 {
			return b, true
		}
		if b.Sym != "" && cxLit(a) && a.Val <= 0 {
			return a, true
		}
		return Dim{}, false
	},
	"Mod": func(a, b Dim) (Dim, bool) {
		if !cxLit(a) || !cxLit(b) || b.Val == 0 {
			return Dim{}, false
		}
		// fmod=0 (the integer default): the result takes the divisor's
		// sign, as in Python. cxBinary handles fmod=1 separately.
		r := a.Val % b.Val
		if r != 0 && (r < 0) != (b.Val < 0) {
			r += b.Val
		}
		return D(r), true
	},
	"Equal":          cxCompare(func(x, y int64) bool { return x == y }, true),
	"Less":           cxCompare(func(x, y int64) bool { return x < y }, false),
	"LessOrEqual":    cxCompare(func(x, y int64) bool { return x <= y }, true),
	"Greater":        cxCompare(func(x, y int64) bool { return x > y }, false),
	"GreaterOrEqual": cxCompare(func(x, y int64) bool { return x >= y }, true),
	"And":            cxLogic(func(x, y bool) bool { return x && y }),
	"Or":             cxLogic(func(x, y bool) bool { return x || y }),
	"Xor":            cxLogic(func(x, y bool) bool { return x != y }),
}

func cxBoolDim(b bool) Dim {
	if b {
		return D(1)
	}
	return D(0)
}

// cxCompare builds a comparison on known elements; same symbolic dims
// compare equal (selfResult for x op x).
func cxCompare(f func(x, y int64) bool, selfResult bool) cxKnownOp {
	return func(a, b Dim) (Dim, bool) {
		if cxLit(a) && cxLit(b) {
			return cxBoolDim(f(a.Val, b.Val)), true
		}
		if a.Equal(b) {
			return cxBoolDim(selfResult), true
		}
		return Dim{}, false
	}
}

func cxLogic(f func(x, y bool) bool) cxKnownOp {
	return func(a, b Dim) (Dim, bool) {
		if cxLit(a) && cxLit(b) {
			return cxBoolDim(f(a.Val != 0, b.Val != 0)), true
		}
		return Dim{}, false
	}
}

// cxKnownBroadcast applies op over the known values of inputs 0 and 1,
// when the output has a static element count n and each operand holds n or
// 1 elements with a rank of at most 1 (the shape-tensor case), or is a
// scalar.
func cxKnownBroadcast(c *InferContext, out Shape, op cxKnownOp) ([]Dim, bool) {
	n, ok := out.NumElements()
	if !ok || n > c.MaxKnown() || out.Rank() > 1 {
		return nil, false
	}
	a, okA := c.Known(0)
	b, okB := c.Known(1)
	if !okA || !okB {
		return nil, false
	}
	if (int64(len(a)) != n && len(a) != 1) || (int64(len(b)) != n && len(b) != 1) {
		return nil, false
	}
	res := make([]Dim, n)
	for i := range res {
		x, y := a[0], b[0]
		if len(a) > 1 {
			x = a[i]
		}
		if len(b) > 1 {
			y = b[i]
		}
		r, ok := op(x, y)
		if !ok {
			return nil, false
		}
		res[i] = r
	}
	return res, true
}

// cxBinary returns an InferFunc for a broadcasting binary op. outDT fixes
// the output dtype (Undefined: the inputs' dtype).
func cxBinary(outDT DType) InferFunc {
	return func(c *InferContext) error {
		var s Shape
		var err error
		if c.Opset < 7 && cxLegacyBroadcastOps[c.Node.Op] {
			// Before opset 7, B broadcasts to A (broadcast=1, aligned at
			// axis), or both have one shape: the result has A's shape.
			s = c.InShape(0).Clone()
			if c.Attr("axis") != nil {
				// Aligned broadcasting: element positions do not line up
				// with numpy's, so no values are propagated.
				c.SetTensor(0, cxFirstDTypeOr(outDT, c), s)
				return nil
			}
		} else if s, err = cxBroadcastInputs(c, 0, 1); err != nil {
			return err
		}
		dt := outDT
		if dt == Undefined {
			dt = cxFirstDType(c, 0, 1)
		}
		c.SetTensor(0, dt, s)
		op := cxKnownOps[c.Node.Op]
		if c.Node.Op == "Mod" && c.AttrInt("fmod", 0) != 0 {
			op = func(a, b Dim) (Dim, bool) {
				if !cxLit(a) || !cxLit(b) || b.Val == 0 {
					return Dim{}, false
				}
				return D(a.Val % b.Val), true
			}
		}
		if op != nil && (dt.IsInt() || dt == Bool) {
			if vals, ok := cxKnownBroadcast(c, s, op); ok {
				c.SetKnown(0, vals)
			}
		}
		return nil
	}
}

// cxLegacyBroadcastOps are the binary ops that had the broadcast / axis
// attributes before opset 7.
var cxLegacyBroadcastOps = map[string]bool{
	"Add": true, "Sub": true, "Mul": true, "Div": true, "Pow": true,
	"And": true, "Or": true, "Xor": true, "Equal": true, "Less": true, "Greater": true,
}

// cxFirstDTypeOr returns dt, or the dtype of inputs 0 / 1 when dt is
// Undefined.
func cxFirstDTypeOr(dt DType, c *InferContext) DType {
	if dt != Undefined {
		return dt
	}
	return cxFirstDType(c, 0, 1)
}

// cxVariadic infers Max/Min/Sum/Mean: broadcast of all inputs.
func cxVariadic(c *InferContext) error {
	s, err := cxBroadcastInputs(c)
	if err != nil {
		return err
	}
	idx := make([]int, c.NumInputs())
	for i := range idx {
		idx[i] = i
	}
	dt := cxFirstDType(c, idx...)
	c.SetTensor(0, dt, s)
	name := c.Node.Op
	if name == "Sum" {
		name = "Add"
	}
	op := cxKnownOps[name]
	if op == nil || !dt.IsInt() {
		return nil
	}
	switch c.NumInputs() {
	case 1:
		if k, ok := c.Known(0); ok {
			c.SetKnown(0, k)
		}
	case 2:
		if vals, ok := cxKnownBroadcast(c, s, op); ok {
			c.SetKnown(0, vals)
		}
	}
	return nil
}

// Where(condition, X, Y): broadcast of all three, X's dtype.
func inferWhere(c *InferContext) error {
	s, err := cxBroadcastInputs(c, 0, 1, 2)
	if err != nil {
		return err
	}
	dt := cxFirstDType(c, 1, 2)
	c.SetTensor(0, dt, s)
	n, ok := s.NumElements()
	if !ok || s.Rank() > 1 || !(dt.IsInt() || dt == Bool) {
		return nil
	}
	var ks [3][]Dim
	for i := range ks {
		k, ok := c.Known(i)
		if !ok || (int64(len(k)) != n && len(k) != 1) {
			return nil
		}
		ks[i] = k
	}
	at := func(k []Dim, i int) Dim {
		if len(k) == 1 {
			return k[0]
		}
		return k[i]
	}
	res := make([]Dim, n)
	for i := range res {
		cond := at(ks[0], i)
		if !cxLit(cond) {
			return nil
		}
		if cond.Val != 0 {
			res[i] = at(ks[1], i)
		} else {
			res[i] = at(ks[2], i)
		}
	}
	c.SetKnown(0, res)
	return nil
}

// Not(X): bool, values negated when known.
func inferNot(c *InferContext) error {
	cxSameAs(c, 0, 0)
	if k, ok := c.Known(0); ok {
		res := make([]Dim, len(k))
		for i, d := range k {
			if !cxLit(d) {
				return nil
			}
			res[i] = cxBoolDim(d.Val == 0)
		}
		c.SetKnown(0, res)
	}
	return nil
}

// Neg / Abs on known integer values.
func inferNegAbs(c *InferContext) error {
	cxSameAs(c, 0, 0)
	k, ok := c.Known(0)
	if !ok || !c.InDType(0).IsInt() {
		return nil
	}
	res := make([]Dim, len(k))
	for i, d := range k {
		switch {
		case c.Node.Op == "Abs" && d.Sym != "":
			res[i] = d // dims are non-negative
		case !cxLit(d):
			return nil
		case c.Node.Op == "Neg":
			res[i] = D(-d.Val)
		default:
			res[i] = D(max(d.Val, -d.Val))
		}
	}
	c.SetKnown(0, res)
	return nil
}

// cxIntRange returns the value range of an integer dtype, ok=false for
// 64-bit and non-integer types (no clamping needed or possible).
func cxIntRange(dt DType) (lo, hi int64, ok bool) {
	if !dt.IsInt() || dt.Bits() >= 64 {
		return 0, 0, false
	}
	b := uint(dt.Bits())
	if dt.IsSigned() {
		return -(1 << (b - 1)), 1<<(b-1) - 1, true
	}
	return 0, 1<<b - 1, true
}

// cxCastKnown carries known values through an integer-to-integer cast
// when they fit the target type.
func cxCastKnown(c *InferContext, to DType) {
	k, ok := c.Known(0)
	from := c.InDType(0)
	if !ok && from.IsFloat() && (to.IsInt() || to == Bool) {
		// A small float constant cast to integers (exporters write shape
		// constants as floats): truncate toward zero, as Cast does.
		if fs, fok := c.ConstFloats(0); fok {
			k = make([]Dim, len(fs))
			for i, f := range fs {
				if f != f || f > 1<<53 || f < -(1<<53) {
					return
				}
				k[i] = D(int64(f))
				if to == Bool {
					k[i] = cxBoolDim(f != 0) // 0.5 is true
				}
			}
			ok, from = true, Int64
		}
	}
	if !ok || !(to.IsInt() || to == Bool) || !(from.IsInt() || from == Bool) {
		return
	}
	lo, hi, bounded := cxIntRange(to)
	res := make([]Dim, len(k))
	for i, d := range k {
		switch {
		case to == Bool:
			if !cxLit(d) {
				return
			}
			res[i] = cxBoolDim(d.Val != 0)
		case d.Sym != "":
			res[i] = d
		case bounded && (d.Val < lo || d.Val > hi):
			return
		default:
			res[i] = d
		}
	}
	c.SetKnown(0, res)
}

// Cast(input) to=dtype.
func inferCast(c *InferContext) error {
	to := DType(c.AttrInt("to", 0))
	if !to.Valid() {
		return c.Errorf(CodeDType, "Cast: invalid 'to' dtype %d", int64(to))
	}
	c.SetTensor(0, to, c.InShape(0).Clone())
	cxCastKnown(c, to)
	return nil
}

// CastLike(input, target_type): input's shape, target's dtype.
func inferCastLike(c *InferContext) error {
	to := c.InDType(1)
	c.SetTensor(0, to, c.InShape(0).Clone())
	cxCastKnown(c, to)
	return nil
}

// BitCast(input) to=dtype (opset 26): the element size may differ, in which
// case the last dim scales (only equal sizes are handled here).
func inferBitCast(c *InferContext) error {
	to := DType(c.AttrInt("to", 0))
	if !to.Valid() {
		return c.Errorf(CodeDType, "BitCast: invalid 'to' dtype %d", int64(to))
	}
	from := c.InDType(0)
	if from != Undefined && from.Bits() != to.Bits() {
		c.SetTensor(0, to, UnknownShape())
		return nil
	}
	c.SetTensor(0, to, c.InShape(0).Clone())
	return nil
}

// cxUnaryOps lists ops (ai.onnx) whose output has the type and shape of
// input 0.
var cxUnaryOps = []string{
	"Abs", "Neg", "Exp", "Log", "Sqrt", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
	"Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Sign", "Not", "Relu", "Sigmoid", "Tanh",
	"Softplus", "Softsign", "HardSigmoid", "Elu", "Selu", "LeakyRelu", "Celu", "Gelu",
	"Mish", "HardSwish", "ThresholdedRelu", "Shrink", "Clip", "Round", "Ceil", "Floor",
	"Reciprocal", "BitwiseNot", "Swish", "Affine", "ImageScaler", "ScaledTanh",
	"ParametricSoftplus", "Scale",
}

func registerInferElementwise() {
	for _, name := range cxUnaryOps {
		f := InferFunc(cxUnary)
		switch name {
		case "Not":
			f = inferNot
		case "Neg", "Abs":
			f = inferNegAbs
		}
		cxRegister(OpDef{Name: name, Infer: f})
	}
	for _, name := range []string{"Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift",
		"BitwiseAnd", "BitwiseOr", "BitwiseXor", "And", "Or", "Xor"} {
		cxRegister(OpDef{Name: name, Infer: cxBinary(Undefined)})
	}
	for _, name := range []string{"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"} {
		cxRegister(OpDef{Name: name, Infer: cxBinary(Bool)})
	}
	for _, name := range []string{"Max", "Min", "Sum", "Mean"} {
		cxRegister(OpDef{Name: name, Infer: cxVariadic})
	}
	cxRegister(
		OpDef{Name: "IsNaN", Infer: cxUnaryBool},
		OpDef{Name: "IsInf", Infer: cxUnaryBool},
		OpDef{Name: "Cast", Infer: inferCast},
		OpDef{Name: "CastLike", Infer: inferCastLike},
		OpDef{Name: "BitCast", Infer: inferBitCast},
		OpDef{Name: "Where", Infer: inferWhere},
		// SwiGLU(A, B) (opset 28): A and B have the same shape.
		OpDef{Name: "SwiGLU", Infer: cxBinary(Undefined)},
		// PRelu(X, slope): slope broadcasts unidirectionally to X.
		OpDef{Name: "PRelu", Infer: cxUnary},
	)
}

// cxOps lists the (domain, name) keys registered by the compute-op files,
// for tests that sweep them.
var cxOps [][2]string

// cxRegister registers op definitions and records their keys in cxOps.
func cxRegister(defs ...OpDef) {
	Register(defs...)
	for _, d := range defs {
		cxOps = append(cxOps, [2]string{d.Domain, d.Name})
	}
}
