package eval

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// runKeep evaluates m, optionally keeping every value until the end (the
// evaluator before values were dropped after their last use).
func runKeep(m *ir.Model, in map[string]Value, opt Options, keepAll bool) ([]Value, *Evaluator, error) {
	e := New(m, opt)
	e.keepAll = keepAll
	out, err := e.Run(in)
	return out, e, err
}

// negChain builds y = Neg^k(x) on float32[n]: k intermediates of 4n bytes,
// each read once by the next node.
func negChain(n, k int) *ir.Model {
	g := ir.NewGraph("chain")
	v := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(int64(n))))
	for i := 0; i < k; i++ {
		v = g.AddNode("Neg", "", "neg"+string(rune('a'+i)), []*ir.Value{v}, []string{"v" + string(rune('a'+i))}).Outputs[0]
	}
	g.Outputs = []*ir.Value{v}
	return &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
}

func ramp(n int) *Tensor {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i) - 7
	}
	return f32([]int{n}, v...)
}

// TestLiveChain checks that a chain runs within a bound far below the sum
// of its intermediates only because values are dropped after their last
// use.
func TestLiveChain(t *testing.T) {
	const n, k = 1024, 15 // 4 KiB per tensor; 16 tensors = 64 KiB in all
	const tb = 4 * n
	tests := []struct {
		name     string
		keepAll  bool
		max      int64
		wantErr  string
		wantPeak int64
	}{
		// Only a node's input and output are live at once.
		{"freeing, bound of three tensors", false, 3 * tb, "", 2 * tb},
		{"freeing, bound of two tensors", false, 2 * tb, "", 2 * tb},
		{"freeing, bound under two tensors", false, 2*tb - 1, "over the memory limit of 8191 bytes", 0},
		{"keeping all, bound of three tensors", true, 3 * tb, "over the memory limit of 12288 bytes", 0},
		{"keeping all, default bound", true, 0, "", (k + 1) * tb},
	}
	m := negChain(n, k)
	x := ramp(n)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, e, err := runKeep(m, map[string]Value{"x": x}, Options{MaxMemory: tc.max}, tc.keepAll)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("got error %v, want one line containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.PeakLiveBytes(); got != tc.wantPeak {
				t.Errorf("peak live bytes %d, want %d", got, tc.wantPeak)
			}
			y := out[0].(*Tensor).F
			for i, v := range x.F {
				if y[i] != -v { // an odd number of Negs
					t.Fatalf("y[%d] = %v, want %v", i, y[i], -v)
				}
			}
			if e.live.bytes != 0 || len(e.live.bufs) != 0 {
				t.Errorf("after the run %d bytes in %d buffers are still counted live", e.live.bytes, len(e.live.bufs))
			}
		})
	}
}

// TestLiveOverLimit checks the error of a model whose live set, not any
// one allocation, exceeds the bound: a = Neg(x), b = Relu(x), c = a + b
// holds x, a and b at once.
func TestLiveOverLimit(t *testing.T) {
	const n = 1024
	const tb = 4 * n
	g := ir.NewGraph("diamond")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(n)))
	a := g.AddNode("Neg", "", "a", []*ir.Value{x}, []string{"a"}).Outputs[0]
	b := g.AddNode("Relu", "", "b", []*ir.Value{x}, []string{"b"}).Outputs[0]
	c := g.AddNode("Add", "", "c", []*ir.Value{a, b}, []string{"c"}).Outputs[0]
	g.Outputs = []*ir.Value{c}
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	tests := []struct {
		name    string
		max     int64
		wantErr []string
	}{
		{"three tensors fit", 3 * tb, nil},
		{"under three tensors", 3*tb - 4, []string{"node b (Relu): ", "8192 bytes of tensors live", "over the memory limit of 12284 bytes"}},
		{"under two tensors", 2*tb - 4, []string{"node a (Neg): ", "over the memory limit of 8188 bytes"}},
		{"under one tensor", tb - 4, []string{"the inputs hold 4096 bytes, over the memory limit of 4092 bytes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, e, err := runKeep(m, map[string]Value{"x": ramp(n)}, Options{MaxMemory: tc.max}, false)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if got := out[0].(*Tensor).F[n-1]; got != 0 {
					t.Errorf("c[last] = %v, want 0", got)
				}
				if e.PeakLiveBytes() != 3*tb {
					t.Errorf("peak %d, want %d", e.PeakLiveBytes(), 3*tb)
				}
				return
			}
			if err == nil || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got error %v, want one line", err)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if e.live.bytes != 0 {
				t.Errorf("after the failure %d bytes are still counted live", e.live.bytes)
			}
		})
	}
}

// TestLiveCheckNode checks the bound on a node's bound outputs (for
// kernels that do not allocate through Ctx.alloc).
func TestLiveCheckNode(t *testing.T) {
	e := New(&ir.Model{Graph: ir.NewGraph("g")}, Options{MaxMemory: 100})
	n := &ir.Node{Op: "Big", Name: "big"}
	sc := &scope{vals: map[*ir.Value]Value{}}
	tests := []struct {
		name  string
		elems int
		want  string
	}{
		{"fits", 25, ""},
		{"over", 26, "node big (Big): would hold 104 bytes of live tensors, over the memory limit of 100 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := &ir.Value{Name: "out"}
			e.bind(sc, v, newTensor(ir.Float32, []int{tc.elems}))
			err := e.checkLive(n)
			e.releaseScope(sc)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestLiveSetSharing checks that views of one buffer count once and that
// sequences and optionals count their tensors.
func TestLiveSetSharing(t *testing.T) {
	a := newTensor(ir.Float32, []int{4, 8}) // 128 bytes
	view := &Tensor{DType: ir.Float32, Shape: []int{32}, F: a.F}
	tail := &Tensor{DType: ir.Float32, Shape: []int{16}, F: a.F[16:]}
	b := newTensor(ir.Int64, []int{3}) // 24 bytes
	c := newTensor(ir.Bool, []int{5})  // 5 bytes
	empty := newTensor(ir.Float32, []int{0})
	tests := []struct {
		name string
		vals []Value
		want int64
	}{
		{"one tensor", []Value{a}, 128},
		{"tensor and its view", []Value{a, view}, 128},
		{"tensor and its tail", []Value{a, tail}, 128},
		{"tail first", []Value{tail, a}, 128},
		{"two buffers", []Value{a, b}, 152},
		{"sequence", []Value{&Sequence{Elem: ir.Float32, Items: []*Tensor{a, view, b}}}, 152},
		{"optional", []Value{&Optional{Value: c}, &Optional{}}, 5},
		{"same tensor twice", []Value{b, b}, 24},
		{"empty", []Value{empty}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l liveSet
			for _, v := range tc.vals {
				l.hold(v)
			}
			if l.bytes != tc.want || l.peak != tc.want {
				t.Errorf("live %d, peak %d, want %d", l.bytes, l.peak, tc.want)
			}
			for i := len(tc.vals) - 1; i >= 0; i-- {
				if l.bytes == 0 && tc.want != 0 {
					t.Fatalf("live set emptied before its last value was released")
				}
				l.release(tc.vals[i])
			}
			if l.bytes != 0 || len(l.bufs) != 0 {
				t.Errorf("after releasing all: %d bytes in %d buffers", l.bytes, len(l.bufs))
			}
		})
	}
}

// captureModels builds models whose outer value a = Neg(x) is read only
// from inside a subgraph (If branches, a Loop body, an If nested in a Loop
// body, an If branch input bound by name), so dropping a before the
// control node would fail.
func captureModels() map[string]*ir.Model {
	out := map[string]*ir.Model{}
	mk := func(build func(g *ir.Graph, x, a *ir.Value) *ir.Value) *ir.Model {
		g := ir.NewGraph("main")
		x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(4)))
		a := g.AddNode("Neg", "", "neg", []*ir.Value{x}, []string{"a"}).Outputs[0]
		g.Outputs = []*ir.Value{build(g, x, a)}
		return &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	}
	cond := func(g *ir.Graph) *ir.Value {
		t := (&ir.Tensor{Name: "cond", DType: ir.Bool, Dims: []int64{}}).SetInt32s([]int32{1})
		return g.AddNode("Constant", "", "cond", nil, []string{"cond"}, &ir.Attr{Name: "value", Type: ir.AttrTensor, T: t}).Outputs[0]
	}
	branch := func(name, op string, a *ir.Value) *ir.Graph {
		b := ir.NewGraph(name)
		b.Outputs = []*ir.Value{b.AddNode(op, "", name+"_op", []*ir.Value{a}, []string{name + "_y"}).Outputs[0]}
		return b
	}
	ifNode := func(g *ir.Graph, a *ir.Value, name string) *ir.Value {
		return g.AddNode("If", "", name, []*ir.Value{cond(g)}, []string{name + "_out"},
			&ir.Attr{Name: "then_branch", Type: ir.AttrGraph, G: branch(name+"_then", "Relu", a)},
			&ir.Attr{Name: "else_branch", Type: ir.AttrGraph, G: branch(name+"_else", "Neg", a)}).Outputs[0]
	}
	// y = Relu(-x)
	out["if capture"] = mk(func(g *ir.Graph, x, a *ir.Value) *ir.Value { return ifNode(g, a, "if") })
	// y = Relu(-x): both branches declare an input named "a".
	out["if input by name"] = mk(func(g *ir.Graph, x, a *ir.Value) *ir.Value {
		byName := func(name, op string) *ir.Graph {
			b := ir.NewGraph(name)
			sa := b.AddInput("a", ir.Type{})
			b.Outputs = []*ir.Value{b.AddNode(op, "", name+"_op", []*ir.Value{sa}, []string{name + "_y"}).Outputs[0]}
			return b
		}
		return g.AddNode("If", "", "if", []*ir.Value{cond(g)}, []string{"if_out"},
			&ir.Attr{Name: "then_branch", Type: ir.AttrGraph, G: byName("then", "Relu")},
			&ir.Attr{Name: "else_branch", Type: ir.AttrGraph, G: byName("else", "Neg")}).Outputs[0]
	})
	loop := func(g *ir.Graph, x, a *ir.Value, nested bool) *ir.Value {
		body := ir.NewGraph("body")
		body.AddInput("i", ir.TensorType(ir.Int64, ir.ShapeOf()))
		c := body.AddInput("c", ir.TensorType(ir.Bool, ir.ShapeOf()))
		v := body.AddInput("v", ir.Type{})
		add := a
		if nested {
			add = ifNode(body, a, "inner")
		}
		co := body.AddNode("Identity", "", "cid", []*ir.Value{c}, []string{"c_out"}).Outputs[0]
		vo := body.AddNode("Add", "", "acc", []*ir.Value{v, add}, []string{"v_out"}).Outputs[0]
		body.Outputs = []*ir.Value{co, vo}
		trip := g.AddInitializer((&ir.Tensor{Name: "trip", DType: ir.Int64, Dims: []int64{}}).SetInt64s([]int64{3}))
		return g.AddNode("Loop", "", "loop", []*ir.Value{trip, cond(g), x}, []string{"loop_out"},
			&ir.Attr{Name: "body", Type: ir.AttrGraph, G: body}).Outputs[0]
	}
	// y = x + 3(-x) = -2x
	out["loop capture"] = mk(func(g *ir.Graph, x, a *ir.Value) *ir.Value { return loop(g, x, a, false) })
	// y = x + 3 Relu(-x)
	out["if in loop capture"] = mk(func(g *ir.Graph, x, a *ir.Value) *ir.Value { return loop(g, x, a, true) })
	return out
}

// TestLiveCaptures checks that values read only through subgraphs stay
// live until their control node has run, with and without dropping.
func TestLiveCaptures(t *testing.T) {
	relu := func(v float32) float32 { return max(v, 0) }
	x := []float32{-2, -0.5, 1, 3}
	tests := []struct {
		name string
		want func(x float32) float32
	}{
		{"if capture", func(x float32) float32 { return relu(-x) }},
		{"if input by name", func(x float32) float32 { return relu(-x) }},
		{"loop capture", func(x float32) float32 { return -2 * x }},
		{"if in loop capture", func(x float32) float32 { return x + 3*relu(-x) }},
	}
	models := captureModels()
	for _, tc := range tests {
		for _, keep := range []bool{false, true} {
			name := tc.name + map[bool]string{false: ", dropping", true: ", keeping all"}[keep]
			t.Run(name, func(t *testing.T) {
				out, e, err := runKeep(models[tc.name], map[string]Value{"x": f32([]int{4}, x...)}, Options{}, keep)
				if err != nil {
					t.Fatal(err)
				}
				got := out[0].(*Tensor).F
				for i, v := range x {
					if got[i] != tc.want(v) {
						t.Fatalf("y = %v, want y[%d] = %v", got, i, tc.want(v))
					}
				}
				if e.live.bytes != 0 {
					t.Errorf("after the run %d bytes are still counted live", e.live.bytes)
				}
			})
		}
	}
}

// TestLiveModels runs shared models (control flow, CNNs, RNNs, a decoder)
// with and without dropping values: the outputs must be identical, the
// peak live set no larger, and it logs both peaks.
func TestLiveModels(t *testing.T) {
	models := []string{
		"controlflow/burn_loop_nested.onnx",
		"controlflow/burn_loop_scan_outputs.onnx",
		"controlflow/burn_outer_scope_loop.onnx",
		"controlflow/burn_scan_multi_state.onnx",
		"controlflow/occ_test_subgraph_if_castlike.onnx",
		"cnn/mnist_cntk_opset7.onnx",
		"cnn/squeezenet1.0_fp16.onnx",
		"cnn/ultraface_version-slim-320.onnx",
		"rnn/tract_qlstm_3-2-3_T3_S1_scan.onnx",
		"transformer/static_scatter_bias_decoder_opset24.onnx",
	}
	listModels(t) // skips when the corpus is absent
	for _, rel := range models {
		t.Run(rel, func(t *testing.T) {
			m, err := loadForEval(filepath.Join(modelsRoot, rel))
			if err != nil {
				t.Fatal(err)
			}
			in, err := RandomInputs(m.Graph, 1, DefaultMaxMemory)
			if err != nil {
				t.Fatal(err)
			}
			var outs [2][]Value
			var peaks [2]int64
			for i, keep := range []bool{false, true} {
				o, e, err := runKeep(m, in, Options{}, keep)
				if err != nil {
					t.Fatalf("keepAll=%v: %v", keep, err)
				}
				outs[i], peaks[i] = o, e.PeakLiveBytes()
			}
			for j := range outs[1] {
				if d := Compare(outs[0][j], outs[1][j], Tolerance{}); !d.OK() {
					t.Errorf("output %d differs when dropping values: %s", j, d)
				}
			}
			if peaks[0] > peaks[1] || peaks[0] <= 0 {
				t.Errorf("peak live bytes %d dropping, %d keeping all", peaks[0], peaks[1])
			}
			t.Logf("peak live bytes: %d dropping values, %d keeping all (%.1f%%)", peaks[0], peaks[1], 100*float64(peaks[0])/float64(peaks[1]))
		})
	}
}

// TestCheckMessages checks the allocation check's one-line errors: a shape
// too large to count names the limit, a negative dim is an invalid shape.
func TestCheckMessages(t *testing.T) {
	e := New(&ir.Model{Graph: ir.NewGraph("g")}, Options{MaxMemory: 1 << 20})
	c := &Ctx{e: e}
	tests := []struct {
		name  string
		dt    ir.DType
		shape []int
		live  int
		want  string
	}{
		{"fits", ir.Float32, []int{256, 1024}, 0, ""},
		{"one allocation over", ir.Int64, []int{256, 1024}, 0, "output int64[256,1024] needs 2097152 bytes, over the memory limit of 1048576 bytes"},
		{"live set over", ir.Float32, []int{128, 1024}, 200000, "output float32[128,1024] needs 524288 bytes with 800000 bytes of tensors live, over the memory limit of 1048576 bytes"},
		{"too many elements", ir.Float32, []int{1 << 30, 1 << 30}, 0, "output float32[1073741824,1073741824] has more than 2^51 elements, over the memory limit of 1048576 bytes"},
		{"negative dim", ir.Float32, []int{2, -1}, 0, "invalid output shape [2 -1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := &scope{vals: map[*ir.Value]Value{}}
			if tc.live > 0 {
				e.bind(sc, &ir.Value{Name: "held"}, newTensor(ir.Float32, []int{tc.live}))
			}
			err := c.check(tc.dt, tc.shape)
			e.releaseScope(sc)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRandomTensorLimits: a random input too large to count, or over the
// limit, names --max-memory; a negative dim is an invalid shape.
func TestRandomTensorLimits(t *testing.T) {
	for _, c := range []struct {
		shape []int
		want  string
	}{
		{[]int{1 << 30, 1 << 30}, "more than 2^51 elements, over the memory limit of 1024 bytes"},
		{[]int{16, 32}, "needs 2048 bytes, over the memory limit of 1024 bytes"},
		{[]int{-1, 4}, "invalid shape"},
	} {
		_, err := RandomTensor(NewRand(1), ir.Float32, c.shape, 1024)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.shape, err, c.want)
		}
	}
}
