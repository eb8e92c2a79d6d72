package ir

import "testing"

func smFloatAttr(name string, v float32) *Attr { return &Attr{Name: name, Type: AttrFloat, F: v} }
func smStrAttr(name, v string) *Attr           { return &Attr{Name: name, Type: AttrString, S: []byte(v)} }
func smTensorAttr(name string, t *Tensor) *Attr {
	return &Attr{Name: name, Type: AttrTensor, T: t}
}
func smGraphAttr(name string, g *Graph) *Attr { return &Attr{Name: name, Type: AttrGraph, G: g} }
func smStringsAttr(name string, v ...string) *Attr {
	a := &Attr{Name: name, Type: AttrStrings}
	for _, s := range v {
		a.Strings = append(a.Strings, []byte(s))
	}
	return a
}

func smMLOne(g *Graph, op string, in []*Value, attrs ...*Attr) *Value {
	return g.AddNode(op, "ai.onnx.ml", "", in, []string{op + "_out"}, attrs...).Outputs[0]
}

func TestInferGenerators(t *testing.T) {
	N := S("N")
	cases := []smCase{
		{name: "constant value_ints", build: func(g *Graph) *Value {
			return smOne(g, "Constant", nil, smIntsAttr("value_ints", 1, 2, 3))
		}, want: "int64[3]", known: "[1,2,3]"},
		{name: "constant value_float", build: func(g *Graph) *Value {
			return smOne(g, "Constant", nil, smFloatAttr("value_float", 2))
		}, want: "float32[]"},
		{name: "constant tensor", build: func(g *Graph) *Value {
			return smOne(g, "Constant", nil, smTensorAttr("value", smF32("c", []int64{2, 2}, 1, 2, 3, 4)))
		}, want: "float32[2,2]"},
		{name: "constant of shape", build: func(g *Graph) *Value {
			sh := smOne(g, "Shape", []*Value{smIn(g, "x", Float32, N, D(3))})
			return smOne(g, "ConstantOfShape", []*Value{sh}, smTensorAttr("value", (&Tensor{DType: Int32, Dims: []int64{1}}).SetInt32s([]int32{7})))
		}, want: "int32[N,3]"},
		{name: "constant of shape known", build: func(g *Graph) *Value {
			return smOne(g, "ConstantOfShape", []*Value{g.AddInitializer(smI64("s", 3))}, smTensorAttr("value", smI64("v", 5)))
		}, want: "int64[3]", known: "[5,5,5]"},
		{name: "range int", build: func(g *Graph) *Value {
			return smOne(g, "Range", []*Value{g.AddInitializer(smScalarI64("a", 0)), g.AddInitializer(smScalarI64("b", 5)), g.AddInitializer(smScalarI64("c", 2))})
		}, want: "int64[3]", known: "[0,2,4]"},
		{name: "range negative delta", build: func(g *Graph) *Value {
			return smOne(g, "Range", []*Value{g.AddInitializer(smScalarI64("a", 10)), g.AddInitializer(smScalarI64("b", 6)), g.AddInitializer(smScalarI64("c", -3))})
		}, want: "int64[2]", known: "[10,7]"},
		{name: "range float", build: func(g *Graph) *Value {
			return smOne(g, "Range", []*Value{g.AddInitializer(smF32("a", nil, 1)), g.AddInitializer(smF32("b", nil, 2)), g.AddInitializer(smF32("c", nil, 0.3))})
		}, want: "float32[4]"},
		{name: "range symbolic", build: func(g *Graph) *Value {
			sh := smOne(g, "Shape", []*Value{smIn(g, "x", Float32, N)})
			n := smOne(g, "Squeeze", []*Value{sh, g.AddInitializer(smI64("ax", 0))})
			return smOne(g, "Range", []*Value{g.AddInitializer(smScalarI64("a", 0)), n, g.AddInitializer(smScalarI64("c", 1))})
		}, want: "int64[N]"},
		{name: "eyelike dtype", build: func(g *Graph) *Value {
			return smOne(g, "EyeLike", []*Value{smIn(g, "x", Float32, D(3), D(4))}, smIntAttr("dtype", int64(Int32)))
		}, want: "int32[3,4]"},
		{name: "random normal", build: func(g *Graph) *Value {
			return smOne(g, "RandomNormal", nil, smIntsAttr("shape", 2, 5))
		}, want: "float32[2,5]"},
		{name: "multinomial", build: func(g *Graph) *Value {
			return smOne(g, "Multinomial", []*Value{smIn(g, "x", Float32, D(3), D(10))}, smIntAttr("sample_size", 4))
		}, want: "int32[3,4]"},
		{name: "optional get element", build: func(g *Graph) *Value {
			o := smOne(g, "Optional", []*Value{smIn(g, "x", Float32, D(3))})
			return smOne(g, "OptionalGetElement", []*Value{o})
		}, want: "float32[3]"},
		{name: "optional", build: func(g *Graph) *Value {
			return smOne(g, "Optional", []*Value{smIn(g, "x", Float32, D(3))})
		}, want: "opt(float32[3])"},
		{name: "tfidf", build: func(g *Graph) *Value {
			return smOne(g, "TfIdfVectorizer", []*Value{smIn(g, "x", Int32, D(2), D(6))}, smIntsAttr("ngram_indexes", 0, 1, 2, 3, 4, 5, 6))
		}, want: "float32[2,7]"},
		{name: "string split", build: func(g *Graph) *Value {
			return smOne(g, "StringSplit", []*Value{smIn(g, "x", String, D(2))})
		}, want: "string[2,?]"},
		{name: "compress known condition", build: func(g *Graph) *Value {
			cond := g.AddInitializer((&Tensor{Name: "c", DType: Bool, Dims: []int64{3}}).SetInt32s([]int32{0, 1, 1}))
			return smOne(g, "Compress", []*Value{smIn(g, "x", Float32, D(3), D(2)), cond}, smIntAttr("axis", 0))
		}, want: "float32[2,2]"},
		{name: "compress unknown rank", build: func(g *Graph) *Value {
			cond := g.AddInitializer((&Tensor{Name: "c", DType: Bool, Dims: []int64{2}}).SetInt32s([]int32{1, 1}))
			return smOne(g, "Compress", []*Value{g.AddInput("x", TensorType(Float32, UnknownShape())), cond})
		}, want: "float32[?]"},
		{name: "image decoder gray", build: func(g *Graph) *Value {
			return smOne(g, "ImageDecoder", []*Value{smIn(g, "x", Uint8, Unknown())}, smStrAttr("pixel_format", "Grayscale"))
		}, want: "uint8[?,?,1]"},
	}
	runSMCases(t, cases)
}

func TestInferML(t *testing.T) {
	cases := []smCase{
		{name: "label encoder", build: func(g *Graph) *Value {
			return smMLOne(g, "LabelEncoder", []*Value{smIn(g, "x", String, D(5))}, smStringsAttr("keys_strings", "a"), smIntsAttr("values_int64s", 1))
		}, want: "int64[5]"},
		{name: "tree classifier", build: func(g *Graph) *Value {
			n := g.AddNode("TreeEnsembleClassifier", "ai.onnx.ml", "", []*Value{smIn(g, "x", Float32, D(4), D(3))}, []string{"y", "z"}, smIntsAttr("classlabels_int64s", 0, 1, 2))
			return n.Outputs[1]
		}, want: "float32[4,3]"},
		{name: "array feature extractor", build: func(g *Graph) *Value {
			return smMLOne(g, "ArrayFeatureExtractor", []*Value{smIn(g, "x", Float32, D(3), D(4)), g.AddInitializer(smI64("i", 0, 2))})
		}, want: "float32[3,2]"},
		{name: "array feature extractor 1-D", build: func(g *Graph) *Value {
			return smMLOne(g, "ArrayFeatureExtractor", []*Value{smIn(g, "x", String, D(5)), g.AddInitializer(smI64("i", 0, 2, 4))})
		}, want: "string[1,3]"},
		{name: "zipmap", build: func(g *Graph) *Value {
			return smMLOne(g, "ZipMap", []*Value{smIn(g, "x", Float32, D(1), D(3))}, smStringsAttr("classlabels_strings", "a", "b", "c"))
		}, want: "seq(map(string,float32[]))"},
		{name: "one hot encoder", build: func(g *Graph) *Value {
			return smMLOne(g, "OneHotEncoder", []*Value{smIn(g, "x", Int64, D(2), D(1))}, smIntsAttr("cats_int64s", 1, 2, 3))
		}, want: "float32[2,1,3]"},
		{name: "feature vectorizer", build: func(g *Graph) *Value {
			return smMLOne(g, "FeatureVectorizer", []*Value{smIn(g, "a", Float32, D(2), D(1)), smIn(g, "b", Float32, D(2), D(3))}, smIntsAttr("inputdimensions", 1, 3))
		}, want: "float32[2,4]"},
	}
	runSMCases(t, cases)
}

func TestInferControlFlow(t *testing.T) {
	// branch builds a subgraph of g returning Identity(x) or Unsqueeze.
	branch := func(g *Graph, x *Value, unsqueeze bool) *Graph {
		b := NewGraph("branch")
		b.Parent = g
		var out *Value
		if unsqueeze {
			out = b.AddNode("Unsqueeze", "", "", []*Value{x, b.AddInitializer(smI64("ax", 0))}, []string{"u"}).Outputs[0]
		} else {
			out = b.AddNode("Identity", "", "", []*Value{x}, []string{"i"}).Outputs[0]
		}
		b.Outputs = []*Value{out}
		return b
	}
	cases := []smCase{
		{name: "if merge", build: func(g *Graph) *Value {
			x := smIn(g, "x", Float32, D(2), D(3))
			y := smIn(g, "y", Float32, D(2), D(5))
			n := g.AddNode("If", "", "", []*Value{smIn(g, "c", Bool)}, []string{"o"}, smGraphAttr("then_branch", branch(g, x, false)), smGraphAttr("else_branch", branch(g, y, false)))
			return n.Outputs[0]
		}, want: "float32[2,?]"},
		{name: "if known cond", build: func(g *Graph) *Value {
			x := smIn(g, "x", Float32, D(2), D(3))
			c := g.AddInitializer((&Tensor{Name: "c", DType: Bool}).SetInt32s([]int32{0}))
			n := g.AddNode("If", "", "", []*Value{c}, []string{"o"}, smGraphAttr("then_branch", branch(g, x, false)), smGraphAttr("else_branch", branch(g, x, true)))
			return n.Outputs[0]
		}, want: "float32[1,2,3]"},
		{name: "if rank mismatch", build: func(g *Graph) *Value {
			x := smIn(g, "x", Float32, D(2), D(3))
			n := g.AddNode("If", "", "", []*Value{smIn(g, "c", Bool)}, []string{"o"}, smGraphAttr("then_branch", branch(g, x, false)), smGraphAttr("else_branch", branch(g, x, true)))
			return n.Outputs[0]
		}, want: "float32[*]"},
		{name: "if with an uninferred branch", build: func(g *Graph) *Value {
			x := smIn(g, "x", Float32, D(2), D(3))
			el := NewGraph("else")
			el.Parent = g
			el.Outputs = []*Value{el.AddNode("Mystery", "example", "", []*Value{x}, []string{"m"}).Outputs[0]}
			n := g.AddNode("If", "", "", []*Value{smIn(g, "c", Bool)}, []string{"o"}, smGraphAttr("then_branch", branch(g, x, false)), smGraphAttr("else_branch", el))
			return n.Outputs[0]
		}, want: "float32[*]"},
		{name: "loop scan output", build: func(g *Graph) *Value {
			x := smIn(g, "x", Float32, D(4))
			body := NewGraph("body")
			body.Parent = g
			body.AddInput("i", TensorType(Int64, ShapeOf()))
			cin := body.AddInput("cond", TensorType(Bool, ShapeOf()))
			acc := body.AddInput("acc", TensorType(Float32, UnknownShape()))
			sum := body.AddNode("Add", "", "", []*Value{acc, x}, []string{"sum"}).Outputs[0]
			scan := body.AddNode("Identity", "", "", []*Value{x}, []string{"scan"}).Outputs[0]
			body.Outputs = []*Value{cin, sum, scan}
			m := g.AddInitializer(smScalarI64("M", 6))
			n := g.AddNode("Loop", "", "", []*Value{m, nil, smIn(g, "a0", Float32, D(4))}, []string{"final", "scans"}, smGraphAttr("body", body))
			return n.Outputs[1]
		}, want: "float32[6,4]"},
		{name: "loop with unknown condition", build: func(g *Graph) *Value {
			body := NewGraph("body")
			body.Parent = g
			body.AddInput("i", TensorType(Int64, ShapeOf()))
			cin := body.AddInput("cond", TensorType(Bool, ShapeOf()))
			x := body.AddNode("Identity", "", "", []*Value{cin}, []string{"x"}).Outputs[0]
			c2 := body.AddNode("Identity", "", "", []*Value{x}, []string{"c2"}).Outputs[0]
			body.Outputs = []*Value{c2, x}
			n := g.AddNode("Loop", "", "", []*Value{g.AddInitializer(smScalarI64("M", 4)), smIn(g, "c", Bool)}, []string{"scans"}, smGraphAttr("body", body))
			return n.Outputs[0]
		}, want: "bool[?]"},
		{name: "loop with computed condition", build: func(g *Graph) *Value {
			body := NewGraph("body")
			body.Parent = g
			i := body.AddInput("i", TensorType(Int64, ShapeOf()))
			body.AddInput("cond", TensorType(Bool, ShapeOf()))
			c2 := body.AddNode("Less", "", "", []*Value{i, body.AddInitializer(smScalarI64("two", 2))}, []string{"c2"}).Outputs[0]
			body.Outputs = []*Value{c2, i}
			n := g.AddNode("Loop", "", "", []*Value{g.AddInitializer(smScalarI64("M", 4)), nil}, []string{"scans"}, smGraphAttr("body", body))
			return n.Outputs[0]
		}, want: "int64[?]"},
		{name: "loop unknown trip", build: func(g *Graph) *Value {
			body := NewGraph("body")
			body.Parent = g
			body.AddInput("i", TensorType(Int64, ShapeOf()))
			cin := body.AddInput("cond", TensorType(Bool, ShapeOf()))
			acc := body.AddInput("acc", TensorType(Float32, UnknownShape()))
			cat := body.AddNode("Concat", "", "", []*Value{acc, acc}, []string{"cat"}, smIntAttr("axis", 0)).Outputs[0]
			body.Outputs = []*Value{cin, cat}
			n := g.AddNode("Loop", "", "", []*Value{smIn(g, "M", Int64), smIn(g, "c", Bool), smIn(g, "a0", Float32, D(2), D(3))}, []string{"final"}, smGraphAttr("body", body))
			return n.Outputs[0]
		}, want: "float32[?,3]"},
		{name: "scan", build: func(g *Graph) *Value {
			body := NewGraph("body")
			body.Parent = g
			st := body.AddInput("st", TensorType(Float32, UnknownShape()))
			sl := body.AddInput("sl", TensorType(Float32, UnknownShape()))
			sum := body.AddNode("Add", "", "", []*Value{st, sl}, []string{"sum"}).Outputs[0]
			out := body.AddNode("Identity", "", "", []*Value{sum}, []string{"o"}).Outputs[0]
			body.Outputs = []*Value{sum, out}
			n := g.AddNode("Scan", "", "", []*Value{smIn(g, "s0", Float32, D(3)), smIn(g, "xs", Float32, D(3), D(7))}, []string{"final", "ys"},
				smGraphAttr("body", body), smIntAttr("num_scan_inputs", 1), smIntsAttr("scan_input_axes", 1), smIntsAttr("scan_output_axes", -1))
			return n.Outputs[1]
		}, want: "float32[3,7]"},
	}
	runSMCases(t, cases)
}

func TestInferSequences(t *testing.T) {
	cases := []smCase{
		{name: "construct and at", build: func(g *Graph) *Value {
			s := smOne(g, "SequenceConstruct", []*Value{smIn(g, "a", Float32, D(2), D(3)), smIn(g, "b", Float32, D(2), D(4))})
			return smOne(g, "SequenceAt", []*Value{s, g.AddInitializer(smScalarI64("p", -1))})
		}, want: "float32[2,4]"},
		{name: "construct and at unknown position", build: func(g *Graph) *Value {
			s := smOne(g, "SequenceConstruct", []*Value{smIn(g, "a", Float32, D(2), D(3)), smIn(g, "b", Float32, D(2), D(4))})
			return smOne(g, "SequenceAt", []*Value{s, smIn(g, "p", Int64)})
		}, want: "float32[2,?]"},
		{name: "insert erase at", build: func(g *Graph) *Value {
			s := smOne(g, "SequenceConstruct", []*Value{smIn(g, "a", Float32, D(1))})
			s = smOne(g, "SequenceInsert", []*Value{s, smIn(g, "b", Float32, D(2)), g.AddInitializer(smScalarI64("p", 0))})
			s = smOne(g, "SequenceInsert", []*Value{s, smIn(g, "c", Float32, D(3))})
			s = smOne(g, "SequenceErase", []*Value{s, g.AddInitializer(smScalarI64("q", 1))})
			return smOne(g, "SequenceAt", []*Value{s, g.AddInitializer(smScalarI64("r", 1))})
		}, want: "float32[3]"},
		{name: "length", build: func(g *Graph) *Value {
			s := smOne(g, "SplitToSequence", []*Value{smIn(g, "a", Float32, D(7), D(3)), g.AddInitializer(smScalarI64("k", 3))})
			return smOne(g, "SequenceLength", []*Value{s})
		}, want: "int64[]", known: "[3]"},
		{name: "concat from sequence", build: func(g *Graph) *Value {
			s := smOne(g, "SplitToSequence", []*Value{smIn(g, "a", Float32, D(7), D(3)), g.AddInitializer(smI64("k", 3, 4))})
			return smOne(g, "ConcatFromSequence", []*Value{s}, smIntAttr("axis", 0))
		}, want: "float32[7,3]"},
		{name: "empty then insert", build: func(g *Graph) *Value {
			s := smOne(g, "SequenceEmpty", nil)
			return smOne(g, "SequenceInsert", []*Value{s, smIn(g, "a", Float32, D(2))})
		}, want: "seq(float32[2])"},
		{name: "split to sequence", build: func(g *Graph) *Value {
			return smOne(g, "SplitToSequence", []*Value{smIn(g, "a", Float32, D(5), D(3))}, smIntAttr("keepdims", 0), smIntAttr("axis", 1))
		}, want: "seq(float32[5])"},
		{name: "concat from sequence", build: func(g *Graph) *Value {
			s := smOne(g, "SplitToSequence", []*Value{smIn(g, "a", Float32, D(5), D(3))})
			return smOne(g, "ConcatFromSequence", []*Value{s}, smIntAttr("axis", 0), smIntAttr("new_axis", 1))
		}, want: "float32[5,1,3]"},
		{name: "concat from symbolic split", build: func(g *Graph) *Value {
			s := smOne(g, "SplitToSequence", []*Value{smIn(g, "a", Float32, S("T"), D(3))}, smIntAttr("keepdims", 0))
			return smOne(g, "ConcatFromSequence", []*Value{s}, smIntAttr("axis", 1), smIntAttr("new_axis", 1))
		}, want: "float32[3,T]"},
		{name: "length", build: func(g *Graph) *Value {
			return smOne(g, "SequenceLength", []*Value{smOne(g, "SequenceEmpty", nil)})
		}, want: "int64[]"},
	}
	runSMCases(t, cases)
}
