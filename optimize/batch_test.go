package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestHBatch batches sibling GEMMs and convolutions sharing an input.
func TestHBatch(t *testing.T) {
	runPassCases(t, []passCase{
		{
			name: "qkv matmul",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 5, 8)
				q := b.Op("MatMul", in(x, b.Weight("wq", 8, 8)))
				k := b.Op("MatMul", in(x, b.Weight("wk", 8, 8)))
				v := b.Op("MatMul", in(x, b.Weight("wv", 8, 4)))
				// A sibling with a different reduction size does not join.
				y := b.Input("y", ir.Float32, 2, 5, 6)
				b.Output(b.Op("MatMul", in(y, b.Weight("wo", 6, 8))))
				b.Output(q, k, v)
			},
			passes: []string{"hbatch", "late_dce"},
			want:   []string{`^hbatch: MatMul_0 \|\| MatMul_1 \|\| MatMul_2 -> batched_matmul_0, split_0  \(3 MatMul ops sharing x -> one 20-wide op \+ Split\)`},
			ops:    "MatMul MatMul Split",
		},
		{
			name: "gemm transB with bias",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 3, 8)
				g1 := b.Op("Gemm", in(x, b.Weight("w1", 4, 8), b.Weight("b1", 4)), modelgen.Int("transB", 1))
				g2 := b.Op("Gemm", in(x, b.Weight("w2", 6, 8), b.Weight("b2", 6)), modelgen.Int("transB", 1))
				b.Output(b.Op("Relu", in(g1)), g2)
			},
			passes: []string{"hbatch"},
			want:   []string{`^hbatch: Gemm_0 \|\| Gemm_1 -> batched_gemm_0, split_0`},
			ops:    "Gemm Split Relu",
		},
		{
			name: "inception 1x1 convs",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 1, 4, 6, 6)
				c1 := b.Op("Conv", in(x, b.Weight("w1", 3, 4, 1, 1), b.Weight("b1", 3)))
				c2 := b.Op("Conv", in(x, b.Weight("w2", 5, 4, 1, 1), b.Weight("b2", 5)))
				c3 := b.Op("Conv", in(x, b.Weight("w3", 2, 4, 3, 3), b.Weight("b3", 2)), modelgen.Ints("pads", 1, 1, 1, 1))
				b.Output(b.Op("Concat", in(c1, c2, c3), modelgen.Int("axis", 1)))
			},
			passes: []string{"hbatch"},
			want:   []string{`^hbatch: Conv_0 \|\| Conv_1 -> batched_conv_0, split_0`},
			ops:    "Conv Conv Split Concat",
		},
	})
}

// TestTBatch batches independent same-weight GEMMs across time steps.
func TestTBatch(t *testing.T) {
	runPassCases(t, []passCase{
		{
			name: "time steps",
			build: func(b *modelgen.Builder) {
				w := b.Weight("w", 8, 16)
				var outs []*ir.Value
				for i := 0; i < 4; i++ {
					x := b.Input("x"+string(rune('0'+i)), ir.Float32, 3, 8)
					outs = append(outs, b.Op("Tanh", in(b.Op("MatMul", in(x, w)))))
				}
				b.Output(outs...)
			},
			passes: []string{"tbatch"},
			want:   []string{`^tbatch: MatMul_0 \|\| MatMul_1 \|\| MatMul_2 \|\| MatMul_3 -> concat_0, batched_matmul_0, split_0  \(4 independent MatMul ops on w -> one op over 12 rows\)`},
			ops:    "Concat MatMul Split Tanh Tanh Tanh Tanh",
		},
		{
			name: "dependent steps stay apart",
			build: func(b *modelgen.Builder) {
				w := b.Weight("w", 8, 8)
				h := b.Input("h", ir.Float32, 3, 8)
				for i := 0; i < 3; i++ {
					h = b.Op("Tanh", in(b.Op("MatMul", in(h, w))))
				}
				b.Output(h)
			},
			passes: []string{"tbatch"},
			ops:    "MatMul Tanh MatMul Tanh MatMul Tanh",
		},
	})
}
