package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestFuse covers the generic fuser's rules on small graphs.
func TestFuse(t *testing.T) {
	runPassCases(t, []passCase{
		{
			name: "conv epilogue bias relu residual",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 1, 4, 8, 8)
				y := b.Op("Conv", in(x, b.Weight("w", 4, 4, 3, 3)), modelgen.Ints("pads", 1, 1, 1, 1))
				y = b.Op("Add", in(y, b.Weight("bias", 4, 1, 1)))
				y = b.Op("Relu", in(b.Op("Add", in(y, x))))
				b.Output(y)
			},
			passes: []string{"fuse"},
			want:   []string{`^fuse: Conv_0 \+ Add_0 \+ Add_1 \+ Relu_0 -> fused_conv_0  \(wolong:FusedConvBiasAddRelu, 4 nodes`},
			ops:    "wolong:FusedConvBiasAddRelu",
		},
		{
			name: "hard-swish chain ORT leaves unfused",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 16)
				three := b.ConstF("three", nil, 3)
				six := b.ConstF("six", nil, 6)
				zero := b.ConstF("zero", nil, 0)
				h := b.Op("Clip", in(b.Op("Add", in(x, three)), zero, six))
				b.Output(b.Op("Div", in(b.Op("Mul", in(x, h)), six)))
			},
			passes: []string{"fuse"},
			want:   []string{`^fuse: Add_0 \+ Clip_0 \+ Mul_0 \+ Div_0 -> fused_elementwise_0`},
			ops:    "wolong:FusedElementwise",
		},
		{
			name: "reduction takes its elementwise producers, not its consumers",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 16)
				s := b.Op("ReduceSum", in(b.Op("Exp", in(b.Op("Neg", in(x))))), modelgen.Ints("axes", 1))
				b.Output(b.Op("Log", in(s)))
			},
			passes: []string{"fuse"},
			want:   []string{`^fuse: Neg_0 \+ Exp_0 \+ ReduceSum_0 -> fused_reducesum_0  \(wolong:FusedReduceSum`},
			ops:    "wolong:FusedReduceSum Log",
		},
		{
			name: "no GEMM prologue, two anchors never join",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 8)
				h := b.Op("MatMul", in(b.Op("Relu", in(x)), b.Weight("w1", 8, 8)))
				h = b.Op("MatMul", in(h, b.Weight("w2", 8, 8)))
				b.Output(b.Op("Sigmoid", in(h)))
			},
			passes: []string{"fuse"},
			want:   []string{`^fuse: MatMul_1 \+ Sigmoid_0 -> fused_matmul_0`},
			ops:    "Relu MatMul wolong:FusedMatMulSigmoid",
		},
		{
			name: "diamond joins at the post-dominator",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 1, 4, 8, 8)
				c := b.Op("Conv", in(x, b.Weight("w", 4, 4, 1, 1)))
				a := b.Op("Add", in(c, b.Weight("b", 4, 1, 1)))
				s := b.Op("Sigmoid", in(c))
				b.Output(b.Op("Relu", in(b.Op("Mul", in(a, s)))))
			},
			passes: []string{"fuse"},
			want:   []string{`^fuse: Conv_0 \+ Add_0 \+ Sigmoid_0 \+ Mul_0 \+ Relu_0 -> fused_conv_0`},
			ops:    "wolong:FusedConvBiasSigmoidEpilogue",
		},
	})
}

// TestFuseGroupCap splits a long chain into groups of at most the cap.
func TestFuseGroupCap(t *testing.T) {
	m := modelgen.Chain(20, 8)
	ir.InferModel(m, ir.InferOptions{})
	res, err := Run(m, Options{Level: 2, Only: []string{"fuse"}, GroupCap: 6, VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Passes {
		for _, r := range p.Rewrites {
			if len(r.Before) > 6 {
				t.Errorf("group of %d nodes over the cap: %s", len(r.Before), r)
			}
		}
	}
	if n := len(m.Graph.Nodes); n < 4 || n > 6 {
		t.Errorf("have %d nodes after fusing 20 with cap 6, want 4..6", n)
	}
}

// TestBNFold folds BatchNormalization into the Conv weights.
func TestBNFold(t *testing.T) {
	runPassCases(t, []passCase{{
		name: "conv bn",
		build: func(b *modelgen.Builder) {
			x := b.Input("x", ir.Float32, 1, 3, 6, 6)
			y := b.Op("Conv", in(x, b.Weight("w", 5, 3, 3, 3), b.Weight("cb", 5)))
			y = b.Op("BatchNormalization", in(y, b.Weight("g", 5), b.Weight("beta", 5), b.Weight("mean", 5), b.ConstF("var", []int64{5}, 0.5, 1, 2, 3, 4)))
			b.Output(b.Op("Relu", in(y)))
		},
		passes: []string{"bnfold", "late_dce"},
		want:   []string{`^bnfold: Conv_0 \+ BatchNormalization_0 -> Conv_0  \(BatchNorm folded into Conv weights\)`},
		ops:    "Conv Relu",
	}})
}
