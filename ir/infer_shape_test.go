package ir

import (
	"testing"
)

// smCase builds a one-node (or small) graph and checks an output type.
type smCase struct {
	name  string
	opset int64
	build func(g *Graph) *Value // returns the value to check
	want  string                // Type.String() of the checked value
	known string                // Shape-like print of Known values ("" = don't check)
}

func smI64(name string, vals ...int64) *Tensor {
	return (&Tensor{Name: name, DType: Int64, Dims: []int64{int64(len(vals))}}).SetInt64s(vals)
}

func smScalarI64(name string, v int64) *Tensor {
	return (&Tensor{Name: name, DType: Int64}).SetInt64s([]int64{v})
}

func smF32(name string, dims []int64, vals ...float32) *Tensor {
	return (&Tensor{Name: name, DType: Float32, Dims: dims}).SetFloats(vals)
}

func smIntAttr(name string, v int64) *Attr { return &Attr{Name: name, Type: AttrInt, I: v} }
func smIntsAttr(name string, v ...int64) *Attr {
	return &Attr{Name: name, Type: AttrInts, Ints: v}
}

func smIn(g *Graph, name string, dt DType, dims ...Dim) *Value {
	return g.AddInput(name, TensorType(dt, DimsShape(dims...)))
}

func smOne(g *Graph, op string, in []*Value, attrs ...*Attr) *Value {
	return g.AddNode(op, "", "", in, []string{op + "_out"}, attrs...).Outputs[0]
}

func runSMCases(t *testing.T, cases []smCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph("g")
			v := tc.build(g)
			g.Outputs = append(g.Outputs, v)
			opset := tc.opset
			if opset == 0 {
				opset = 17
			}
			m := &Model{Opsets: []OpsetID{{"", opset}, {"ai.onnx.ml", 3}}, Graph: g}
			res := InferModel(m, InferOptions{})
			if got := v.Type.String(); got != tc.want {
				t.Errorf("type %s, want %s (diagnostics %v)", got, tc.want, res.Warnings())
			}
			if tc.known != "" {
				got := "nil"
				if v.Known() != nil {
					got = Shape{Known: true, Dims: v.Known()}.String()
				}
				if got != tc.known {
					t.Errorf("known %s, want %s", got, tc.known)
				}
			}
		})
	}
}

func TestInferShapeOps(t *testing.T) {
	N := S("N")
	cases := []smCase{
		{name: "shape", build: func(g *Graph) *Value {
			return smOne(g, "Shape", []*Value{smIn(g, "x", Float32, N, D(3), D(4))})
		}, want: "int64[3]", known: "[N,3,4]"},
		{name: "shape start end", opset: 15, build: func(g *Graph) *Value {
			return smOne(g, "Shape", []*Value{smIn(g, "x", Float32, N, D(3), D(4))}, smIntAttr("start", 1), smIntAttr("end", -1))
		}, want: "int64[1]", known: "[3]"},
		{name: "size", build: func(g *Graph) *Value {
			return smOne(g, "Size", []*Value{smIn(g, "x", Float32, N, D(3), D(4))})
		}, want: "int64[]", known: "[12*N]"},
		{name: "reshape concat shape gather", build: func(g *Graph) *Value {
			x := smIn(g, "x", Float32, N, D(3), D(4))
			sh := smOne(g, "Shape", []*Value{x})
			i0 := g.AddInitializer(smScalarI64("i0", 0))
			d0 := smOne(g, "Gather", []*Value{sh, i0})
			u := smOne(g, "Unsqueeze", []*Value{d0, g.AddInitializer(smI64("ax", 0))})
			cat := smOne(g, "Concat", []*Value{u, g.AddInitializer(smI64("m1", -1))}, smIntAttr("axis", 0))
			return smOne(g, "Reshape", []*Value{x, cat})
		}, want: "float32[N,12]"},
		// torch's F.interpolate(scale_factor=2): the scales are a Concat
		// of two float Constants, folded so that Resize knows them.
		{name: "resize scales from a float concat", build: func(g *Graph) *Value {
			x := smIn(g, "x", Float32, N, D(8), D(12), D(40))
			ones := smOne(g, "Constant", nil, &Attr{Name: "value", Type: AttrTensor, T: smF32("one", []int64{2}, 1, 1)})
			twos := g.AddNode("Constant", "", "", nil, []string{"twos"}, &Attr{Name: "value", Type: AttrTensor, T: smF32("two", []int64{2}, 2, 2)}).Outputs[0]
			scales := smOne(g, "Concat", []*Value{ones, twos}, smIntAttr("axis", 0))
			return g.AddNode("Resize", "", "", []*Value{x, nil, scales}, []string{"y"}, &Attr{Name: "mode", Type: AttrString, S: []byte("linear")}).Outputs[0]
		}, want: "float32[N,8,24,80]"},
		{name: "float concat of a non-constant is not folded", build: func(g *Graph) *Value {
			x := smIn(g, "x", Float32, N, D(8), D(12), D(40))
			s := smIn(g, "s", Float32, D(2))
			scales := smOne(g, "Concat", []*Value{g.AddInitializer(smF32("one", []int64{2}, 1, 1)), s}, smIntAttr("axis", 0))
			return g.AddNode("Resize", "", "", []*Value{x, nil, scales}, []string{"y"}).Outputs[0]
		}, want: "float32[?,?,?,?]"},
		{name: "reshape zero and minus one", build: func(g *Graph) *Value {
			return smOne(g, "Reshape", []*Value{smIn(g, "x", Float32, D(2), D(3), D(4)), g.AddInitializer(smI64("s", 0, -1))})
		}, want: "float32[2,12]"},
		{name: "reshape allowzero", opset: 14, build: func(g *Graph) *Value {
			return smOne(g, "Reshape", []*Value{smIn(g, "x", Float32, D(0), D(3)), g.AddInitializer(smI64("s", 3, 0))}, smIntAttr("allowzero", 1))
		}, want: "float32[3,0]"},
		{name: "reshape bad size", build: func(g *Graph) *Value {
			return smOne(g, "Reshape", []*Value{smIn(g, "x", Float32, D(2), D(3)), g.AddInitializer(smI64("s", 4, -1))})
		}, want: "float32[4,?]"},
		{name: "flatten", build: func(g *Graph) *Value {
			return smOne(g, "Flatten", []*Value{smIn(g, "x", Float32, N, D(3), D(4), D(5))}, smIntAttr("axis", -2))
		}, want: "float32[3*N,20]"},
		{name: "squeeze attr", opset: 11, build: func(g *Graph) *Value {
			return smOne(g, "Squeeze", []*Value{smIn(g, "x", Float32, D(1), D(3), D(1))}, smIntsAttr("axes", -1))
		}, want: "float32[1,3]"},
		{name: "squeeze all", build: func(g *Graph) *Value {
			return smOne(g, "Squeeze", []*Value{smIn(g, "x", Float32, D(1), D(3), D(1))})
		}, want: "float32[3]"},
		{name: "squeeze symbolic all", build: func(g *Graph) *Value {
			return smOne(g, "Squeeze", []*Value{smIn(g, "x", Float32, D(1), N)})
		}, want: "float32[*]"},
		{name: "unsqueeze input", build: func(g *Graph) *Value {
			return smOne(g, "Unsqueeze", []*Value{smIn(g, "x", Float32, D(3), D(4)), g.AddInitializer(smI64("a", 0, -1))})
		}, want: "float32[1,3,4,1]"},
		{name: "transpose", build: func(g *Graph) *Value {
			return smOne(g, "Transpose", []*Value{smIn(g, "x", Float32, D(2), D(3), D(4))}, smIntsAttr("perm", 1, 2, 0))
		}, want: "float32[3,4,2]"},
		{name: "transpose default", build: func(g *Graph) *Value {
			return smOne(g, "Transpose", []*Value{smIn(g, "x", Float32, D(2), D(3), D(4))})
		}, want: "float32[4,3,2]"},
		{name: "expand", build: func(g *Graph) *Value {
			return smOne(g, "Expand", []*Value{smIn(g, "x", Float32, D(3), D(1)), g.AddInitializer(smI64("s", 2, 1, 6))})
		}, want: "float32[2,3,6]"},
		{name: "tile", build: func(g *Graph) *Value {
			return smOne(g, "Tile", []*Value{smIn(g, "x", Float32, D(3), N), g.AddInitializer(smI64("s", 2, 2))})
		}, want: "float32[6,2*N]"},
		{name: "tile opset 1", opset: 1, build: func(g *Graph) *Value {
			return smOne(g, "Tile", []*Value{smIn(g, "x", Float32, D(3), D(4)), g.AddInitializer(smScalarI64("t", 3)), g.AddInitializer(smScalarI64("a", 1))})
		}, want: "float32[3,12]"},
		{name: "concat", build: func(g *Graph) *Value {
			return smOne(g, "Concat", []*Value{smIn(g, "a", Float32, N, D(3)), smIn(g, "b", Float32, D(2), D(5))}, smIntAttr("axis", 1))
		}, want: "float32[2,8]"},
		{name: "concat symbolic and unknown", build: func(g *Graph) *Value {
			return smOne(g, "Concat", []*Value{smIn(g, "a", Float32, Unknown(), D(3)), smIn(g, "b", Float32, N, D(5)), smIn(g, "c", Float32, Unknown(), D(1))}, smIntAttr("axis", -1))
		}, want: "float32[N,9]"},
		{name: "slice", build: func(g *Graph) *Value {
			return smOne(g, "Slice", []*Value{smIn(g, "x", Float32, D(20), D(10), D(5)),
				g.AddInitializer(smI64("s", 0, 1)), g.AddInitializer(smI64("e", 3, 10)), g.AddInitializer(smI64("a", 0, 1)), g.AddInitializer(smI64("st", 1, 2))})
		}, want: "float32[3,5,5]"},
		{name: "slice negative step", build: func(g *Graph) *Value {
			return smOne(g, "Slice", []*Value{smIn(g, "x", Float32, D(20), D(10)),
				g.AddInitializer(smI64("s", -1)), g.AddInitializer(smI64("e", -9223372036854775807)), g.AddInitializer(smI64("a", 1)), g.AddInitializer(smI64("st", -1))})
		}, want: "float32[20,10]"},
		{name: "slice known", build: func(g *Graph) *Value {
			sh := smOne(g, "Shape", []*Value{smIn(g, "x", Float32, N, D(3), D(4))})
			return smOne(g, "Slice", []*Value{sh, g.AddInitializer(smI64("s", 1)), g.AddInitializer(smI64("e", 1000))})
		}, want: "int64[2]", known: "[3,4]"},
		{name: "known through 2-D slice and transpose", build: func(g *Graph) *Value {
			// Pads computed the PyTorch way: reshape to [k,2], reverse the
			// rows, transpose, flatten.
			p := g.AddInitializer(smI64("p", 1, 2, 3, 4, 5, 6))
			r := smOne(g, "Reshape", []*Value{p, g.AddInitializer(smI64("s", -1, 2))})
			rev := smOne(g, "Slice", []*Value{r, g.AddInitializer(smI64("b", -1)), g.AddInitializer(smI64("e", -9223372036854775807)), g.AddInitializer(smI64("a", 0)), g.AddInitializer(smI64("st", -1))})
			tr := smOne(g, "Transpose", []*Value{rev}, smIntsAttr("perm", 1, 0))
			return smOne(g, "Reshape", []*Value{tr, g.AddInitializer(smI64("f", -1))})
		}, want: "int64[6]", known: "[5,3,1,6,4,2]"},
		{name: "known through 2-D gather and concat", build: func(g *Graph) *Value {
			a := g.AddInitializer((&Tensor{Name: "a", DType: Int64, Dims: []int64{2, 2}}).SetInt64s([]int64{1, 2, 3, 4}))
			col := smOne(g, "Gather", []*Value{a, g.AddInitializer(smI64("i", 1))}, smIntAttr("axis", 1))
			return smOne(g, "Concat", []*Value{col, a}, smIntAttr("axis", 1))
		}, want: "int64[2,3]", known: "[2,1,2,4,3,4]"},
		{name: "slice opset 9 symbolic", opset: 9, build: func(g *Graph) *Value {
			return smOne(g, "Slice", []*Value{smIn(g, "x", Float32, N, D(10))}, smIntsAttr("starts", 1, 2), smIntsAttr("ends", 2147483647, -1))
		}, want: "float32[N-1,7]"},
		{name: "pad", build: func(g *Graph) *Value {
			return smOne(g, "Pad", []*Value{smIn(g, "x", Float32, D(1), D(3), D(4)), g.AddInitializer(smI64("p", 0, 1, 2, 0, -1, 2))})
		}, want: "float32[1,3,8]"},
		{name: "pad opset 2", opset: 2, build: func(g *Graph) *Value {
			return smOne(g, "Pad", []*Value{smIn(g, "x", Float32, D(1), D(3))}, smIntsAttr("pads", 1, 1, 1, 1))
		}, want: "float32[3,5]"},
		{name: "depth to space", build: func(g *Graph) *Value {
			return smOne(g, "DepthToSpace", []*Value{smIn(g, "x", Float32, D(1), D(8), D(2), D(3))}, smIntAttr("blocksize", 2))
		}, want: "float32[1,2,4,6]"},
		{name: "space to depth", build: func(g *Graph) *Value {
			return smOne(g, "SpaceToDepth", []*Value{smIn(g, "x", Float32, D(1), D(2), D(4), D(6))}, smIntAttr("blocksize", 2))
		}, want: "float32[1,8,2,3]"},
		{name: "identity", build: func(g *Graph) *Value {
			return smOne(g, "Identity", []*Value{smIn(g, "x", Bool, D(2))})
		}, want: "bool[2]"},
		{name: "col2im", opset: 18, build: func(g *Graph) *Value {
			return smOne(g, "Col2Im", []*Value{smIn(g, "x", Float32, D(1), D(10), D(12)), g.AddInitializer(smI64("i", 5, 5)), g.AddInitializer(smI64("b", 1, 5))})
		}, want: "float32[1,2,5,5]"},
		{name: "center crop pad", opset: 18, build: func(g *Graph) *Value {
			return smOne(g, "CenterCropPad", []*Value{smIn(g, "x", Float32, D(20), D(10), D(3)), g.AddInitializer(smI64("s", 10, 7))}, smIntsAttr("axes", 0, 1))
		}, want: "float32[10,7,3]"},
	}
	runSMCases(t, cases)
}

func TestInferSplit(t *testing.T) {
	cases := []struct {
		name  string
		opset int64
		nOut  int
		split *Tensor
		attrs []*Attr
		want  []string
	}{
		{"equal", 13, 3, nil, nil, []string{"float32[2,4]", "float32[2,4]", "float32[2,4]"}},
		{"sizes input", 13, 2, smI64("s", 2, 4), nil, []string{"float32[2,4]", "float32[4,4]"}},
		{"sizes attr", 11, 2, nil, []*Attr{smIntsAttr("split", 1, 5)}, []string{"float32[1,4]", "float32[5,4]"}},
		{"num_outputs uneven", 18, 4, nil, []*Attr{smIntAttr("num_outputs", 4), smIntAttr("axis", 1)}, []string{"float32[6,1]", "float32[6,1]", "float32[6,1]", "float32[6,1]"}},
		{"num_outputs uneven rows", 18, 4, nil, []*Attr{smIntAttr("num_outputs", 4)}, []string{"float32[2,4]", "float32[2,4]", "float32[2,4]", "float32[0,4]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph("g")
			ins := []*Value{smIn(g, "x", Float32, D(6), D(4))}
			if tc.split != nil {
				ins = append(ins, g.AddInitializer(tc.split))
			}
			outs := make([]string, tc.nOut)
			for i := range outs {
				outs[i] = "y" + string(rune('0'+i))
			}
			n := g.AddNode("Split", "", "", ins, outs, tc.attrs...)
			m := &Model{Opsets: []OpsetID{{"", tc.opset}}, Graph: g}
			InferModel(m, InferOptions{})
			for i, w := range tc.want {
				if got := n.Outputs[i].Type.String(); got != w {
					t.Errorf("output %d: %s, want %s", i, got, w)
				}
			}
		})
	}
}

func TestSmProd(t *testing.T) {
	cases := []struct {
		a, b []Dim
		want string
	}{
		{[]Dim{S("N"), D(3), D(4)}, []Dim{S("N"), D(4)}, "3"},
		{[]Dim{S("N"), D(6), S("M")}, []Dim{D(2)}, "3*M*N"},
		{[]Dim{S("N"), D(6)}, []Dim{S("M")}, "?"},
		{[]Dim{D(7)}, []Dim{D(2)}, "?"},
		{[]Dim{S("2*N")}, []Dim{D(2)}, "N"},
		{[]Dim{Unknown(), D(2)}, []Dim{D(2)}, "?"},
	}
	for _, tc := range cases {
		if got := smProdOf(tc.a).div(smProdOf(tc.b)).String(); got != tc.want {
			t.Errorf("%v / %v = %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}
