package ir

import (
	"math/rand"
	"strings"
	"testing"
	"time"
)

// smRobustOps are the ops of the shape, gather, generator, control-flow,
// sequence and ml families, fed malformed inputs below.
var smRobustOps = []struct{ domain, op string }{
	{"", "Shape"}, {"", "Size"}, {"", "Reshape"}, {"", "Flatten"}, {"", "Squeeze"}, {"", "Unsqueeze"},
	{"", "Transpose"}, {"", "Expand"}, {"", "Tile"}, {"", "Concat"}, {"", "Split"}, {"", "Slice"},
	{"", "Pad"}, {"", "Identity"}, {"", "DepthToSpace"}, {"", "SpaceToDepth"}, {"", "Col2Im"},
	{"", "CenterCropPad"}, {"", "Gather"}, {"", "GatherElements"}, {"", "GatherND"}, {"", "ScatterND"},
	{"", "Compress"}, {"", "NonZero"}, {"", "TopK"}, {"", "Unique"}, {"", "OneHot"}, {"", "Trilu"},
	{"", "NonMaxSuppression"}, {"", "GridSample"}, {"", "AffineGrid"}, {"", "Resize"}, {"", "Upsample"},
	{"", "Constant"}, {"", "ConstantOfShape"}, {"", "Range"}, {"", "EyeLike"}, {"", "RandomNormal"},
	{"", "Multinomial"}, {"", "Optional"}, {"", "OptionalGetElement"}, {"", "StringSplit"},
	{"", "StringNormalizer"}, {"", "TfIdfVectorizer"}, {"", "If"}, {"", "Loop"}, {"", "Scan"},
	{"", "SequenceConstruct"}, {"", "SequenceAt"}, {"", "SequenceInsert"}, {"", "SplitToSequence"},
	{"", "ConcatFromSequence"}, {"", "SequenceMap"}, {"ai.onnx.preview.training", "Adam"},
	{"ai.onnx.preview.training", "Gradient"},
	{"ai.onnx.ml", "ArrayFeatureExtractor"}, {"ai.onnx.ml", "LabelEncoder"}, {"ai.onnx.ml", "OneHotEncoder"},
	{"ai.onnx.ml", "FeatureVectorizer"}, {"ai.onnx.ml", "TreeEnsembleClassifier"}, {"ai.onnx.ml", "ZipMap"},
}

// TestInferRobust feeds every op random malformed inputs and attributes:
// inference may warn but must never panic (the engine turns a panic into
// an "inference failed" diagnostic, which this test rejects).
func TestInferRobust(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	ints := func() []int64 {
		vals := []int64{-9223372036854775807, -100, -2, -1, 0, 1, 2, 3, 7, 1 << 40, 9223372036854775807}
		n := rng.Intn(5)
		out := make([]int64, n)
		for i := range out {
			out[i] = vals[rng.Intn(len(vals))]
		}
		return out
	}
	input := func(g *Graph, i int) *Value {
		switch rng.Intn(8) {
		case 0:
			return nil
		case 1:
			return g.AddInput("u", Type{})
		case 2:
			return g.AddInput("r", TensorType(Float32, UnknownShape()))
		case 3:
			v := ints()
			return g.AddInitializer((&Tensor{Name: "c", DType: Int64, Dims: []int64{int64(len(v))}}).SetInt64s(v))
		case 4:
			v := ints()
			if len(v) == 0 {
				v = []int64{0}
			}
			return g.AddInitializer((&Tensor{Name: "s", DType: Int64}).SetInt64s(v[:1]))
		case 5:
			return g.AddInput("sym", TensorType(Int64, DimsShape(S("N"), D(0), D(3))))
		case 6:
			return g.AddInput("seq", Type{Kind: KindSequence})
		}
		dims := make([]Dim, rng.Intn(6))
		for j := range dims {
			dims[j] = D(int64(rng.Intn(6)))
		}
		return g.AddInput("t", TensorType(Float32, DimsShape(dims...)))
	}
	attrNames := []string{"axis", "axes", "perm", "split", "num_outputs", "starts", "ends", "pads", "blocksize",
		"k", "shape", "value", "value_ints", "dtype", "to", "num_scan_inputs", "body", "then_branch", "else_branch",
		"keepdims", "new_axis", "scales", "batch_dims", "sample_size", "ngram_indexes", "inputdimensions", "xs", "allowzero", "start", "end"}
	for _, o := range smRobustOps {
		for iter := 0; iter < 300; iter++ {
			g := NewGraph("g")
			nIn := rng.Intn(6)
			ins := make([]*Value, nIn)
			for i := range ins {
				ins[i] = input(g, i)
			}
			var attrs []*Attr
			for _, name := range attrNames {
				if rng.Intn(4) != 0 {
					continue
				}
				switch rng.Intn(5) {
				case 0:
					attrs = append(attrs, &Attr{Name: name, Type: AttrInt, I: ints2(ints())})
				case 1:
					attrs = append(attrs, &Attr{Name: name, Type: AttrInts, Ints: ints()})
				case 2:
					sub := NewGraph("sub")
					sub.Parent = g
					for k := rng.Intn(4); k > 0; k-- {
						sub.AddInput("si", TensorType(Float32, UnknownShape()))
					}
					if len(sub.Inputs) > 0 {
						sub.Outputs = append(sub.Outputs, sub.Inputs[rng.Intn(len(sub.Inputs))])
					}
					attrs = append(attrs, &Attr{Name: name, Type: AttrGraph, G: sub})
				case 3:
					attrs = append(attrs, &Attr{Name: name, Type: AttrTensor, T: (&Tensor{DType: Int64, Dims: []int64{2}}).SetInt64s([]int64{-1, 3})})
				default:
					attrs = append(attrs, &Attr{Name: name, Type: AttrStrings, Strings: [][]byte{[]byte("x")}})
				}
			}
			outs := make([]string, 1+rng.Intn(4))
			for i := range outs {
				outs[i] = "o"
			}
			g.AddNode(o.op, o.domain, "n", ins, outs, attrs...)
			opset := []int64{1, 7, 9, 11, 13, 18, 24}[rng.Intn(7)]
			m := &Model{Opsets: []OpsetID{{"", opset}, {"ai.onnx.ml", 3}, {"ai.onnx.preview.training", 1}}, Graph: g}
			res := InferModel(m, InferOptions{})
			for _, d := range res.Diagnostics {
				if strings.Contains(d.Msg, "inference failed") {
					t.Fatalf("%s (opset %d, %d inputs): %s", o.op, opset, nIn, d)
				}
			}
		}
	}
}

func ints2(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// TestInferNestedLoops checks that deeply nested loops whose carried types
// never settle are inferred in bounded time (no 3^depth re-inference).
func TestInferNestedLoops(t *testing.T) {
	g := NewGraph("g")
	outer := g
	// nest builds a Loop body at depth d with three carried values: the
	// first grows by concatenation, the second takes the first's previous
	// value and the third the second's, so each pass hands the nested
	// Loop new types and every level wants three passes. Each body runs a
	// nested Loop itself.
	var nest func(parent *Graph, d int) *Graph
	nest = func(parent *Graph, d int) *Graph {
		body := NewGraph("body")
		body.Parent = parent
		body.AddInput("i", TensorType(Int64, ShapeOf()))
		cin := body.AddInput("cond", TensorType(Bool, ShapeOf()))
		a1 := body.AddInput("a1", TensorType(Float32, UnknownShape()))
		a2 := body.AddInput("a2", TensorType(Float32, UnknownShape()))
		body.AddInput("a3", TensorType(Float32, UnknownShape()))
		cat := body.AddNode("Concat", "", "", []*Value{a1, a1}, []string{"cat"}, smIntAttr("axis", 0)).Outputs[0]
		p1 := body.AddNode("Identity", "", "", []*Value{a1}, []string{"p1"}).Outputs[0]
		p2 := body.AddNode("Identity", "", "", []*Value{a2}, []string{"p2"}).Outputs[0]
		if d > 0 {
			inner := body.AddNode("Loop", "", "", []*Value{nil, cin, cat, p1, p2}, []string{"x", "y", "z"}, smGraphAttr("body", nest(body, d-1)))
			cat, p1, p2 = inner.Outputs[0], inner.Outputs[1], inner.Outputs[2]
		}
		body.Outputs = []*Value{cin, cat, p1, p2}
		return body
	}
	a := smIn(g, "a", Float32, D(1), D(2))
	n := outer.AddNode("Loop", "", "", []*Value{smIn(g, "M", Int64), smIn(g, "c", Bool), a, a, a}, []string{"final", "final2", "final3"}, smGraphAttr("body", nest(g, 30)))
	m := &Model{Opsets: []OpsetID{{"", 17}}, Graph: g}
	done := make(chan struct{})
	go func() {
		InferModel(m, InferOptions{})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("inference of 31 nested loops did not finish in 10 s")
	}
	if got := n.Outputs[0].Type.String(); got != "float32[?,2]" {
		t.Errorf("outer loop result %s, want float32[?,2]", got)
	}
}
