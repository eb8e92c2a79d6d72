package ir

// This file implements inference of the ai.onnx.ml (traditional ML) ops:
// tree ensembles, linear and SVM models, Scaler, Normalizer, Binarizer,
// Imputer, encoders and mappers, ArrayFeatureExtractor, FeatureVectorizer,
// ZipMap and the ml Cast. Most take a [N, F] batch and produce per-row
// labels [N] and scores [N, E].

const mlDomain = "ai.onnx.ml"

func registerInferMl() {
	ml := func(name string, f InferFunc) OpDef { return OpDef{Domain: mlDomain, Name: name, Infer: f} }
	Register(
		ml("ArrayFeatureExtractor", inferArrayFeatureExtractor),
		ml("Binarizer", inferLikeInput0),
		ml("Imputer", inferLikeInput0),
		ml("Scaler", mlSameShape(Float32)),
		ml("Normalizer", mlSameShape(Float32)),
		ml("LabelEncoder", inferLabelEncoder),
		ml("CategoryMapper", inferCategoryMapper),
		ml("Cast", inferMLCast),
		ml("OneHotEncoder", inferOneHotEncoder),
		ml("FeatureVectorizer", inferFeatureVectorizer),
		ml("ZipMap", inferZipMap),
		ml("DictVectorizer", inferDictVectorizer),
		ml("TreeEnsembleClassifier", inferMLClassifier),
		ml("LinearClassifier", inferMLClassifier),
		ml("SVMClassifier", inferMLClassifier),
		ml("TreeEnsembleRegressor", inferMLRegressor("n_targets")),
		ml("LinearRegressor", inferMLRegressor("targets")),
		ml("SVMRegressor", inferMLRegressor("")),
		ml("TreeEnsemble", inferTreeEnsemble),
	)
}

// mlBatch returns the batch dim N of a [N, F] (or [F]: N = 1) input.
func mlBatch(s Shape) Dim {
	switch r := s.Rank(); {
	case r == 1:
		return D(1)
	case r >= 2:
		return s.Dims[0]
	}
	return Unknown()
}

// mlSameShape: output of dt with input 0's shape (Scaler, Normalizer).
func mlSameShape(dt DType) InferFunc {
	return func(c *InferContext) error {
		c.SetTensor(0, dt, c.InShape(0).Clone())
		return nil
	}
}

// ArrayFeatureExtractor(X, Y): selects the indices Y along X's last axis;
// a 1-D X gives [1, len(Y)].
func inferArrayFeatureExtractor(c *InferContext) error {
	x, y, dt := c.InShape(0), c.InShape(1), c.InDType(0)
	if x.Rank() == 1 && y.Known {
		c.SetTensor(0, dt, DimsShape(D(1), smMulDims(y.Dims)))
		return nil
	}
	if x.Rank() < 2 || !y.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	out := append([]Dim{}, x.Dims[:len(x.Dims)-1]...)
	out = append(out, smMulDims(y.Dims))
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// LabelEncoder(X): the output type follows the values_* attribute.
func inferLabelEncoder(c *InferContext) error {
	dt := Undefined
	switch {
	case c.Attr("values_strings") != nil:
		dt = String
	case c.Attr("values_int64s") != nil:
		dt = Int64
	case c.Attr("values_floats") != nil:
		dt = Float32
	case c.Attr("values_tensor") != nil:
		dt = smAttrTensorDType(c, "values_tensor", Undefined)
	}
	c.SetTensor(0, dt, c.InShape(0).Clone())
	return nil
}

// CategoryMapper(X): strings to int64 and back.
func inferCategoryMapper(c *InferContext) error {
	dt := Int64
	if c.InDType(0) == Int64 {
		dt = String
	}
	c.SetTensor(0, dt, c.InShape(0).Clone())
	return nil
}

// Cast (ai.onnx.ml)(X, cast_to=TO_FLOAT|TO_STRING|TO_INT64).
func inferMLCast(c *InferContext) error {
	dt := Float32
	switch c.AttrString("cast_to", "TO_FLOAT") {
	case "TO_STRING":
		dt = String
	case "TO_INT64":
		dt = Int64
	}
	c.SetTensor(0, dt, c.InShape(0).Clone())
	return nil
}

// OneHotEncoder(X [...]) -> float32 [..., len(cats)].
func inferOneHotEncoder(c *InferContext) error {
	n := 0
	if a := c.Attr("cats_int64s"); a != nil {
		n = len(a.Ints)
	} else if a := c.Attr("cats_strings"); a != nil {
		n = len(a.Strings)
	}
	in := c.InShape(0)
	if !in.Known || n == 0 {
		c.SetTensor(0, Float32, UnknownShape())
		return nil
	}
	c.SetTensor(0, Float32, DimsShape(append(append([]Dim{}, in.Dims...), D(int64(n)))...))
	return nil
}

// FeatureVectorizer(X_i [N, C_i]...) -> float32 [N, sum(inputdimensions)].
func inferFeatureVectorizer(c *InferContext) error {
	w := Unknown()
	if dims, ok := c.AttrInts("inputdimensions"); ok {
		var s int64
		for _, d := range dims {
			s += d
		}
		w = D(s)
	}
	c.SetTensor(0, Float32, DimsShape(mlBatch(c.InShape(0)), w))
	return nil
}

// ZipMap(X [N, C]) -> seq(map(int64|string, float32)).
func inferZipMap(c *InferContext) error {
	key := Int64
	if c.Attr("classlabels_strings") != nil {
		key = String
	}
	v := TensorType(Float32, ShapeOf())
	m := Type{Kind: KindMap, DType: key, Elem: &v}
	c.SetOutput(0, smSeq(m))
	return nil
}

// DictVectorizer(map) -> tensor of the map's value type.
func inferDictVectorizer(c *InferContext) error {
	dt := Undefined
	if t := c.InType(0); t.Kind == KindMap && t.Elem != nil {
		dt = t.Elem.DType
	}
	c.SetTensor(0, dt, UnknownShape())
	return nil
}

// Classifiers (TreeEnsembleClassifier, LinearClassifier, SVMClassifier)
// -> labels [N] (int64 or string), scores float32 [N, E].
func inferMLClassifier(c *InferContext) error {
	n := mlBatch(c.InShape(0))
	dt := Int64
	classes := 0
	if a := c.Attr("classlabels_strings"); a != nil && len(a.Strings) > 0 {
		dt, classes = String, len(a.Strings)
	} else if a := c.Attr("classlabels_ints"); a != nil {
		classes = len(a.Ints)
	} else if a := c.Attr("classlabels_int64s"); a != nil {
		classes = len(a.Ints)
	}
	c.SetTensor(0, dt, DimsShape(n))
	e := Unknown()
	if classes > 2 {
		e = D(int64(classes))
	}
	c.SetTensor(1, Float32, DimsShape(n, e))
	return nil
}

// Regressors -> float32 [N, targets].
func inferMLRegressor(attr string) InferFunc {
	return func(c *InferContext) error {
		t := Unknown()
		switch {
		case attr == "targets":
			t = D(c.AttrInt(attr, 1)) // default 1
		case attr != "" && c.Attr(attr) != nil:
			t = D(c.AttrInt(attr, 1))
		}
		c.SetTensor(0, Float32, DimsShape(mlBatch(c.InShape(0)), t))
		return nil
	}
}

// TreeEnsemble (ai.onnx.ml 5)(X [N, F]) -> [N, n_targets] of X's dtype.
func inferTreeEnsemble(c *InferContext) error {
	t := Unknown()
	if a := c.Attr("n_targets"); a != nil {
		t = D(a.I)
	}
	c.SetTensor(0, c.InDType(0), DimsShape(mlBatch(c.InShape(0)), t))
	return nil
}
