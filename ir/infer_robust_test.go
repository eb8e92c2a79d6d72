package ir

import (
	"math/rand"
	"strings"
	"testing"
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
			return g.AddInitializer(&Tensor{Name: "c", DType: Int64, Dims: []int64{int64(len(v))}, Int64s: v})
		case 4:
			v := ints()
			if len(v) == 0 {
				v = []int64{0}
			}
			return g.AddInitializer(&Tensor{Name: "s", DType: Int64, Int64s: v[:1]})
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
					attrs = append(attrs, &Attr{Name: name, Type: AttrTensor, T: &Tensor{DType: Int64, Dims: []int64{2}, Int64s: []int64{-1, 3}}})
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
