package llm

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// FP8 training as Transformer Engine runs it: GEMMs at the FP8 rate
// derated by the FP8 GEMM efficiency, attention and activations in bf16:
// faster than bf16 by less than the 2x of the peaks; --tp-overlap hides
// most of the tensor-parallel communication; bf16 gradient reduction
// moves half the bytes of fp32.
func TestFP8TrainingAsDeployed(t *testing.T) {
	g175, _ := TransformerPreset("gpt3-175b")
	c := serveCluster(t, "h100", 64, 8)
	step := func(dt ir.DType, overlap float64, fp32 bool) *LLMResult {
		fw, _ := FrameworkPreset("megatron-core")
		fw.TPOverlap, fw.GradFP32 = overlap, fp32
		r, err := SimulateLLM(g175, c, LLMOptions{TP: 8, PP: 8, VirtualStages: 2, SequenceParallel: true, GlobalBatch: 2048, DType: dt, Framework: fw})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	bf, f8, ov := step(ir.BFloat16, 0, true), step(ir.Float8E4M3FN, 0, true), step(ir.Float8E4M3FN, 0.9, true)
	if x := bf.ComputeMs / f8.ComputeMs; x <= 1.2 || x >= 1.9 {
		t.Errorf("fp8 compute %.0f ms, bf16 %.0f ms: %.2fx, want between 1.2x and 1.9x", f8.ComputeMs, bf.ComputeMs, x)
	}
	if ov.CommMs >= 0.5*f8.CommMs || ov.StepMs >= f8.StepMs {
		t.Errorf("tp overlap: comm %.0f ms (%.0f without), step %.0f (%.0f)", ov.CommMs, f8.CommMs, ov.StepMs, f8.StepMs)
	}
	if b16 := step(ir.Float8E4M3FN, 0, false); b16.StepMs > f8.StepMs {
		t.Errorf("bf16 gradient reduction %.0f ms slower than fp32 %.0f", b16.StepMs, f8.StepMs)
	}
	if f8.Memory.WeightsGB != bf.Memory.WeightsGB {
		t.Errorf("fp8 training keeps bf16 weights: %.1f GB, bf16 %.1f GB", f8.Memory.WeightsGB, bf.Memory.WeightsGB)
	}
}

// The serving precisions: FP8 weights and cache by default with fp8,
// fp4 only where FP4 tensor cores exist, fp8 attention needs an fp8
// cache.
func TestServePrecision(t *testing.T) {
	h100 := serveCluster(t, "h100", 1, 1).GPU
	p, err := newServePrecision(h100, ir.Float8E4M3FN, ir.Undefined, false)
	if err != nil || p.KV != ir.Float8E4M3FN || p.Attention != ir.BFloat16 || p.wb != 1 || p.ab != 2 || p.gemmScale <= 1 {
		t.Errorf("fp8: %+v, %v", p, err)
	}
	if p, err := newServePrecision(h100, ir.Undefined, ir.Undefined, false); err != nil || p.Weights != ir.BFloat16 || p.kb != 2 || p.gemmScale != 1 {
		t.Errorf("default: %+v, %v", p, err)
	}
	if _, err := newServePrecision(h100, ir.Float4E2M1, ir.Undefined, false); err == nil {
		t.Error("fp4 on h100: no error")
	}
	if _, err := newServePrecision(h100, ir.BFloat16, ir.Undefined, true); err == nil {
		t.Error("fp8 attention over a bf16 cache: no error")
	}
	a100 := serveCluster(t, "a100", 1, 1).GPU
	if _, err := newServePrecision(a100, ir.Float8E4M3FN, ir.Undefined, false); err == nil {
		t.Error("fp8 on a100: no error")
	}
}

// DeepSeek-V2/V3: the parameter counts the papers publish (total and
// active), the latent KV cache (576 elements per token and layer, the
// same on every tensor-parallel rank), and serving and training run.
func TestDeepSeekArchitectures(t *testing.T) {
	for _, c := range []struct {
		name          string
		total, active float64 // billions, published
	}{{"deepseek-v2", 236, 21}, {"deepseek-v3", 671, 37}} {
		d, err := TransformerPreset(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		tot, act := d.Params()/1e9, d.ActiveParams()/1e9
		t.Logf("%s: %.1fB parameters (%.1fB active), %.2fB MTP; %s", c.name, tot, act, d.MTPParams()/1e9, d)
		if tot/c.total-1 > 0.02 || tot/c.total-1 < -0.02 || act/c.active-1 > 0.05 || act/c.active-1 < -0.05 {
			t.Errorf("%s: %.1fB (%.1fB active), published %gB (%gB)", c.name, tot, act, c.total, c.active)
		}
		if d.kvElemsPerToken(8) != 576 || d.kvElemsPerToken(1) != 576 {
			t.Errorf("%s: %g cached elements per token and layer, want 512 + 64", c.name, d.kvElemsPerToken(8))
		}
	}
	v3, _ := TransformerPreset("deepseek-v3")
	c := serveCluster(t, "h200", 1, 8)
	r, err := SimulateServe(v3, c, ServeOptions{TP: 8, Prompt: 1000, Output: 1000, DType: ir.Float8E4M3FN, Load: &ServeLoad{Requests: 500}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("deepseek-v3 8 x h200 tp 8 fp8, 1000/1000: %.0f output tok/s, TPOT %.1f ms, %d KV tokens", r.Requests.OutputTokensPerS, r.Requests.TPOT.MeanMs, r.Requests.KVTokens)
	if r.Requests.OutputTokensPerS <= 0 || r.Memory.WeightsGB < 80 || r.Memory.WeightsGB > 90 {
		t.Errorf("weights %.1f GB per GPU (671B fp8 over 8: 84), %.0f tok/s", r.Memory.WeightsGB, r.Requests.OutputTokensPerS)
	}
	v2, _ := TransformerPreset("deepseek-v2")
	tr, err := SimulateLLM(v2, serveCluster(t, "h100", 16, 8), LLMOptions{TP: 1, PP: 8, EP: 8, ZeRO: 1, GlobalBatch: 1024, Seq: 4096})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("deepseek-v2 training 128 x h100 pp 8 ep 8: step %.0f ms, MFU %.2f, %s", tr.StepMs, tr.MFU, tr.Memory)
	if tr.MFU <= 0.05 || tr.MFU >= 0.7 {
		t.Errorf("deepseek-v2 MFU %.2f", tr.MFU)
	}
	bad := *v3
	bad.KVHeads = 8
	if bad.Validate() == nil {
		t.Error("MLA with 8 kv heads: no error")
	}
}
