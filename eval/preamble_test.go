package eval

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestKernelPreamble checks the inputs every kernel may count on, checked
// once from ir's op table before the kernel runs (checkInputs): the input
// count at the model's opset, a value in every required slot, and an
// element type each slot accepts (the message names op, input and type).
func TestKernelPreamble(t *testing.T) {
	tests := []struct {
		name   string
		op     string // "domain:Op" outside ai.onnx
		opset  int64
		inputs []string // "" leaves the slot empty
		want   string   // "" = runs
	}{
		{"ok", "Add", 17, []string{"x", "x"}, ""},
		{"too few", "Add", 17, []string{"x"}, "have 1 inputs, want 2"},
		{"too many", "Relu", 17, []string{"x", "x"}, "have 2 inputs, want 1"},
		{"axes input before opset 18", "ReduceMean", 17, []string{"x", "axes"}, "have 2 inputs, want 1"},
		{"axes input from opset 18", "ReduceMean", 18, []string{"x", "axes"}, ""},
		{"required slot empty", "Where", 17, []string{"c", "", "x"}, "missing input 1, which Where requires"},
		{"optional slot empty", "Clip", 13, []string{"x", "", "s"}, ""},
		{"float input", "Softmax", 13, []string{"x"}, ""},
		{"integer input to a float-only slot", "Softmax", 13, []string{"axes"}, `input 0 ("axes") is int64; Softmax takes float types there`},
		{"bool input to a float-only slot", "Conv", 13, []string{"c", "x"}, `input 0 ("c") is bool; Conv takes float types there`},
		{"unconstrained slot", "Identity", 13, []string{"axes"}, ""},
		{"Erf takes integers", "Erf", 13, []string{"axes"}, ""},
		{"Where's condition is bool", "Where", 17, []string{"x", "x", "x"}, `input 0 ("x") is float32; Where takes bool types there`},
		{"bitwise operands are integers", "BitwiseAnd", 18, []string{"x", "x"}, `input 0 ("x") is float32; BitwiseAnd takes integer types there`},
		{"logical operands are bool", "And", 17, []string{"c", "x"}, `input 1 ("x") is float32; And takes bool types there`},
		{"kernel reached by another's call", "com.microsoft:FastGelu", 17, []string{"axes"}, `input 0 ("axes") is int64; com.microsoft:FastGelu takes float types there`},
		{"FusedConv's X", "com.microsoft:FusedConv", 17, []string{"axes", "x"}, `input 0 ("axes") is int64; com.microsoft:FusedConv takes float types there`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ir.NewGraph("g")
			vals := map[string]*ir.Value{
				"x":    g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(2))),
				"c":    g.AddInput("c", ir.TensorType(ir.Bool, ir.ShapeOf(2))),
				"s":    g.AddInitializer((&ir.Tensor{Name: "s", DType: ir.Float32, Dims: []int64{}}).SetFloats([]float32{1})),
				"axes": g.AddInitializer((&ir.Tensor{Name: "axes", DType: ir.Int64, Dims: []int64{1}}).SetInt64s([]int64{0})),
			}
			var ins []*ir.Value
			for _, name := range tc.inputs {
				ins = append(ins, vals[name])
			}
			domain, name, ok := strings.Cut(tc.op, ":")
			if !ok {
				domain, name = "", tc.op
			}
			n := g.AddNode(name, domain, "n", ins, []string{"y"})
			g.Outputs = []*ir.Value{n.Outputs[0]}
			m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: tc.opset}, {Domain: "com.microsoft", Version: 1}}, Graph: g}
			feed := map[string]Value{
				"x": f32([]int{2}, 1, 2),
				"c": &Tensor{DType: ir.Bool, Shape: []int{2}, B: []bool{true, false}},
			}
			_, err := Run(m, feed, Options{})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
