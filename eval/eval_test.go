package eval

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

func f32(shape []int, v ...float32) *Tensor { return NewFloat32(shape, v) }

// addGraph builds y = Relu(x + c) with x float32[2,2].
func addGraph() *ir.Model {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(2, 2)))
	c := g.AddInitializer((&ir.Tensor{Name: "c", DType: ir.Float32, Dims: []int64{2}}).SetFloats([]float32{1, -10}))
	a := g.AddNode("Add", "", "add", []*ir.Value{x, c}, []string{"a"})
	r := g.AddNode("Relu", "", "relu", []*ir.Value{a.Outputs[0]}, []string{"y"})
	g.Outputs = []*ir.Value{r.Outputs[0]}
	return &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
}

func TestRunErrors(t *testing.T) {
	m := addGraph()
	tests := []struct {
		name   string
		inputs map[string]Value
		opt    Options
		want   string // "" = success
	}{
		{"ok", map[string]Value{"x": f32([]int{2, 2}, 1, 2, 3, 4)}, Options{}, ""},
		{"missing", map[string]Value{}, Options{}, `missing input "x"`},
		{"unknown", map[string]Value{"x": f32([]int{2, 2}, 1, 2, 3, 4), "z": f32([]int{1}, 1)}, Options{}, `no input "z"`},
		{"dtype", map[string]Value{"x": NewInt64([]int{2, 2}, []int64{1, 2, 3, 4})}, Options{}, "got int64[2,2], the graph wants float32[2,2]"},
		{"rank", map[string]Value{"x": f32([]int{4}, 1, 2, 3, 4)}, Options{}, "got rank 1"},
		{"dim", map[string]Value{"x": f32([]int{1, 4}, 1, 2, 3, 4)}, Options{}, "the graph wants float32[2,2]"},
		{"memory", map[string]Value{"x": f32([]int{2, 2}, 1, 2, 3, 4)}, Options{MaxMemory: 8}, "over the memory limit of 8 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Run(m, tc.inputs, tc.opt)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				got := out[0].(*Tensor).F
				want := []float32{2, 0, 4, 0}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("got %v, want %v", got, want)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestUnsupportedOp(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(1)))
	n := g.AddNode("NoSuchOp", "com.example", "n", []*ir.Value{x}, []string{"y"})
	g.Outputs = []*ir.Value{n.Outputs[0]}
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	_, err := Run(m, map[string]Value{"x": f32([]int{1}, 1)}, Options{})
	var u *UnsupportedError
	if !errors.As(err, &u) || u.Op != "com.example:NoSuchOp" {
		t.Fatalf("got %v, want an UnsupportedError for com.example:NoSuchOp", err)
	}
	if !strings.Contains(err.Error(), "unsupported op com.example:NoSuchOp") {
		t.Errorf("message %q", err)
	}
}

// TestFunctionAndFused checks that a model-local function and a wolong
// fused op evaluate by their bodies, with ref attributes bound.
func TestFunctionAndFused(t *testing.T) {
	// Body: y = LeakyRelu(a * b, alpha = @slope).
	body := ir.NewGraph("body")
	a := body.AddInput("a", ir.Type{})
	b := body.AddInput("b", ir.Type{})
	mul := body.AddNode("Mul", "", "mul", []*ir.Value{a, b}, []string{"p"})
	lr := body.AddNode("LeakyRelu", "", "lr", []*ir.Value{mul.Outputs[0]}, []string{"y"}, &ir.Attr{Name: "alpha", Type: ir.AttrFloat, RefAttrName: "slope"})
	body.Outputs = []*ir.Value{lr.Outputs[0]}
	fn := &ir.Function{Name: "MulLeaky", Domain: "local", Body: body,
		AttrDefs: []*ir.Attr{{Name: "slope", Type: ir.AttrFloat, F: 0.5}}}

	// Fused body: z = Add(u, v).
	fb := ir.NewGraph("fused")
	u := fb.AddInput("u", ir.Type{})
	v := fb.AddInput("v", ir.Type{})
	add := fb.AddNode("Add", "", "add", []*ir.Value{u, v}, []string{"z"})
	fb.Outputs = []*ir.Value{add.Outputs[0]}

	tests := []struct {
		name  string
		attrs []*ir.Attr
		slope float32
	}{
		{"default slope", nil, 0.5},
		{"call slope", []*ir.Attr{{Name: "slope", Type: ir.AttrFloat, F: 0.25}}, 0.25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ir.NewGraph("main")
			x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(2)))
			y := g.AddInput("y", ir.TensorType(ir.Float32, ir.ShapeOf(2)))
			call := g.AddNode("MulLeaky", "local", "call", []*ir.Value{x, y}, []string{"c"}, tc.attrs...)
			fused := g.AddNode("FusedAdd", "wolong", "fused", []*ir.Value{call.Outputs[0], y}, []string{"o"},
				&ir.Attr{Name: "body", Type: ir.AttrGraph, G: fb})
			g.Outputs = []*ir.Value{fused.Outputs[0]}
			m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}, {Domain: "local", Version: 1}}, Graph: g, Functions: []*ir.Function{fn}}
			// x*y = [-1, 6] -> LeakyRelu -> [-slope, 6]; + y = [1-slope, 8]
			out, err := Run(m, map[string]Value{"x": f32([]int{2}, -1, 3), "y": f32([]int{2}, 1, 2)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := out[0].(*Tensor).F
			want := []float32{1 - tc.slope, 8}
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-6 {
					t.Fatalf("got %v, want %v", got, want)
				}
			}
		})
	}
}

func TestFloat16Rounding(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float16, ir.ShapeOf(1)))
	n := g.AddNode("Add", "", "add", []*ir.Value{x, x}, []string{"y"})
	g.Outputs = []*ir.Value{n.Outputs[0]}
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	// 1.0009765625 (1 + 2^-10) is exact in fp16; twice it is too. 0.1 is not exact.
	in := &Tensor{DType: ir.Float16, Shape: []int{1}, F: []float32{ir.HalfToFloat32(ir.Float32ToHalf(0.1))}}
	out, err := Run(m, map[string]Value{"x": in}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := out[0].(*Tensor).F[0]
	if want := ir.HalfToFloat32(ir.Float32ToHalf(2 * in.F[0])); got != want {
		t.Fatalf("got %v, want the fp16 value %v", got, want)
	}
}

func TestMinifloatRoundTrip(t *testing.T) {
	tests := []struct {
		dt   ir.DType
		in   float64
		sat  bool
		want float64
	}{
		{ir.Float8E4M3FN, 1000, true, 448},
		{ir.Float8E4M3FN, 1000, false, math.NaN()},
		{ir.Float8E5M2, 1e6, false, math.Inf(1)},
		{ir.Float8E5M2, 1e6, true, 57344},
		{ir.Float8E4M3FNUZ, -0.0, true, 0},
		{ir.Float4E2M1, 2.6, true, 3},
		{ir.Float4E2M1, 2.5, true, 2}, // tie to even code
		{ir.Float8E8M0, 1.1, true, 2}, // rounds up to the next power of two
		{ir.Float8E8M0, 0.25, true, 0.25},
		{ir.Float8E8M0, math.Inf(1), false, math.NaN()},
	}
	for _, tc := range tests {
		f := minifloatFor(tc.dt)
		got := float64(f.decode(f.encode(tc.in, tc.sat)))
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s(%g, saturate=%v) = %g, want %g", tc.dt, tc.in, tc.sat, got, tc.want)
		}
	}
}

func TestToIRRoundTrip(t *testing.T) {
	tests := []*Tensor{
		f32([]int{2}, 1.5, -2),
		{DType: ir.Int4, Shape: []int{3}, I: []int64{-8, 7, 1}},
		{DType: ir.Bool, Shape: []int{2}, B: []bool{true, false}},
		{DType: ir.String, Shape: []int{1}, S: []string{"hi"}},
		{DType: ir.Float16, Shape: []int{1}, F: []float32{0.5}},
		{DType: ir.Uint64, Shape: []int{1}, I: []int64{-1}},
	}
	for _, want := range tests {
		it, err := want.ToIR("t")
		if err != nil {
			t.Fatal(err)
		}
		got, err := FromIR(it, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if d := Compare(got, want, Tolerance{}); !d.OK() {
			t.Errorf("%s: round trip differs: %s", want, d)
		}
	}
}
