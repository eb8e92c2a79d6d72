// Package cost is wolong's per-operator cost model: for one IR node it
// gives the floating-point operations (FLOPs = 2 x multiply-adds), the
// bytes moved to and from device memory (inputs read + outputs written,
// each weight counted once), the kernels launched, and from those and a
// hw.Hardware the predicted time.
//
// Time model. A kernel takes
//
//	max(FLOPs / (peak(dtype) x eff.compute x waves),
//	    bytes / (bandwidth x eff.memory x fill)) + kernel_overhead
//
// on the device, and launch + dispatch on the host thread that issues it.
// peak is the dtype's tensor-core peak for matrix ops (MatMul, Conv,
// attention, RNN; the vector peak when the hardware's tensor_core_align
// rejects the op's dimensions) and the vector (FP32/FP64, fp16_vector)
// peak for everything else; eff
// is the op class's efficiency from the hardware file; waves is the
// small-kernel derating of a GEMM-like kernel whose T output tiles run in
// ceil(T/(SMs x blocks_per_sm)) waves; fill derates a kernel that moves too
// few bytes to keep all SMs' memory requests in flight.
//
// Per-op functions are registered by (domain, op) from one file per op
// family (elementwise.go, matmul.go, conv.go, ...). An op without a
// function but with known shapes is costed as a memory-bound copy and
// warned about; an op whose shapes are unknown gets an explicit Unknown
// cost (never a silent zero). Loop, Scan and If cost their bodies (times
// the trip count), model-local functions their bodies, and a fused kernel
// (domain "wolong" with a "body" graph attribute) is one kernel whose FLOPs
// are its body's and whose bytes are only its external inputs and outputs.
package cost
