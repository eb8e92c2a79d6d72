package llm

import (
	"fmt"
	"math"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cluster"
)

// Published serving measurements: NVIDIA TensorRT-LLM's performance page
// (github.com/NVIDIA/TensorRT-LLM, docs/source/performance.md as of
// v0.6.1). Both of its tables run static batching (gptSessionBenchmark:
// the batch's prompts prefill together, then decode in lockstep; what
// SimulateServe models) on one DGX node:
//
//   - "Peak Throughput" (v0.6.1 data): output tokens/s per GPU = batch x
//     output length / (prefill + decode), at the batch, TP, input and
//     output lengths listed; H100 SXM 80GB with --enable_fp8
//     --fp8_kv_cache, A100 SXM 80GB in FP16.
//   - "Low Latency" (v0.5 data): the first-token latency of one sequence
//     (batch 1, output 1: the prefill).
const srcTRTLLM = "NVIDIA TensorRT-LLM, docs/source/performance.md (v0.6.1): 'Peak Throughput' (static batching, gptSessionBenchmark, out tok/s/GPU; H100 FP8 with fp8 KV cache, A100 FP16) and 'Low Latency' (v0.5 data, batch 1 first-token latency)"

// servePub is one published row.
type servePub struct {
	model          string
	gpu            string
	dtype          ir.DType
	batch, tp      int
	prompt, output int
	// tokPerGPU is the published output tokens/s per GPU (throughput
	// rows); ttftMs the first-token latency (latency rows).
	tokPerGPU, ttftMs float64
}

// gptJ6B is EleutherAI's GPT-J 6B (Wang and Komatsuzaki, 2021; the
// released config.json: 28 layers, d_model 4096, 16 heads of 256, d_ff
// 16384, vocabulary 50400, context 2048, rotary positions, biases, an
// untied LM head). Its attention and MLP run in parallel off one norm,
// which costs the same FLOPs and bytes as the sequential block.
func gptJ6B() *Transformer {
	return &Transformer{Name: "gpt-j-6b", Layers: 28, Hidden: 4096, Heads: 16, KVHeads: 16, FFN: 16384, Vocab: 50400, Seq: 2048, Bias: true}
}

// serveRow predicts one published row on a DGX node of r.tp GPUs.
func serveRow(t *testing.T, r servePub) (got, want float64) {
	t.Helper()
	tr := gptJ6B()
	if r.model != tr.Name {
		var err error
		if tr, err = TransformerPreset(r.model); err != nil {
			t.Fatal(err)
		}
	}
	gpu, err := cluster.GPUPreset(r.gpu)
	if err != nil {
		t.Fatal(err)
	}
	net, err := cluster.NetworkPreset("ib-ndr")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(1, r.tp, gpu, net)
	if err != nil {
		t.Fatal(err)
	}
	res, err := SimulateServe(tr, c, ServeOptions{TP: r.tp, Batch: r.batch, Prompt: r.prompt, Output: r.output, DType: r.dtype})
	if err != nil {
		t.Fatal(err)
	}
	if r.ttftMs > 0 {
		return res.TTFTMs, r.ttftMs
	}
	return res.TokensPerSPerGPU, r.tokPerGPU
}

// TestServeAnchorsTRTLLM reproduces TensorRT-LLM's published static-
// batching throughput and first-token latency (srcTRTLLM) within 15%.
// Nothing in the serving model was fitted to these rows: kernel rates are
// the GPU presets' efficiencies, decode streams the weights and the KV
// cache at the preset's memory efficiency.
//
// Rows of the same tables outside 15%, and why:
//   - Llama 2 70B decode-heavy rows (H100 FP8 TP 2 and 4: predicted
//     +55% to +157%; A100 FP16 TP 4 128/2048: +45%): the published step
//     times match reading each key/value head once per query head (8x
//     the cache traffic: 64 query over 8 key/value heads). A100 TP 4,
//     batch 240, 128/2048: 114 ms per decode step published; at the full
//     2.04 TB/s a GPU reads 17 ms of weights and 11 ms of cache once
//     (28 ms), or 17 + 89 = 106 ms with the cache read 8 times.
//     TensorRT-LLM's release notes add XQA kernels for grouped-query
//     decode later (v0.10.0: "the new NVIDIA Hopper XQA kernels for
//     LLaMA 2 70B"). SimulateServe reads the cache once, as XQA,
//     FlashInfer and FlashAttention's decode do. The MHA models (GPT-J,
//     Llama 2 7B) have no such gap.
//   - H100 FP8 at batch 768-1024 of 128/128 tokens (+15% GPT-J, +30%
//     Llama 2 7B) and H100 FP8 first-token latency (-35% to -50%): the
//     prefill's FP8 GEMMs ran at about 40% of the FP8 dense peak in
//     TensorRT-LLM 0.5 (Llama 2 7B, 2048 tokens: 2.7e13 FLOPs in 36 ms),
//     where the H100 preset assumes the tensor-core efficiency it uses
//     for bf16; the decode-bound rows of the same table are within 12%.
//   - A100 first-token latency of GPT-J at 2048 tokens (-22%) and Llama 2
//     7B at 128 (-18%): batch-1 prefill includes the engine's fixed
//     per-request setup (a few ms), which SimulateServe leaves out.
func TestServeAnchorsTRTLLM(t *testing.T) {
	const f8, f16 = ir.Float8E4M3FN, ir.Float16
	rows := []servePub{
		// Peak Throughput, H100 SXM 80GB, FP8
		{"gpt-j-6b", "h100", f8, 120, 1, 128, 2048, 8011, 0},
		{"gpt-j-6b", "h100", f8, 64, 1, 2048, 128, 2551, 0},
		{"gpt-j-6b", "h100", f8, 64, 1, 2048, 2048, 3327, 0},
		{"llama2-7b", "h100", f8, 112, 1, 128, 2048, 6818, 0},
		{"llama2-7b", "h100", f8, 80, 1, 2048, 128, 2244, 0},
		{"llama2-7b", "h100", f8, 48, 1, 2048, 2048, 2740, 0},
		// Peak Throughput, A100 SXM 80GB, FP16
		{"gpt-j-6b", "a100", f16, 512, 1, 128, 128, 6374, 0},
		{"gpt-j-6b", "a100", f16, 120, 2, 128, 2048, 2192, 0},
		{"gpt-j-6b", "a100", f16, 60, 1, 2048, 128, 670, 0},
		{"gpt-j-6b", "a100", f16, 64, 2, 2048, 2048, 903, 0},
		{"llama2-7b", "a100", f16, 384, 1, 128, 128, 5586, 0},
		{"llama2-7b", "a100", f16, 60, 1, 128, 2048, 1928, 0},
		{"llama2-7b", "a100", f16, 52, 1, 2048, 128, 591, 0},
		{"llama2-7b", "a100", f16, 64, 2, 2048, 2048, 782, 0},
		{"llama2-70b", "a100", f16, 120, 4, 2048, 128, 79, 0},
		// Low Latency (first token, batch 1), A100 SXM 80GB, FP16
		{"gpt-j-6b", "a100", f16, 1, 1, 128, 1, 0, 12},
		{"llama2-7b", "a100", f16, 1, 1, 2048, 1, 0, 133},
		{"llama2-70b", "a100", f16, 1, 4, 128, 1, 0, 47},
		{"llama2-70b", "a100", f16, 1, 4, 2048, 1, 0, 377},
	}
	worst := 0.0
	for _, r := range rows {
		what := fmt.Sprintf("%s %s %s batch %d tp %d %d/%d", r.model, r.gpu, r.dtype, r.batch, r.tp, r.prompt, r.output)
		t.Run(what, func(t *testing.T) {
			got, want := serveRow(t, r)
			e := got/want - 1
			worst = math.Max(worst, math.Abs(e))
			unit := "output tokens/s per GPU"
			if r.ttftMs > 0 {
				unit = "ms to the first token"
			}
			t.Logf("%.4g %s, published %.4g (%+.1f%%)", got, unit, want, 100*e)
			if math.Abs(e) > 0.15 {
				t.Errorf("%.4g %s, published %.4g: %+.1f%%, want within 15%% (%s)", got, unit, want, 100*e, srcTRTLLM)
			}
		})
	}
	t.Logf("worst error %.1f%% over %d rows", 100*worst, len(rows))
}
