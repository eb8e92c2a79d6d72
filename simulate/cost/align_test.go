package cost

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// tensor_core_align: with cuBLAS before 11.0 a GEMM (or a convolution's
// channels) not a multiple of 8 runs on the CUDA cores at their half2
// rate; with no requirement every shape runs on tensor cores.
func TestTensorCoreAlign(t *testing.T) {
	mm := func(m, n, k int64) func(g *ir.Graph) *ir.Node {
		return func(g *ir.Graph) *ir.Node {
			return one(g, "MatMul", "mm", []*ir.Value{in(g, "a", ir.Float16, m, k), in(g, "b", ir.Float16, k, n)})
		}
	}
	conv := func(c, k int64) func(g *ir.Graph) *ir.Node {
		return func(g *ir.Graph) *ir.Node {
			return one(g, "Conv", "conv", []*ir.Value{in(g, "x", ir.Float16, 8, c, 32, 32), in(g, "w", ir.Float16, k, c, 3, 3)},
				iattrs("pads", 1, 1, 1, 1))
		}
	}
	for _, tc := range []struct {
		name  string
		align int
		build func(g *ir.Graph) *ir.Node
		math  string
	}{
		{"aligned gemm", 8, mm(2560, 64, 2560), "fp16"},
		{"M not a multiple of 8", 8, mm(5124, 9124, 2560), "fp16 (CUDA cores)"},
		{"K not a multiple of 8", 8, mm(2560, 64, 2562), "fp16 (CUDA cores)"},
		{"no requirement", 0, mm(5124, 9124, 2560), "fp16"},
		{"aligned conv", 8, conv(64, 64), "fp16"},
		{"3 input channels", 8, conv(3, 64), "fp16 (CUDA cores)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := preset(t, "v100")
			h.TensorCoreAlign = tc.align
			g := ir.NewGraph(tc.name)
			n := tc.build(g)
			cm := New(h, model(t, g, 17), Options{})
			e := cm.Node(n)
			if e.Math != tc.math {
				t.Fatalf("math %q, want %q", e.Math, tc.math)
			}
			noted := strings.Contains(strings.Join(cm.Notes(), "\n"), "tensor_core_align")
			if noted != (tc.math != "fp16") {
				t.Errorf("notes %q: the fallback must be stated exactly when it happens", cm.Notes())
			}
			if tc.math != "fp16" {
				// the half2 rate of the CUDA cores, not the tensor cores'
				if r := e.FLOPs / e.ComputeS; r > h.PeakTFLOPS.FP16Vector*1e12 {
					t.Errorf("%.1f TFLOP/s, above the CUDA cores' %.1f", r/1e12, h.PeakTFLOPS.FP16Vector)
				}
			}
		})
	}
}
