package llm

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// srcMLPerfServer is MLPerf Inference v4.1's Llama 2 70B server scenario
// as NVIDIA submitted it.
const srcMLPerfServer = "MLCommons inference_results_v4.1, closed/NVIDIA: results/<system>/llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt (mean first-token latency, mean time per output token, completed tokens/s at the scheduled samples/s) and configs/llama2-70b/Server/__init__.py (DGX H100: tensor_parallelism 2 x 4 replicas, gpu_batch_size 1024, target 75 QPS; DGX H200: tensor_parallelism 1 x 8, gpu_batch_size 896, target 101 QPS; use_fp8, kvcache_free_gpu_mem_frac 0.90); TensorRT-LLM in-flight batching; OpenOrca prompts, mean output 290 tokens (completed tokens / samples), mean input 294 tokens and max_tokens 1024 (the benchmark's output limit) assumed"

// serverRow is one published server-scenario run.
type serverRow struct {
	gpu                  string
	tp, batch            int
	qps                  float64 // scheduled samples/s
	ttftMs, tpotMs, tokS float64 // published means and completed output tokens/s
	// gap is why the row is outside the 25% guard (empty: inside).
	gap string
}

// TestServeAnchorsServer predicts MLPerf's server scenario (Poisson
// arrivals at the published rate) with the request-level simulator. The
// guard is the issue's: TTFT and TPOT means within 25%; rows outside it
// stay here with their error and cause.
func TestServeAnchorsServer(t *testing.T) {
	const gapCause = "known gap: the simulator reaches the published throughput at ~190 running sequences (TPOT ~40-50 ms) where the runtime ran ~840 (Little's law on the published 45 s mean latency): its decode iterations at moderate batch are costed faster than the 2024 runtime ran them; near saturation (x1.1 the rate) the simulator's TPOT reaches 100 ms and TTFT 1.4 s, so the prediction is very sensitive to capacity. Not fitted (held out)"
	rows := []serverRow{
		{"h100", 2, 1024, 75.10, 275.9, 155.0, 21606, gapCause},
		{"h200", 1, 896, 101.25, 198.3, 123.3, 29228, gapCause},
	}
	l70, _ := TransformerPreset("llama2-70b")
	for _, r := range rows {
		c := serveCluster(t, r.gpu, 1, 8)
		res, err := SimulateServe(l70, c, ServeOptions{TP: r.tp, Batch: r.batch, Prompt: 294, Output: 290, DType: ir.Float8E4M3FN,
			Load: &ServeLoad{Requests: 20000, Rate: r.qps, LengthDist: LengthUniform, Seed: 1, MaxTokens: 1024}})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Requests
		eT, eP, eS := s.TTFT.MeanMs/r.ttftMs-1, s.TPOT.MeanMs/r.tpotMs-1, s.OutputTokensPerS/r.tokS-1
		t.Logf("%s tp %d x %d at %.4g QPS: TTFT %.0f ms (published %.0f, %+.0f%%), TPOT %.1f ms (published %.1f, %+.0f%%), %.0f tok/s (published %.0f, %+.1f%%)",
			r.gpu, r.tp, 8/r.tp, r.qps, s.TTFT.MeanMs, r.ttftMs, 100*eT, s.TPOT.MeanMs, r.tpotMs, 100*eP, s.OutputTokensPerS, r.tokS, 100*eS)
		out := math.Abs(eT) > 0.25 || math.Abs(eP) > 0.25
		switch {
		case out && r.gap == "":
			t.Errorf("%s: TTFT %+.0f%%, TPOT %+.0f%%: want within 25%% (%s)", r.gpu, 100*eT, 100*eP, srcMLPerfServer)
		case !out && r.gap != "":
			t.Errorf("%s: now within 25%%: drop its known-gap note", r.gpu)
		case out:
			t.Logf("  %s", r.gap)
		}
		// the throughput follows the arrival rate below capacity
		if math.Abs(eS) > 0.1 {
			t.Errorf("%s: %.0f output tokens/s, published %.0f at the same arrival rate", r.gpu, s.OutputTokensPerS, r.tokS)
		}
	}
}
