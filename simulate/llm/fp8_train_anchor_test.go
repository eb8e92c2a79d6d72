package llm

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// srcNeMoFP8 is NVIDIA NeMo's published FP8 pre-training table.
const srcNeMoFP8 = "NVIDIA NeMo Framework, docs/source/performance/performance_summary.md (container NeMo 24.07, DGX-H100, FP8): tokens/sec/GPU at the listed #GPUs, GBS, MBS, sequence length, TP, PP, CP, VP; the GPT3-175B 512-GPU row is NVIDIA's MLPerf Training configuration. Sequence parallelism with TP > 1, distributed optimizer and TP communication overlap assumed (NeMo's performance recipes)"

// TestFP8TrainingAnchorsNeMo predicts NeMo's FP8 pre-training throughput
// with training as Transformer Engine runs FP8 (GEMMs at the FP8 GEMM
// efficiency, cast_transpose of each GEMM's operand, bf16 elsewhere) and
// --tp-overlap. Guard: within 10%. These rows are the development set of
// the cast_transpose term (it has no free parameter); rows outside the
// guard stay, with their cause.
func TestFP8TrainingAnchorsNeMo(t *testing.T) {
	g5 := &Transformer{Name: "gpt3-5b", Layers: 24, Hidden: 4096, Heads: 32, KVHeads: 32, FFN: 16384, Vocab: 50257, Seq: 2048, TiedEmbeddings: true, Bias: true, LearnedPositions: true}
	g20 := &Transformer{Name: "gpt3-20b", Layers: 44, Hidden: 6144, Heads: 48, KVHeads: 48, FFN: 24576, Vocab: 50257, Seq: 2048, TiedEmbeddings: true, Bias: true, LearnedPositions: true}
	g175, _ := TransformerPreset("gpt3-175b")
	l27, _ := TransformerPreset("llama2-7b")
	l270, _ := TransformerPreset("llama2-70b")
	l38, _ := TransformerPreset("llama3-8b")
	l370, _ := TransformerPreset("llama3-70b")
	const small = "known gap: no tensor parallelism, so nothing is hidden by overlap and the per-GEMM FP8 bookkeeping TE adds (amax reductions, scale updates, the weight casts of each micro-batch) that wolong does not model weighs most on the small GEMMs; llama3-8b also splits 8K sequences over CP 2 inside 8 GPUs"
	for _, r := range []struct {
		m                                   *Transformer
		gpus, gbs, mbs, seq, tp, pp, cp, vp int
		tok                                 float64
		gap                                 string
	}{
		{g5, 64, 2048, 4, 2048, 1, 1, 1, 1, 22521, small},
		{g20, 64, 256, 2, 2048, 2, 1, 1, 1, 5851, ""},
		{g175, 128, 256, 1, 2048, 4, 8, 1, 6, 726, ""},
		{g175, 512, 2048, 2, 2048, 4, 8, 1, 6, 782, ""},
		{l27, 8, 128, 1, 4096, 1, 1, 1, 1, 16847, ""},
		{l270, 64, 128, 1, 4096, 4, 4, 1, 20, 1707, ""},
		{l38, 8, 128, 1, 8192, 1, 1, 2, 1, 12036, small},
		{l370, 64, 128, 1, 8192, 4, 4, 2, 5, 1533, ""},
	} {
		fw, _ := FrameworkPreset("megatron-core")
		fw.TPOverlap = 0.9
		res, err := SimulateLLM(r.m, serveCluster(t, "h100", r.gpus/8, 8), LLMOptions{TP: r.tp, PP: r.pp, CP: r.cp, VirtualStages: r.vp, SequenceParallel: r.tp > 1,
			ZeRO: 1, MicroBatch: r.mbs, GlobalBatch: r.gbs, Seq: r.seq, DType: ir.Float8E4M3FN, Framework: fw})
		if err != nil {
			t.Fatal(err)
		}
		e := res.TokensPerSPerGPU/r.tok - 1
		t.Logf("%-10s %4d H100 tp %d pp %d cp %d vp %d: %6.0f tokens/s/GPU, published %6.0f (%+.1f%%); memory %.0f GB (fits %v)", r.m.Name, r.gpus, r.tp, r.pp, r.cp, r.vp,
			res.TokensPerSPerGPU, r.tok, 100*e, res.Memory.TotalGB, res.Memory.Fits)
		switch out := math.Abs(e) > 0.10; {
		case out && r.gap == "":
			t.Errorf("%s on %d GPUs: %+.1f%%, want within 10%% (%s)", r.m.Name, r.gpus, 100*e, srcNeMoFP8)
		case out:
			t.Logf("  %s", r.gap)
		case r.gap != "":
			t.Errorf("%s on %d GPUs: now within 10%%: drop its known-gap note", r.m.Name, r.gpus)
		}
	}
}
