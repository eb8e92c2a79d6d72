package ir

import (
	"fmt"
	"strings"
	"testing"
)

// cxCase is one single-node inference case for the compute-op tests.
type cxCase struct {
	name   string
	op     string
	domain string
	opset  int64     // ai.onnx opset (or the node's domain's); default 17
	in     []Type    // input types; the zero Type marks an omitted input
	consts []*Tensor // constant inputs appended after in (initializers)
	attrs  []*Attr
	nout   int      // number of outputs (default 1)
	want   []string // expected output types (Type.String); "" skips one
	known  string   // expected Known values of output 0 ("" skips)
	err    Code     // the code of the one diagnostic expected ("" for none)
}

// cxT builds a tensor type; dims are ints (concrete), "?" (unknown) or a
// symbol name. No dims means a scalar; cxT(dt, "*") means unknown rank.
func cxT(dt DType, dims ...any) Type {
	if len(dims) == 1 && dims[0] == "*" {
		return TensorType(dt, UnknownShape())
	}
	s := Shape{Known: true, Dims: []Dim{}}
	for _, d := range dims {
		switch v := d.(type) {
		case int:
			s.Dims = append(s.Dims, D(int64(v)))
		case string:
			if v == "?" {
				s.Dims = append(s.Dims, Unknown())
			} else {
				s.Dims = append(s.Dims, S(v))
			}
		}
	}
	return TensorType(dt, s)
}

// cxInts is an int64 constant of shape [len(v)] (or a scalar when scalar).
func cxInts(scalar bool, v ...int64) *Tensor {
	t := (&Tensor{DType: Int64}).SetInt64s(v)
	if !scalar {
		t.Dims = []int64{int64(len(v))}
	}
	return t
}

func cxAttrI(name string, v int64) *Attr { return &Attr{Name: name, Type: AttrInt, I: v} }
func cxAttrF(name string, v float32) *Attr {
	return &Attr{Name: name, Type: AttrFloat, F: v}
}
func cxAttrS(name, v string) *Attr { return &Attr{Name: name, Type: AttrString, S: []byte(v)} }
func cxAttrIs(name string, v ...int64) *Attr {
	return &Attr{Name: name, Type: AttrInts, Ints: v}
}

func cxKnownString(k []Dim) string {
	if k == nil {
		return "<nil>"
	}
	parts := make([]string, len(k))
	for i, d := range k {
		if d.Sym == "" {
			parts[i] = fmt.Sprint(d.Val)
		} else {
			parts[i] = d.Sym
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func cxRun(t *testing.T, tc cxCase) {
	t.Helper()
	g := NewGraph("g")
	var ins []*Value
	for i, ty := range tc.in {
		if ty.Kind == KindUnknown {
			ins = append(ins, nil)
			continue
		}
		ins = append(ins, g.AddInput(fmt.Sprintf("in%d", i), ty))
	}
	for i, c := range tc.consts {
		c.Name = fmt.Sprintf("c%d", i)
		ins = append(ins, g.AddInitializer(c))
	}
	nout := tc.nout
	if nout == 0 {
		nout = 1
	}
	outs := make([]string, nout)
	for i := range outs {
		outs[i] = fmt.Sprintf("out%d", i)
	}
	n := g.AddNode(tc.op, tc.domain, "n", ins, outs, tc.attrs...)
	opset := tc.opset
	if opset == 0 {
		opset = 17
	}
	m := &Model{Opsets: []OpsetID{{"", opset}}, Graph: g}
	if tc.domain != "" {
		m.Opsets = append(m.Opsets, OpsetID{tc.domain, 1})
	}
	res := InferModel(m, InferOptions{})
	var diags []string
	for _, d := range res.Diagnostics {
		diags = append(diags, d.String())
	}
	var codes []Code
	for _, d := range res.Diagnostics {
		if d.Code != CodeConflict {
			codes = append(codes, d.Code)
		}
	}
	if len(codes) > 1 || (len(codes) == 1) != (tc.err != "") || (len(codes) == 1 && codes[0] != tc.err) {
		t.Errorf("diagnostics %q with codes %q, want code %q", diags, codes, tc.err)
	}
	if tc.err != "" {
		return
	}
	for i, w := range tc.want {
		if w == "" {
			continue
		}
		if got := n.Outputs[i].Type.String(); got != w {
			t.Errorf("output %d: got %s, want %s", i, got, w)
		}
	}
	if tc.known != "" {
		if got := cxKnownString(n.Outputs[0].Known()); got != tc.known {
			t.Errorf("known: got %s, want %s", got, tc.known)
		}
	}
}

func cxRunAll(t *testing.T, cases []cxCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { cxRun(t, tc) })
	}
}

func TestInferElementwise(t *testing.T) {
	f := Float32
	cxRunAll(t, []cxCase{
		{name: "relu keeps symbolic", op: "Relu", in: []Type{cxT(f, "N", 3)}, want: []string{"float32[N,3]"}},
		{name: "unary unknown rank", op: "Exp", in: []Type{cxT(Float16, "*")}, want: []string{"float16[*]"}},
		{name: "clip optional inputs", op: "Clip", opset: 13, in: []Type{cxT(f, 2, 3), cxT(f), {}}, want: []string{"float32[2,3]"}},
		{name: "isnan bool", op: "IsNaN", in: []Type{cxT(f, 4)}, want: []string{"bool[4]"}},
		{name: "add broadcast", op: "Add", in: []Type{cxT(f, "N", 1, 5), cxT(f, 4, 1)}, want: []string{"float32[N,4,5]"}},
		{name: "add mismatch", op: "Add", in: []Type{cxT(f, 3), cxT(f, 4)}, err: CodeBroadcast},
		{name: "legacy broadcast axis", op: "Add", opset: 6, in: []Type{cxT(f, "N", 3, 4, 5), cxT(f, 3)}, attrs: []*Attr{cxAttrI("broadcast", 1), cxAttrI("axis", 1)}, want: []string{"float32[N,3,4,5]"}},
		{name: "legacy broadcast trailing", op: "Mul", opset: 1, in: []Type{cxT(f, 2, 3, 4), cxT(f, 4)}, attrs: []*Attr{cxAttrI("broadcast", 1)}, want: []string{"float32[2,3,4]"}},
		{name: "legacy compare", op: "Less", opset: 6, in: []Type{cxT(f, 2, 3), cxT(f, 3)}, attrs: []*Attr{cxAttrI("broadcast", 1), cxAttrI("axis", 1)}, want: []string{"bool[2,3]"}},
		{name: "equal bool", op: "Equal", in: []Type{cxT(Int64, 3), cxT(Int64)}, want: []string{"bool[3]"}},
		{name: "sum variadic", op: "Sum", in: []Type{cxT(f, 3, 1), cxT(f, 1, 4), cxT(f, 4)}, want: []string{"float32[3,4]"}},
		{name: "where", op: "Where", in: []Type{cxT(Bool, 2, 1), cxT(Int32, 3), cxT(Int32)}, want: []string{"int32[2,3]"}},
		{name: "cast", op: "Cast", in: []Type{cxT(f, "B", 2)}, attrs: []*Attr{cxAttrI("to", int64(Float16))}, want: []string{"float16[B,2]"}},
		{name: "cast bad to", op: "Cast", in: []Type{cxT(f, 2)}, attrs: []*Attr{cxAttrI("to", 999)}, err: CodeDType},
		{name: "castlike", op: "CastLike", in: []Type{cxT(f, 2), cxT(BFloat16)}, want: []string{"bfloat16[2]"}},
		{name: "prelu", op: "PRelu", in: []Type{cxT(f, 1, 8, 4, 4), cxT(f, 8, 1, 1)}, want: []string{"float32[1,8,4,4]"}},
		{name: "swiglu", op: "SwiGLU", opset: 28, in: []Type{cxT(f, 2, 4), cxT(f, 2, 4)}, want: []string{"float32[2,4]"}},
		// Known-value propagation on shape tensors.
		{name: "mul known", op: "Mul", consts: []*Tensor{cxInts(false, 2, 3), cxInts(true, 4)}, want: []string{"int64[2]"}, known: "[8 12]"},
		{name: "sub known negative", op: "Sub", consts: []*Tensor{cxInts(false, 1), cxInts(false, 3)}, known: "[-2]"},
		{name: "div known", op: "Div", consts: []*Tensor{cxInts(false, 7, 9), cxInts(false, 2, 3)}, known: "[3 3]"},
		{name: "max known", op: "Max", consts: []*Tensor{cxInts(false, 7, -1), cxInts(false, 2, 3)}, known: "[7 3]"},
		{name: "float add has no known", op: "Add", in: []Type{cxT(f, 2), cxT(f, 2)}, known: "<nil>"},
		{name: "cast known int32", op: "Cast", consts: []*Tensor{cxInts(false, 5, -1)}, attrs: []*Attr{cxAttrI("to", int64(Int32))}, want: []string{"int32[2]"}, known: "[5 -1]"},
		{name: "cast float const to int", op: "Cast", consts: []*Tensor{(&Tensor{DType: Float32, Dims: []int64{3}}).SetFloats([]float32{2, -1.5, 7.9})}, attrs: []*Attr{cxAttrI("to", int64(Int64))}, want: []string{"int64[3]"}, known: "[2 -1 7]"},
		{name: "cast float const to bool", op: "Cast", consts: []*Tensor{(&Tensor{DType: Float32, Dims: []int64{2}}).SetFloats([]float32{0.5, 0})}, attrs: []*Attr{cxAttrI("to", int64(Bool))}, want: []string{"bool[2]"}, known: "[1 0]"},
		{name: "cast known out of range", op: "Cast", consts: []*Tensor{cxInts(false, 300)}, attrs: []*Attr{cxAttrI("to", int64(Int8))}, known: "<nil>"},
		{name: "equal known", op: "Equal", consts: []*Tensor{cxInts(false, 1, -1), cxInts(true, -1)}, want: []string{"bool[2]"}, known: "[0 1]"},
		{name: "where known", op: "Where", consts: []*Tensor{(&Tensor{DType: Bool, Dims: []int64{2}}).SetInt32s([]int32{1, 0}), cxInts(false, 4, 5), cxInts(false, 6, 7)}, known: "[4 7]"},
		{name: "mod known python sign", op: "Mod", consts: []*Tensor{cxInts(false, -7, 7), cxInts(false, 3, -3)}, known: "[2 -2]"},
		{name: "mod known fmod", op: "Mod", consts: []*Tensor{cxInts(false, -7, 7), cxInts(false, 3, -3)}, attrs: []*Attr{cxAttrI("fmod", 1)}, known: "[-1 1]"},
		{name: "neg known", op: "Neg", consts: []*Tensor{cxInts(false, 4)}, known: "[-4]"},
	})
}

// TestKnownSymbolic checks that symbolic dims flow through integer
// arithmetic on shape tensors (Shape -> Gather -> Mul -> Concat).
func TestKnownSymbolic(t *testing.T) {
	cases := []struct {
		op   string
		a, b []Dim
		want string
	}{
		{"Mul", []Dim{S("N"), D(3)}, []Dim{D(2)}, "[2*N 6]"},
		{"Add", []Dim{S("N")}, []Dim{D(1)}, "[N+1]"},
		{"Sub", []Dim{S("N")}, []Dim{D(-1)}, "<nil>"},
		{"Div", []Dim{S("N")}, []Dim{D(2)}, "[N/2]"},
		{"Div", []Dim{S("N")}, []Dim{S("N")}, "[1]"},
		{"Max", []Dim{S("N")}, []Dim{D(0)}, "[N]"},
		{"Max", []Dim{S("N")}, []Dim{D(5)}, "<nil>"},
		{"Equal", []Dim{S("N"), S("N")}, []Dim{S("N"), S("M")}, "<nil>"},
	}
	for _, tc := range cases {
		t.Run(tc.op+cxKnownString(tc.a)+cxKnownString(tc.b), func(t *testing.T) {
			g := NewGraph("g")
			a := g.AddInput("a", TensorType(Int64, ShapeOf(int64(len(tc.a)))))
			b := g.AddInput("b", TensorType(Int64, ShapeOf(int64(len(tc.b)))))
			n := g.AddNode(tc.op, "", "n", []*Value{a, b}, []string{"y"})
			m := &Model{Opsets: []OpsetID{{"", 17}}, Graph: g}
			// Known values of graph inputs are set by hand, as Shape would.
			st := &inferState{model: m, opt: InferOptions{MaxKnown: 1024}, res: &InferResult{Opaque: map[string]int{}}}
			a.SetKnown(tc.a)
			b.SetKnown(tc.b)
			st.inferNode(n)
			if got := cxKnownString(n.Outputs[0].Known()); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestComputeOpsNoPanic feeds every compute op (cxOps) input types of
// assorted ranks, dtypes, symbolic and unknown dims, omitted inputs and
// hostile attributes. Inference may fail with a diagnostic but must never
// panic (the engine turns a panic into "inference failed: ...").
func TestComputeOpsNoPanic(t *testing.T) {
	shapes := []Type{
		{}, // omitted
		cxT(Float32, "*"),
		cxT(Float32),
		cxT(Int64, 0),
		cxT(Int64, 1),
		cxT(Float32, 2, 3),
		cxT(Float16, "N", 3, 5),
		cxT(Uint8, "N", 3, 5, 5),
		cxT(Float32, 1, "?", 4, 4, 4),
		cxT(Int32, 2, 0, 3),
	}
	attrSets := [][]*Attr{
		nil,
		{cxAttrIs("kernel_shape", 0, 0), cxAttrIs("strides", 0, -1), cxAttrIs("pads", -1, 2), cxAttrI("axis", 100), cxAttrIs("axes", 7, -9)},
		{cxAttrIs("kernel_shape", 3, 3), cxAttrIs("pads", 1, 1, 1, 1), cxAttrI("ceil_mode", 1), cxAttrS("auto_pad", "SAME_LOWER"), cxAttrI("group", 0)},
		{cxAttrI("num_heads", 0), cxAttrI("kv_num_heads", -3), cxAttrI("q_num_heads", 3), cxAttrI("hidden_size", -1), cxAttrS("direction", "bidirectional"), cxAttrI("layout", 1)},
		{cxAttrI("to", -5), cxAttrI("bits", 3), cxAttrI("gather_axis", -7), cxAttrS("equation", "..i,j...->"), cxAttrIs("output_shape", 1), cxAttrIs("border", 1)},
		{cxAttrS("equation", "ab,bc->ac"), cxAttrI("keepdims", 0), cxAttrI("onesided", 1), cxAttrI("inverse", 1), cxAttrI("transA", 1), cxAttrIs("qkv_hidden_sizes", 4, 4)},
	}
	consts := []*Tensor{cxInts(true, -1), cxInts(false, 0, 1), cxInts(false), cxInts(true, 3)}
	seed := uint64(1)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(n))
	}
	if len(cxOps) < 150 {
		t.Fatalf("only %d compute ops registered", len(cxOps))
	}
	for _, op := range cxOps {
		def := Info(Key(op[0], op[1]))
		in, out := def.Arity(0)
		maxIn := in.Max
		if maxIn < 0 {
			maxIn = in.Min + 3
		}
		for trial := 0; trial < 60; trial++ {
			g := NewGraph("g")
			nin := in.Min + next(maxIn-in.Min+1)
			ins := make([]*Value, nin)
			for i := range ins {
				switch k := next(len(shapes) + len(consts)); {
				case k < len(shapes):
					if shapes[k].Kind != KindUnknown {
						ins[i] = g.AddInput(fmt.Sprintf("in%d", i), shapes[k])
					}
				default:
					c := *consts[k-len(shapes)]
					c.Name = fmt.Sprintf("c%d", i)
					ins[i] = g.AddInitializer(&c)
				}
			}
			nout := out.Max
			if nout < 0 || nout > 5 {
				nout = 5
			}
			outs := make([]string, nout)
			for i := range outs {
				outs[i] = fmt.Sprintf("out%d", i)
			}
			g.AddNode(op[1], op[0], "n", ins, outs, attrSets[next(len(attrSets))]...)
			opsets := []int64{1, 7, 11, 13, 17, 18, 20, 23, 28}
			m := &Model{Opsets: []OpsetID{{"", opsets[next(len(opsets))]}, {op[0], 1}}, Graph: g}
			for _, d := range InferModel(m, InferOptions{}).Diagnostics {
				if strings.HasPrefix(d.Msg, "inference failed") {
					t.Errorf("%s:%s trial %d: %s", op[0], op[1], trial, d)
				}
			}
		}
	}
}

// TestKnownShapeChain runs the usual exporter pattern
// Shape -> Gather -> Mul -> Concat -> Reshape with a symbolic batch: the
// reshape target must come out symbolic ("2*N") rather than unknown.
func TestKnownShapeChain(t *testing.T) {
	g := NewGraph("g")
	x := g.AddInput("x", cxT(Float32, "N", 3, 4))
	idx := g.AddInitializer((&Tensor{Name: "idx", DType: Int64}).SetInt64s([]int64{0}))
	two := g.AddInitializer((&Tensor{Name: "two", DType: Int64}).SetInt64s([]int64{2}))
	rest := g.AddInitializer((&Tensor{Name: "rest", DType: Int64, Dims: []int64{1}}).SetInt64s([]int64{-1}))
	shp := g.AddNode("Shape", "", "shape", []*Value{x}, []string{"s"})
	gat := g.AddNode("Gather", "", "gather", []*Value{shp.Outputs[0], idx}, []string{"n"})
	mul := g.AddNode("Mul", "", "mul", []*Value{gat.Outputs[0], two}, []string{"n2"})
	uns := g.AddNode("Unsqueeze", "", "unsq", []*Value{mul.Outputs[0]}, []string{"n2v"}, cxAttrIs("axes", 0))
	cat := g.AddNode("Concat", "", "concat", []*Value{uns.Outputs[0], rest}, []string{"target"}, cxAttrI("axis", 0))
	rs := g.AddNode("Reshape", "", "reshape", []*Value{x, cat.Outputs[0]}, []string{"y"})
	m := &Model{Opsets: []OpsetID{{"", 11}}, Graph: g}
	res := InferModel(m, InferOptions{})
	if got := cxKnownString(mul.Outputs[0].Known()); got != "[2*N]" {
		t.Errorf("Mul known = %s, want [2*N] (diagnostics %v)", got, res.Warnings())
	}
	// 2*N rows of N*12/(2*N) = 6 elements: Reshape may resolve -1 or not,
	// but the first dim must be the symbolic product.
	if got := rs.Outputs[0].Type.Shape; !got.Known || len(got.Dims) != 2 || got.Dims[0].String() != "2*N" {
		t.Errorf("Reshape shape = %s, want [2*N,...] (diagnostics %v)", got, res.Warnings())
	}
}

// TestComputeOpsRegistered guards the coverage of the standard compute
// families: every listed ai.onnx op must have an inference function.
func TestComputeOpsRegistered(t *testing.T) {
	ops := strings.Fields(`Abs Acos Acosh Add And ArgMax ArgMin Asin Asinh Atan Atanh Attention
		AveragePool BatchNormalization BitCast BitShift BitwiseAnd BitwiseNot BitwiseOr BitwiseXor
		BlackmanWindow Cast CastLike CausalConvWithState Ceil Celu Clip Conv ConvInteger ConvTranspose
		Cos Cosh CumProd CumSum DFT DeformConv DequantizeLinear Det Div Dropout DynamicQuantizeLinear
		Einsum Elu Equal Erf Exp Floor GRU Gelu Gemm GlobalAveragePool GlobalLpPool GlobalMaxPool
		Greater GreaterOrEqual GroupNormalization HammingWindow HannWindow HardSigmoid HardSwish
		Hardmax InstanceNormalization IsInf IsNaN LRN LSTM LayerNormalization LeakyRelu Less
		LessOrEqual LinearAttention Log LogSoftmax LpNormalization LpPool MatMul MatMulInteger Max
		MaxPool MaxRoiPool MaxUnpool Mean MeanVarianceNormalization MelWeightMatrix Min Mish Mod Mul
		Neg NegativeLogLikelihoodLoss Not Or PRelu Pow QLinearConv QLinearMatMul QuantizeLinear
		RMSNormalization RNN Reciprocal ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax
		ReduceMean ReduceMin ReduceProd ReduceSum ReduceSumSquare Relu RoiAlign RotaryEmbedding Round
		STFT Selu Shrink Sigmoid Sign Sin Sinh Softmax SoftmaxCrossEntropyLoss Softplus Softsign Sqrt
		Sub Sum SwiGLU Swish Tan Tanh ThresholdedRelu Where Xor Affine Crop GRUUnit ImageScaler
		ParametricSoftplus Scale ScaledTanh`)
	for _, op := range ops {
		if !Inferable("", op) {
			t.Errorf("%s: no inference function", op)
		}
	}
}
