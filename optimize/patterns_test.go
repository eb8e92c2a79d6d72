package optimize

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestPatternFusions matches each pattern fusion on the exporter's form.
func TestPatternFusions(t *testing.T) {
	runPassCases(t, []passCase{
		{
			name: "layernorm",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 4, 8)
				mean := b.Op("ReduceMean", in(x), modelgen.Ints("axes", -1))
				d := b.Op("Sub", in(x, mean))
				v := b.Op("ReduceMean", in(b.Op("Pow", in(d, b.ConstF("two", nil, 2)))), modelgen.Ints("axes", -1))
				n := b.Op("Div", in(d, b.Op("Sqrt", in(b.Op("Add", in(v, b.ConstF("eps", nil, 1e-5)))))))
				n = b.Op("Add", in(b.Op("Mul", in(n, b.Weight("gamma", 8))), b.Weight("beta", 8)))
				b.Output(b.Op("Relu", in(n)))
			},
			passes: []string{"layernorm"},
			want:   []string{`^layernorm: ReduceMean_0 \+ Sub_0 \+ Pow_0 \+ ReduceMean_1 \+ Add_0 \+ Sqrt_0 \+ Div_0 \+ Mul_0 \+ Add_1 -> layernorm_0  \(wolong:LayerNorm, 9 nodes`},
			ops:    "wolong:LayerNorm Relu",
		},
		{
			name: "rmsnorm",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				ms := b.Op("ReduceMean", in(b.Op("Mul", in(x, x))), modelgen.Ints("axes", -1))
				r := b.Op("Reciprocal", in(b.Op("Sqrt", in(b.Op("Add", in(ms, b.ConstF("eps", nil, 1e-6)))))))
				b.Output(b.Op("Mul", in(b.Op("Mul", in(x, r)), b.Weight("w", 8))))
			},
			passes: []string{"rmsnorm"},
			want:   []string{`^rmsnorm: Mul_0 \+ ReduceMean_0 \+ Add_0 \+ Sqrt_0 \+ Reciprocal_0 \+ Mul_1 \+ Mul_2 -> rmsnorm_0`},
			ops:    "wolong:RMSNorm",
		},
		{
			name: "gelu erf",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				e := b.Op("Add", in(b.Op("Erf", in(b.Op("Div", in(x, b.ConstF("sqrt2", nil, float32(math.Sqrt2)))))), b.ConstF("one", nil, 1)))
				b.Output(b.Op("Mul", in(b.Op("Mul", in(x, e)), b.ConstF("half", nil, 0.5))))
			},
			passes: []string{"gelu"},
			want:   []string{`^gelu: Div_0 \+ Erf_0 \+ Add_0 \+ Mul_0 \+ Mul_1 -> gelu_0  \(wolong:Gelu`},
			ops:    "wolong:Gelu",
		},
		{
			name: "gelu tanh",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				c := b.Op("Mul", in(b.Op("Pow", in(x, b.ConstF("three", nil, 3))), b.ConstF("k", nil, 0.044715)))
				u := b.Op("Mul", in(b.Op("Add", in(x, c)), b.ConstF("s", nil, float32(math.Sqrt(2/math.Pi)))))
				th := b.Op("Add", in(b.Op("Tanh", in(u)), b.ConstF("one", nil, 1)))
				hx := b.Op("Mul", in(x, b.ConstF("half", nil, 0.5)))
				b.Output(b.Op("Mul", in(hx, th)))
			},
			passes: []string{"gelu"},
			want:   []string{`^gelu: Pow_0 \+ Mul_0 \+ Add_0 \+ Mul_1 \+ Tanh_0 \+ Add_1 \+ Mul_2 \+ Mul_3 -> gelu_0`},
			ops:    "wolong:Gelu",
		},
		{
			name: "silu",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				h := b.Op("MatMul", in(x, b.Weight("w", 8, 8)))
				b.Output(b.Op("Mul", in(h, b.Op("Sigmoid", in(h)))))
			},
			passes: []string{"silu"},
			want:   []string{`^silu: Sigmoid_0 \+ Mul_0 -> silu_0  \(wolong:SiLU`},
			ops:    "MatMul wolong:SiLU",
		},
		{
			name: "attention with mask",
			build: func(b *modelgen.Builder) {
				q := b.Input("q", ir.Float32, 2, 4, 8, 16)
				k := b.Input("k", ir.Float32, 2, 4, 8, 16)
				v := b.Input("v", ir.Float32, 2, 4, 8, 16)
				kt := b.Op("Transpose", in(k), modelgen.Ints("perm", 0, 1, 3, 2))
				s := b.Op("Mul", in(b.Op("MatMul", in(q, kt)), b.ConstF("scale", nil, 0.25)))
				s = b.Op("Add", in(s, b.Weight("mask", 8, 8)))
				b.Output(b.Op("MatMul", in(b.Op("Softmax", in(s), modelgen.Int("axis", -1)), v)))
			},
			passes: []string{"attention"},
			want:   []string{`^attention: MatMul_0 \+ Mul_0 \+ Add_0 \+ Softmax_0 \+ MatMul_1 -> attention_0  \(wolong:Attention, 5 nodes`},
			ops:    "Transpose wolong:Attention",
		},
		{
			name: "no match when an inner value escapes",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				h := b.Op("Sigmoid", in(x))
				y := b.Op("Mul", in(x, h))
				b.Output(y, h)
			},
			passes: []string{"silu"},
			ops:    "Sigmoid Mul",
		},
	})
}
