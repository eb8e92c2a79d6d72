package llm

// This file implements precision as serving runtimes and Transformer
// Engine deploy it: the weights' type (the GEMMs' operands), the KV
// cache's, and what stays in bf16. FP8 (TensorRT-LLM's and vLLM's FP8
// checkpoints from ModelOpt / llm-compressor, Transformer Engine's FP8
// recipes) multiplies FP8 weights with activations quantized to FP8 per
// tensor at the GEMM's input (the scale applied in its epilogue); norms,
// rotary embedding, activations and residual adds run in bf16, and
// attention runs in bf16 over an FP8 or bf16 KV cache unless FP8
// attention is asked for (TensorRT-LLM's FP8 context FMHA). FP4 (NVFP4,
// MXFP4) runs the GEMMs on Blackwell's FP4 tensor cores with 16- or
// 32-element block scales; the rest as FP8.
//
// The GPU presets hold no FP4 peak and one matmul efficiency for every
// type: the table below adds, per GPU, the FP4 dense peak where it has
// one and the fraction of the bf16 GEMM efficiency an FP8 (FP4) GEMM
// reaches of its own peak (docs/serving.md lists where each figure comes
// from).

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// lowPrecision is one GPU's low-precision GEMM figures.
type lowPrecision struct {
	// FP8GEMM is the fraction of the preset's matmul efficiency an FP8
	// GEMM reaches of the FP8 peak; FP4GEMM the same for FP4.
	FP8GEMM, FP4GEMM float64
	// FP4TFLOPS is the dense FP4 peak (0: no FP4 tensor cores).
	FP4TFLOPS float64
	Source    string
}

// defaultFP8GEMM is lowPrecision.FP8GEMM for a GPU the table does not
// list: the Hopper figure.
const defaultFP8GEMM = 0.8

// lowPrecisionTable lists GPUs by preset name.
var lowPrecisionTable = map[string]lowPrecision{
	"h100":   {FP8GEMM: defaultFP8GEMM, Source: "fitted: FP8 GEMMs at 0.8 x the bf16 matmul efficiency (0.66 of the 1,979 TFLOP/s FP8 peak, about 1,300 TFLOP/s on large shapes; cuBLASLt FP8 8192^3 reports 1,600 and model-shaped GEMMs less), fitted to the development rows of TestServeAnchorsIFB"},
	"h200":   {FP8GEMM: defaultFP8GEMM, Source: "as h100 (same SMs and clocks)"},
	"mi300x": {FP8GEMM: defaultFP8GEMM, Source: "as Hopper's; the mi300x preset's matmul efficiency (0.55) already carries its lower GEMM efficiency: 0.44 of the 2,615 TFLOP/s FP8 peak"},
	"b200":   {FP8GEMM: defaultFP8GEMM, FP4GEMM: defaultFP8GEMM, FP4TFLOPS: 9000, Source: "NVIDIA DGX B200 datasheet: 72 PFLOPS FP4 dense for 8 GPUs (9 per GPU); efficiency assumed as Hopper's FP8"},
	"gb200":  {FP8GEMM: defaultFP8GEMM, FP4GEMM: defaultFP8GEMM, FP4TFLOPS: 10000, Source: "NVIDIA GB200 NVL72 datasheet: 720 PFLOPS FP4 dense for 72 GPUs (10 per GPU); efficiency assumed as Hopper's FP8"},
}

// lowPrecisionOf returns gpu's figures.
func lowPrecisionOf(gpu *hw.Hardware) lowPrecision {
	if lp, ok := lowPrecisionTable[strings.ToLower(gpu.Name)]; ok {
		return lp
	}
	return lowPrecision{FP8GEMM: defaultFP8GEMM}
}

// servePrecision is what a serving run computes and stores in.
type servePrecision struct {
	Weights   ir.DType // the GEMMs' weights and operands
	KV        ir.DType // the KV cache
	Attention ir.DType // the attention kernels' arithmetic
	// wb, ab and kb are the bytes of a weight, an activation and a cached
	// key or value element.
	wb, ab, kb float64
	// gemmDT is the type the cost model costs GEMMs at and gemmScale the
	// factor on their FLOPs (the low-precision efficiency, and FP4's rate
	// over FP8's).
	gemmDT    ir.DType
	gemmScale float64
}

// elemBytes is one element of d (fp4: half a byte).
func elemBytes(d ir.DType) float64 {
	switch d {
	case ir.Float8E4M3FN, ir.Float8E5M2:
		return 1
	case ir.Float4E2M1:
		return 0.5
	case ir.Float32:
		return 4
	}
	return 2
}

// newServePrecision checks and completes a serving precision on gpu:
// weights bfloat16 (default), float16, float8e4m3fn or float4e2m1; the
// KV cache the weights' type for FP8 (TensorRT-LLM's --fp8_kv_cache with
// an FP8 checkpoint) and FP4 (FP8 cache), else bfloat16.
func newServePrecision(gpu *hw.Hardware, weights, kv ir.DType, fp8Attention bool) (servePrecision, error) {
	if weights == ir.Undefined {
		weights = ir.BFloat16
	}
	lp := lowPrecisionOf(gpu)
	p := servePrecision{Weights: weights, Attention: ir.BFloat16, ab: 2, gemmDT: weights, gemmScale: 1}
	switch weights {
	case ir.BFloat16, ir.Float16:
		p.Attention = weights
	case ir.Float8E4M3FN:
		p.gemmScale = 1 / lp.FP8GEMM
	case ir.Float4E2M1:
		if lp.FP4TFLOPS <= 0 {
			return p, fmt.Errorf("fp4 (float4e2m1) needs FP4 tensor cores (Blackwell: b200, gb200); %s has none", gpu.Name)
		}
		p.gemmDT = ir.Float8E4M3FN
		p.gemmScale = gpu.PeakTFLOPS.FP8 / lp.FP4TFLOPS / lp.FP4GEMM
	default:
		return p, fmt.Errorf("serving dtype %s (want bfloat16, float16, float8e4m3fn or float4e2m1: bf16, fp16, fp8, fp4)", weights)
	}
	if (weights == ir.Float8E4M3FN || weights == ir.Float4E2M1) && gpu.PeakTFLOPS.FP8 <= 0 {
		return p, fmt.Errorf("%s has no FP8 tensor cores (fp8 needs h100, h200 or later)", gpu.Name)
	}
	switch kv {
	case ir.Undefined:
		kv = ir.BFloat16
		if weights == ir.Float8E4M3FN || weights == ir.Float4E2M1 {
			kv = ir.Float8E4M3FN
		} else if weights == ir.Float16 {
			kv = ir.Float16
		}
	case ir.BFloat16, ir.Float16, ir.Float8E4M3FN:
	default:
		return p, fmt.Errorf("kv cache dtype %s (want bfloat16, float16 or float8e4m3fn)", kv)
	}
	p.KV = kv
	if fp8Attention {
		if kv != ir.Float8E4M3FN {
			return p, fmt.Errorf("fp8 attention needs an fp8 kv cache")
		}
		p.Attention = ir.Float8E4M3FN
	}
	p.wb, p.kb = elemBytes(weights), elemBytes(kv)
	return p, nil
}

// String names the precision.
func (p servePrecision) String() string {
	return fmt.Sprintf("weights %s, kv cache %s, attention %s", p.Weights, p.KV, p.Attention)
}
