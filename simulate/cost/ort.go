package cost

// This file ties ONNX Runtime's fused operators to the kernels they run.

import "github.com/wolong-dev/wolong/ir"

// ortBase maps an ONNX Runtime fused operator to the op whose library
// kernel it runs, with its epilogue (activation, bias, residual) applied
// on the output as it is written: FusedConv is MLAS's convolution,
// FusedGemm and FusedMatMul its GEMM, SkipLayerNormalization its layer
// norm with the sum in the same pass.
var ortBase = map[string]string{
	"com.microsoft:FusedConv":              "Conv",
	"com.microsoft:FusedGemm":              "Gemm",
	"com.microsoft:FusedMatMul":            "MatMul",
	"com.microsoft:SkipLayerNormalization": "LayerNormalization",
}

// effKey is the key n's efficiency is looked up by (hw.Efficiency.For):
// its op key, or, for an ONNX Runtime fused operator the hardware file
// has no efficiency of its own for, the key of the kernel it runs (a
// calibrated file knows Conv, not FusedConv).
func (m *Model) effKey(n *ir.Node) string {
	k := OpKey(n)
	if b, ok := ortBase[k]; ok {
		if _, own := m.HW.Efficiency.Ops[k]; !own {
			return b
		}
	}
	return k
}
