package cost

// This file decides the dtype a quantized matrix op computes in. A
// QLinearConv or QLinearMatMul reads float scales beside its 8-bit data,
// but its multiply-accumulates are 8-bit integer ones: they run on the
// hardware's int8 units (IMMA tensor cores or dp4a on NVIDIA GPUs, VNNI
// on x86 CPUs), at the int8 peak (hw Peak.INT8), and the profile reports
// the work as int8. A quantized op whose data input is not 8-bit (a
// float model's DynamicQuantizeMatMul quantizes on the fly) is left to
// the ordinary rule.
//
// On CPUs, ConvInteger and MatMulInteger (cpuInt8Ops), which the
// calibration suite measures (its quantized family), compute at the int8
// peak with a fitted fraction of it: on the AMD EPYC VM MLAS's unsigned
// integer GEMM beats the float32 units' peak (the suite's MatMulInteger
// and ConvInteger chains were predicted 17-72% too slow at the float32
// rate with the fraction at its cap of 1, 2026-12-07), on the Intel VM it
// ran 2-4x slower than the int8 peak: the fraction says which. Presets
// fitted when these ops computed at the float32 rate keep their
// predictions: their fractions were rescaled by float32/int8 peak. The
// other ops here compute at the float32 units' rate on CPUs (Ctx.DType):
// the suite does not measure them, and the QOperator MobileNetV2 ran in
// 5.35 ms (testdata/measured/cpu), predicted 5.18 ms at the fp32 rate and
// 3.18 ms at the VNNI int8 peak (0.6 TOP/s, measured on a 1024^3
// MatMulInteger).

import "github.com/wolong-dev/wolong/ir"

// int8Ops are the ops whose matrix math is 8-bit integer, with the input
// that holds their data.
var int8Ops = map[ir.OpKey]int{
	{Name: "QLinearConv"}:                                   0,
	{Name: "QLinearMatMul"}:                                 0,
	{Name: "ConvInteger"}:                                   0,
	{Name: "MatMulInteger"}:                                 0,
	{Domain: "com.microsoft", Name: "QLinearConv"}:          0,
	{Domain: "com.microsoft", Name: "QGemm"}:                0,
	{Domain: "com.microsoft", Name: "MatMulIntegerToFloat"}: 0,
}

// cpuInt8Ops are the int8Ops that compute at the int8 peak on CPUs too.
var cpuInt8Ops = map[ir.OpKey]bool{
	{Name: "ConvInteger"}:   true,
	{Name: "MatMulInteger"}: true,
}

// int8DType reports whether n computes in 8-bit integers (its data input
// is int8 or uint8): its matrix math is costed as ir.Int8.
func int8DType(n *ir.Node) bool {
	i, ok := int8Ops[ir.OpKey{Domain: n.Domain, Name: n.Op}]
	if !ok {
		return false
	}
	v := n.Input(i)
	return v != nil && (v.Type.DType == ir.Int8 || v.Type.DType == ir.Uint8)
}
