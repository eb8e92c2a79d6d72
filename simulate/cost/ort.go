package cost

// This file ties ONNX Runtime's fused operators to the kernels they run.

import "github.com/wolong-dev/wolong/simulate/hw"

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

// efficiency is the efficiency of an op (a cost's Op key) in class on
// m's hardware: the op's own entry, or, for an ONNX Runtime fused operator
// the hardware file has no entry for, the entry of the kernel it runs (a
// calibrated file knows Conv, not FusedConv), else the class's. A cost
// keeps its own op key, so a fit sees FusedConv as itself.
func (m *Model) efficiency(op, class string) hw.ClassEfficiency {
	if _, own := m.HW.Efficiency.Ops[op]; !own {
		if b, ok := ortBase[op]; ok {
			op = b
		}
	}
	return m.HW.Efficiency.For(op, class)
}
