package llm

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestSimulateServe checks serving against first principles: a batch-1
// decode step streams the replica's weights (within 2.5x of the memory
// roofline), the KV cache is 2 x layers x kv heads x head dim x bytes per
// token, the largest batch that fits is the boundary, tokens/s per GPU
// grows with the batch, and a model too large for its replica says so.
func TestSimulateServe(t *testing.T) {
	l70, _ := TransformerPreset("llama3-70b")
	l405, _ := TransformerPreset("llama3-405b")
	c := llamaCluster(t, 1)
	res, err := SimulateServe(l70, c, ServeOptions{TP: 8, Batch: 1, Prompt: 1024, Output: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("llama3-70b tp 8 batch 1: TTFT %.1f ms, TPOT %.2f ms (tp comm %.2f), %.0f tokens/s/GPU, max batch %d, %s", res.TTFTMs, res.TPOTMs, res.TPCommMs, res.TokensPerSPerGPU, res.MaxBatch, res.Memory)
	roof := l70.Params() * 2 / 8 / (c.GPU.MemoryBandwidthGBs * 1e9) * 1e3
	// above the roofline: 85% of the bandwidth, each kernel's fixed time
	// and 160 all-reduces of a few KB
	if res.TPOTMs < roof || res.TPOTMs > 2.5*roof {
		t.Errorf("TPOT %.2f ms, weight-streaming roofline %.2f ms", res.TPOTMs, roof)
	}
	kv := 2.0 * 80 * 1 * 128 * 2 * 1280 / 1e9 // 8 kv heads over tp 8
	if math.Abs(res.Memory.KVCacheGB-kv) > 1e-9 || math.Abs(res.Memory.WeightsGB-l70.Params()*2/8/1e9) > 1e-9 {
		t.Errorf("kv cache %.6f GB (want %.6f), weights %.3f GB", res.Memory.KVCacheGB, kv, res.Memory.WeightsGB)
	}
	// the largest batch fits, one more does not
	at, err := SimulateServe(l70, c, ServeOptions{TP: 8, MaxBatch: true, Prompt: 1024, Output: 256})
	if err != nil {
		t.Fatal(err)
	}
	over, err := SimulateServe(l70, c, ServeOptions{TP: 8, Batch: at.Batch + 1, Prompt: 1024, Output: 256})
	if err != nil {
		t.Fatal(err)
	}
	// with a large batch the cache dominates: decode slows as it grows
	if at.DecodeFirstMs >= at.TPOTMs || at.TPOTMs >= at.DecodeLastMs || at.TTFTMs <= at.TPOTMs {
		t.Errorf("decode %.3f < %.3f < %.3f ms, TTFT %.2f ms", at.DecodeFirstMs, at.TPOTMs, at.DecodeLastMs, at.TTFTMs)
	}
	if at.Batch != res.MaxBatch || !at.Memory.Fits || over.Memory.Fits || len(over.Warnings) == 0 {
		t.Errorf("max batch %d (fits %v), %d fits %v", at.Batch, at.Memory.Fits, over.Batch, over.Memory.Fits)
	}
	t.Logf("llama3-70b tp 8 batch %d: TTFT %.0f ms, TPOT %.2f ms, %.0f tokens/s/GPU (decode only %.0f)", at.Batch, at.TTFTMs, at.TPOTMs, at.TokensPerSPerGPU, at.DecodeTokensPerSPerGPU)
	prev := 0.0
	for _, b := range []int{1, 8, 64} {
		r, err := SimulateServe(l70, c, ServeOptions{TP: 8, Batch: b})
		if err != nil {
			t.Fatal(err)
		}
		if r.TokensPerSPerGPU <= prev {
			t.Errorf("batch %d: %.0f tokens/s/GPU, not more than the smaller batch's %.0f", b, r.TokensPerSPerGPU, prev)
		}
		prev = r.TokensPerSPerGPU
	}
	// 405B in bf16 does not fit 8 x 80 GB; in fp8 it does
	big, err := SimulateServe(l405, c, ServeOptions{TP: 8})
	if err != nil {
		t.Fatal(err)
	}
	fp8, err := SimulateServe(l405, c, ServeOptions{TP: 8, DType: ir.Float8E4M3FN})
	if err != nil {
		t.Fatal(err)
	}
	if big.Memory.Fits || big.MaxBatch != 0 || !fp8.Memory.Fits {
		t.Errorf("405B bf16 fits %v (max batch %d), fp8 fits %v", big.Memory.Fits, big.MaxBatch, fp8.Memory.Fits)
	}
	for _, o := range []ServeOptions{{TP: 3}, {TP: 16}, {Batch: -1}, {DType: ir.Float32}, {Prompt: 1 << 24, Output: 1}} {
		if _, err := SimulateServe(l70, c, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
