package ir

// This file implements inference of the generator ops (Constant,
// ConstantOfShape, Range, EyeLike, the Random* family, Multinomial,
// Bernoulli), the optional-type ops, the string and image-decoding ops
// (StringNormalizer, RegexFullMatch, StringConcat, StringSplit,
// TfIdfVectorizer, ImageDecoder) and the ai.onnx.preview.training
// optimizers (Adagrad, Adam, Momentum), whose outputs mirror their inputs.

import (
	"math"
	"math/big"
)

func registerInferGenerator() {
	Register(
		OpDef{Name: "Constant", Infer: inferConstant},
		OpDef{Name: "ConstantOfShape", Infer: inferConstantOfShape},
		OpDef{Name: "Range", Infer: inferRange},
		OpDef{Name: "EyeLike", Infer: inferLikeWithDType("dtype")},
		OpDef{Name: "RandomNormalLike", Infer: inferLikeWithDType("dtype")},
		OpDef{Name: "RandomUniformLike", Infer: inferLikeWithDType("dtype")},
		OpDef{Name: "Bernoulli", Infer: inferLikeWithDType("dtype")},
		OpDef{Name: "RandomNormal", Infer: inferRandom},
		OpDef{Name: "RandomUniform", Infer: inferRandom},
		OpDef{Name: "Multinomial", Infer: inferMultinomial},
		OpDef{Name: "Optional", Infer: inferOptional},
		OpDef{Name: "OptionalHasElement", Infer: inferOptionalHasElement},
		OpDef{Name: "OptionalGetElement", Infer: inferOptionalGetElement},
		OpDef{Name: "ImageDecoder", Infer: inferImageDecoder},
		OpDef{Name: "StringNormalizer", Infer: inferStringNormalizer},
		OpDef{Name: "RegexFullMatch", Infer: inferRegexFullMatch},
		OpDef{Name: "StringConcat", Infer: inferStringConcat},
		OpDef{Name: "StringSplit", Infer: inferStringSplit},
		OpDef{Name: "TfIdfVectorizer", Infer: inferTfIdf},
		OpDef{Domain: "ai.onnx.preview.training", Name: "Adagrad", Infer: inferOptimizer(2)},
		OpDef{Domain: "ai.onnx.preview.training", Name: "Momentum", Infer: inferOptimizer(2)},
		OpDef{Domain: "ai.onnx.preview.training", Name: "Gradient", Infer: inferGradient},
		OpDef{Domain: "ai.onnx.preview.training", Name: "Adam", Infer: inferOptimizer(3)},
	)
}

// constantTensor returns the tensor a Constant node defines, from whichever
// value* attribute it carries.
func constantTensor(c *InferContext) (*Tensor, error) {
	for _, a := range c.Node.Attrs {
		switch a.Name {
		case "value":
			if a.T == nil {
				return nil, c.Errorf(CodeAttr, "attribute value has no tensor")
			}
			return a.T, nil
		case "value_float":
			return (&Tensor{DType: Float32}).SetFloats([]float32{a.F}), nil
		case "value_floats":
			return (&Tensor{DType: Float32, Dims: []int64{int64(len(a.Floats))}}).SetFloats(a.Floats), nil
		case "value_int":
			return (&Tensor{DType: Int64}).SetInt64s([]int64{a.I}), nil
		case "value_ints":
			return (&Tensor{DType: Int64, Dims: []int64{int64(len(a.Ints))}}).SetInt64s(a.Ints), nil
		case "value_string":
			return (&Tensor{DType: String}).SetStrings([][]byte{a.S}), nil
		case "value_strings":
			return (&Tensor{DType: String, Dims: []int64{int64(len(a.Strings))}}).SetStrings(a.Strings), nil
		}
	}
	return nil, nil
}

// Constant(value | value_float(s) | value_int(s) | value_string(s) |
// sparse_value).
func inferConstant(c *InferContext) error {
	if a := c.Attr("sparse_value"); a != nil {
		if a.ST == nil || a.ST.Values == nil {
			return c.Errorf(CodeAttr, "sparse_value has no values")
		}
		for _, d := range a.ST.Dims {
			if d < 0 {
				return c.Errorf(CodeValue, "sparse_value has negative dim %d", d)
			}
		}
		c.SetTensor(0, a.ST.Values.DType, ShapeOf(a.ST.Dims...))
		return nil
	}
	t, err := constantTensor(c)
	if err != nil {
		return err
	}
	if t == nil {
		return c.Errorf(CodeAttr, "no value attribute")
	}
	if _, ok := t.NumElements(); !ok {
		return c.Errorf(CodeValue, "invalid dims %v", t.Dims)
	}
	c.SetConst(0, t)
	return nil
}

// ConstantOfShape(input) with value (one-element tensor, default float32
// 0): a tensor of the given shape.
func inferConstantOfShape(c *InferContext) error {
	dt := smAttrTensorDType(c, "value", Float32)
	dims, ok := smKnownDims(c, 0)
	if !ok {
		if s := c.InShape(0); s.Rank() == 1 && s.Dims[0].IsConcrete() {
			c.SetTensor(0, dt, smRankShape(s.Dims[0].Val))
		} else {
			c.SetTensor(0, dt, UnknownShape())
		}
		return nil
	}
	out := make([]Dim, len(dims))
	for i, d := range dims {
		if d.Sym == "" && d.Val < 0 {
			c.SetTensor(0, dt, RankShape(len(dims)))
			return c.Errorf(CodeValue, "negative dim %d", d.Val)
		}
		out[i] = d
	}
	s := DimsShape(out...)
	c.SetTensor(0, dt, s)
	if n, ok := s.NumElements(); ok && n <= c.MaxKnown() && (dt.IsInt() || dt == Bool) {
		v := int64(0)
		if t := c.Node.AttrTensor("value"); t != nil {
			if vals, err := t.Int64Values(1); err == nil && len(vals) == 1 {
				v = vals[0]
			} else {
				return nil
			}
		}
		k := make([]Dim, n)
		for i := range k {
			k[i] = Dim{Val: v}
		}
		c.SetKnown(0, k)
	}
	return nil
}

// Range(start, limit, delta) -> [max(ceil((limit-start)/delta), 0)].
func inferRange(c *InferContext) error {
	dt := c.InDType(0)
	// Integer inputs: exact arithmetic, symbolic limit allowed.
	st, okS := smInt(c, 0)
	de, okD := smInt(c, 2)
	if lim, ok := smKnownDims(c, 1); ok && len(lim) == 1 && okS && okD && dt.IsInt() {
		l := lim[0]
		if de == 0 {
			c.SetTensor(0, dt, DimsShape(Unknown()))
			return c.Errorf(CodeValue, "delta is 0")
		}
		if l.Sym != "" {
			n := Unknown()
			if de == 1 && st == 0 {
				n = l
			} else if de == 1 && st > 0 {
				n = DimSub(l, D(st))
			}
			c.SetTensor(0, dt, DimsShape(n))
			return nil
		}
		n, ok := rangeLen(st, l.Val, de)
		if !ok {
			c.SetTensor(0, dt, DimsShape(Unknown()))
			return c.Errorf(CodeLimit, "Range from %d to %d by %d has more than %d elements", st, l.Val, de, int64(math.MaxInt64))
		}
		c.SetTensor(0, dt, ShapeOf(n))
		if n <= c.MaxKnown() {
			k := make([]Dim, n)
			for i := range k {
				k[i] = Dim{Val: st + int64(i)*de}
			}
			c.SetKnown(0, k)
		}
		return nil
	}
	s, ok1 := c.ConstFloats(0)
	l, ok2 := c.ConstFloats(1)
	d, ok3 := c.ConstFloats(2)
	if ok1 && ok2 && ok3 && len(s) == 1 && len(l) == 1 && len(d) == 1 && d[0] != 0 {
		n := math.Ceil((l[0] - s[0]) / d[0])
		if n < 0 || math.IsNaN(n) {
			n = 0
		}
		if n > float64(maxDimValue) {
			c.SetTensor(0, dt, DimsShape(Unknown()))
			return c.Errorf(CodeLimit, "range too long")
		}
		c.SetTensor(0, dt, ShapeOf(int64(n)))
		return nil
	}
	c.SetTensor(0, dt, DimsShape(Unknown()))
	return nil
}

// inferLikeWithDType: output has input 0's shape and the dtype attribute
// (default: input 0's dtype). EyeLike, Random*Like, Bernoulli.
func inferLikeWithDType(attr string) InferFunc {
	return func(c *InferContext) error {
		dt, err := smDTypeAttr(c, attr, c.InDType(0))
		c.SetTensor(0, dt, c.InShape(0).Clone())
		return err
	}
}

// RandomNormal/RandomUniform(shape, dtype=float32).
func inferRandom(c *InferContext) error {
	dt, err := smDTypeAttr(c, "dtype", Float32)
	if err != nil {
		return err
	}
	sh, ok := c.AttrInts("shape")
	if !ok {
		c.SetTensor(0, dt, UnknownShape())
		return c.Errorf(CodeAttr, "attribute shape missing")
	}
	for _, d := range sh {
		if d < 0 {
			c.SetTensor(0, dt, RankShape(len(sh)))
			return c.Errorf(CodeValue, "negative dim %d", d)
		}
	}
	c.SetTensor(0, dt, ShapeOf(sh...))
	return nil
}

// Multinomial(input [batch, classes], sample_size=1, dtype=int32) ->
// [batch, sample_size].
func inferMultinomial(c *InferContext) error {
	dt, err := smDTypeAttr(c, "dtype", Int32)
	if err != nil {
		return err
	}
	b := Unknown()
	if s := c.InShape(0); s.Rank() == 2 {
		b = s.Dims[0]
	}
	c.SetTensor(0, dt, DimsShape(b, D(c.AttrInt("sample_size", 1))))
	return nil
}

// Optional(input?, type?): wraps the input's type, or the type attribute.
func inferOptional(c *InferContext) error {
	var e Type
	if c.HasInput(0) {
		e = c.InType(0).Clone()
	} else if a := c.Attr("type"); a != nil && a.TP != nil {
		e = a.TP.Clone()
	} else {
		return c.Errorf(CodeArity, "neither an input nor the type attribute")
	}
	c.SetOutput(0, Type{Kind: KindOptional, Elem: &e})
	return nil
}

// OptionalHasElement(input?) -> bool scalar.
func inferOptionalHasElement(c *InferContext) error {
	c.SetTensor(0, Bool, ShapeOf())
	return nil
}

// OptionalGetElement(input): the element of an optional; a tensor or
// sequence passes through (opset 18).
func inferOptionalGetElement(c *InferContext) error {
	t := c.InType(0)
	if t.Kind == KindOptional {
		c.SetOutput(0, smElem(t))
		return nil
	}
	c.SetOutput(0, t.Clone())
	return nil
}

// ImageDecoder(encoded_stream, pixel_format=RGB) -> uint8[H, W, C].
func inferImageDecoder(c *InferContext) error {
	ch := D(3)
	if c.AttrString("pixel_format", "RGB") == "Grayscale" {
		ch = D(1)
	}
	c.SetTensor(0, Uint8, DimsShape(Unknown(), Unknown(), ch))
	return nil
}

// StringNormalizer(X [C] or [1,C]): stopwords may remove elements.
func inferStringNormalizer(c *InferContext) error {
	in := c.InShape(0)
	_, stop := c.Node.AttrStrings("stopwords")
	if a := c.Attr("stopwords"); a == nil || len(a.Strings) == 0 {
		stop = false
	}
	if !in.Known || !stop {
		c.SetTensor(0, String, in.Clone())
		return nil
	}
	out := in.Clone()
	if len(out.Dims) > 0 {
		out.Dims[len(out.Dims)-1] = Unknown()
	}
	c.SetTensor(0, String, out)
	return nil
}

// RegexFullMatch(X) -> bool of X's shape.
func inferRegexFullMatch(c *InferContext) error {
	c.SetTensor(0, Bool, c.InShape(0).Clone())
	return nil
}

// StringConcat(X, Y) -> broadcast string tensor.
func inferStringConcat(c *InferContext) error {
	s, err := BroadcastShapes(c.InShape(0), c.InShape(1))
	c.SetTensor(0, String, s)
	return err
}

// StringSplit(X) -> Y string [X..., ?], Z int64 [X...].
func inferStringSplit(c *InferContext) error {
	in := c.InShape(0)
	if in.Known {
		y := append(append([]Dim{}, in.Dims...), Unknown())
		c.SetTensor(0, String, DimsShape(y...))
	} else {
		c.SetTensor(0, String, UnknownShape())
	}
	c.SetTensor(1, Int64, in.Clone())
	return nil
}

// TfIdfVectorizer(X [C] or [N,C]) -> float32 [max(ngram_indexes)+1] or
// [N, max+1].
func inferTfIdf(c *InferContext) error {
	in := c.InShape(0)
	idx, _ := c.AttrInts("ngram_indexes")
	width := Unknown()
	if len(idx) > 0 {
		m := idx[0]
		for _, v := range idx {
			if v > m {
				m = v
			}
		}
		if m >= 0 {
			width = D(m + 1)
		}
	}
	switch in.Rank() {
	case 1:
		c.SetTensor(0, Float32, DimsShape(width))
	case 2:
		c.SetTensor(0, Float32, DimsShape(in.Dims[0], width))
	case -1:
		c.SetTensor(0, Float32, UnknownShape())
	default:
		c.SetTensor(0, Float32, UnknownShape())
		return c.Errorf(CodeRank, "want rank 1 or 2, have %d", in.Rank())
	}
	return nil
}

// inferOptimizer handles the training optimizers: inputs R, T, then k+1
// blocks of n tensors (X, G, then k-1 state blocks); outputs k blocks of n
// (new X, new states), each with its input's type.
func inferOptimizer(k int) InferFunc {
	return func(c *InferContext) error {
		nIn := c.NumInputs() - 2
		if nIn <= 0 || nIn%(k+1) != 0 {
			return c.Errorf(CodeArity, "%d inputs do not form %d blocks", nIn, k+1)
		}
		n := nIn / (k + 1)
		for o := 0; o < c.NumOutputs(); o++ {
			blk, j := o/n, o%n
			in := blk
			if blk > 0 {
				in = blk + 1
			}
			if in > k {
				return c.Errorf(CodeArity, "too many outputs")
			}
			c.SetOutput(o, c.InType(2+in*n+j).Clone())
		}
		return nil
	}
}

// Gradient(xs=[names], y=name): output i is dy/d(xs[i]), of xs[i]'s type.
func inferGradient(c *InferContext) error {
	xs, ok := c.Node.AttrStrings("xs")
	if !ok {
		return c.Errorf(CodeAttr, "attribute xs missing")
	}
	if len(xs) != c.NumOutputs() {
		return c.Errorf(CodeArity, "%d xs for %d outputs", len(xs), c.NumOutputs())
	}
	for i, name := range xs {
		if v := lookupValue(c.Node.Graph, name); v != nil {
			c.SetOutput(i, v.Type.Clone())
		}
	}
	return nil
}

// lookupValue finds a value by name in g or an enclosing scope.
func lookupValue(g *Graph, name string) *Value {
	for ; g != nil; g = g.Parent {
		for _, v := range g.Inputs {
			if v.Name == name {
				return v
			}
		}
		for _, v := range g.Initializers {
			if v.Name == name {
				return v
			}
		}
		for _, n := range g.Nodes {
			for _, o := range n.Outputs {
				if o != nil && o.Name == name {
					return o
				}
			}
		}
	}
	return nil
}

// rangeLen is max(ceil((limit - start) / delta), 0) for delta != 0, in
// exact arithmetic: false when it does not fit in an int64 (start and
// limit at opposite ends of the int64 range).
func rangeLen(start, limit, delta int64) (int64, bool) {
	diff := new(big.Int).Sub(big.NewInt(limit), big.NewInt(start))
	d := big.NewInt(delta)
	if diff.Sign() == 0 || diff.Sign() != d.Sign() {
		return 0, true
	}
	diff.Abs(diff)
	d.Abs(d)
	n := diff.Add(diff, d.Sub(d, big.NewInt(1))) // ceil: (|diff| + |delta| - 1) / |delta|
	n.Quo(n, big.NewInt(0).Abs(big.NewInt(delta)))
	if !n.IsInt64() {
		return 0, false
	}
	return n.Int64(), true
}
