package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

func TestQDQ(t *testing.T) {
	zp := func(b *modelgen.Builder, name string, v byte) *ir.Value {
		return b.G.AddInitializer(&ir.Tensor{Name: name, DType: ir.Uint8, Raw: []byte{v}})
	}
	build := func(scale2 float32) func(b *modelgen.Builder) {
		return func(b *modelgen.Builder) {
			x := b.Input("x", ir.Float32, 2, 3, 1, 1)
			s1 := b.ConstF("s1", nil, 0.05)
			s2 := b.ConstF("s2", nil, scale2)
			z := zp(b, "z", 128)
			q := b.Op("QuantizeLinear", in(x, s1, z))
			d := b.Op("DequantizeLinear", in(q, s1, z))
			r := b.Op("Reshape", in(d, b.ConstI("shape", []int64{2}, 2, 3)))
			q2 := b.Op("QuantizeLinear", in(r, s2, z))
			y := b.Op("DequantizeLinear", in(q2, s2, z))
			y.Name = "y"
			b.Output(y)
		}
	}
	runPassCases(t, []passCase{
		{
			name:   "same parameters",
			build:  build(0.05),
			passes: []string{"qdq", "late_dce"},
			want:   []string{`^qdq: DequantizeLinear_0 \+ Reshape_0 \+ QuantizeLinear_1 -> Reshape_0`},
			ops:    "QuantizeLinear Reshape DequantizeLinear",
		},
		{
			name:   "different scale stays",
			build:  build(0.1),
			passes: []string{"qdq", "late_dce"},
			ops:    "QuantizeLinear DequantizeLinear Reshape QuantizeLinear DequantizeLinear",
		},
	})
}
