package llm

import (
	"math"
	"strings"
	"testing"
)

// near reports whether a is within rel of b.
func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

// simLLM predicts name on machines DGX H100s under o.
func simLLM(t *testing.T, name string, machines int, o LLMOptions) *LLMResult {
	t.Helper()
	tr, err := TransformerPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := SimulateLLM(tr, llamaCluster(t, machines), o)
	if err != nil {
		t.Fatalf("%+v: %v", o, err)
	}
	return r
}

// TestLLMZeRO: each ZeRO stage divides one more part of the memory by the
// data-parallel degree and changes the data-parallel collectives.
func TestLLMZeRO(t *testing.T) {
	var z [4]*LLMResult
	for s := range z {
		z[s] = simLLM(t, "llama3-70b", 8, LLMOptions{TP: 8, SequenceParallel: true, ZeRO: s, Recompute: RecomputeFull, GlobalBatch: 64})
	}
	m0 := z[0].Memory
	if !near(z[1].Memory.OptimizerGB, m0.OptimizerGB/8, 1e-9) || z[1].Memory.GradientsGB != m0.GradientsGB || z[1].Memory.WeightsGB != m0.WeightsGB {
		t.Errorf("zero-1: %s; zero-0: %s", z[1].Memory, m0)
	}
	if !near(z[2].Memory.GradientsGB, m0.GradientsGB/8, 1e-9) || z[2].Memory.WeightsGB != m0.WeightsGB {
		t.Errorf("zero-2: %s; zero-0: %s", z[2].Memory, m0)
	}
	if w := z[3].Memory.WeightsGB; w >= m0.WeightsGB/4 || w <= m0.WeightsGB/8 {
		t.Errorf("zero-3 weights %.2f GB: want the 1/8 shard plus two gathered layers (zero-0 %.2f GB)", w, m0.WeightsGB)
	}
	for s, r := range z {
		dp, zero := commTotal(r, "dp"), commTotal(r, "zero")
		ok := (s < 2) == (dp > 0) && (s > 0) == (zero > 0)
		if !ok {
			t.Errorf("zero-%d: dp %.1f ms, zero %.1f ms", s, dp, zero)
		}
	}
	if z[3].StepMs <= z[1].StepMs {
		t.Errorf("zero-3 (gathers every micro-batch) %.0f ms, not slower than zero-1 %.0f ms", z[3].StepMs, z[1].StepMs)
	}
}

// TestLLMMechanisms: sequence parallelism, interleaving, recomputation,
// context and expert parallelism move time and memory the way the papers
// describe.
func TestLLMMechanisms(t *testing.T) {
	base := LLMOptions{TP: 8, PP: 4, ZeRO: 1, Recompute: RecomputeSelective, GlobalBatch: 64}
	with := func(f func(*LLMOptions)) LLMOptions { o := base; f(&o); return o }
	noSP := simLLM(t, "gpt3-175b", 8, base)
	sp := simLLM(t, "gpt3-175b", 8, with(func(o *LLMOptions) { o.SequenceParallel = true }))
	if sp.Memory.ActivationsGB >= 0.8*noSP.Memory.ActivationsGB || !sp.SeqParallel {
		t.Errorf("sequence parallelism: activations %.1f GB, without %.1f GB", sp.Memory.ActivationsGB, noSP.Memory.ActivationsGB)
	}
	// interleaving divides the bubble by the virtual stages and keeps more
	// activations in flight
	vp := simLLM(t, "gpt3-175b", 8, with(func(o *LLMOptions) { o.SequenceParallel, o.VirtualStages = true, 2 }))
	if !near(vp.BubbleMs, sp.BubbleMs/2, 0.15) || vp.Memory.ActivationsGB <= sp.Memory.ActivationsGB {
		t.Errorf("interleaved: bubble %.0f ms (1F1B %.0f), activations %.1f GB (1F1B %.1f)", vp.BubbleMs, sp.BubbleMs, vp.Memory.ActivationsGB, sp.Memory.ActivationsGB)
	}
	// 1F1B bubble: (p - 1) stage times of m + p - 1
	stage := (sp.StepMs - sp.BubbleMs - sp.OptimizerMs) / float64(sp.MicroBatches)
	if !near(sp.BubbleMs, 3*stage, 0.25) {
		t.Errorf("bubble %.0f ms, 3 stage times %.0f ms", sp.BubbleMs, 3*stage)
	}
	// recomputation: memory falls, time and hardware FLOPs rise
	none := simLLM(t, "gpt3-175b", 8, with(func(o *LLMOptions) { o.SequenceParallel, o.Recompute, o.MemoryGB = true, RecomputeNone, 1000 }))
	full := simLLM(t, "gpt3-175b", 8, with(func(o *LLMOptions) { o.SequenceParallel, o.Recompute = true, RecomputeFull }))
	sel := sp
	if !(full.Memory.ActivationsGB < sel.Memory.ActivationsGB && sel.Memory.ActivationsGB <= none.Memory.ActivationsGB) {
		t.Errorf("activations: full %.1f, selective %.1f, none %.1f GB", full.Memory.ActivationsGB, sel.Memory.ActivationsGB, none.Memory.ActivationsGB)
	}
	if !(full.StepMs > sel.StepMs && sel.StepMs >= none.StepMs) || full.HFU <= full.MFU || none.HFU != none.MFU {
		t.Errorf("step: full %.0f, selective %.0f, none %.0f ms; full HFU %.3f MFU %.3f; none HFU %.3f MFU %.3f",
			full.StepMs, sel.StepMs, none.StepMs, full.HFU, full.MFU, none.HFU, none.MFU)
	}
	// context parallelism halves each GPU's tokens and exchanges keys and values
	l1 := simLLM(t, "llama3-70b", 8, LLMOptions{TP: 8, SequenceParallel: true, ZeRO: 1, GlobalBatch: 64})
	cp := simLLM(t, "llama3-70b", 8, LLMOptions{TP: 8, CP: 2, SequenceParallel: true, ZeRO: 1, GlobalBatch: 64})
	if commTotal(cp, "cp") <= 0 || !near(cp.Memory.ActivationsGB, l1.Memory.ActivationsGB/2, 0.1) {
		t.Errorf("cp 2: cp comm %.1f ms, activations %.1f GB (cp 1: %.1f)", commTotal(cp, "cp"), cp.Memory.ActivationsGB, l1.Memory.ActivationsGB)
	}
	// expert parallelism splits the experts' weights and adds all-to-alls
	e1 := simLLM(t, "mixtral-8x7b", 8, LLMOptions{TP: 2, ZeRO: 1, GlobalBatch: 64})
	e8 := simLLM(t, "mixtral-8x7b", 8, LLMOptions{TP: 2, EP: 8, ZeRO: 1, GlobalBatch: 64})
	if commTotal(e8, "ep") <= 0 || commTotal(e1, "ep") != 0 || e8.Memory.WeightsGB >= 0.3*e1.Memory.WeightsGB {
		t.Errorf("ep 8: a2a %.1f ms, weights %.1f GB (ep 1: %.1f GB)", commTotal(e8, "ep"), e8.Memory.WeightsGB, e1.Memory.WeightsGB)
	}
	for _, r := range []*LLMResult{noSP, sp, vp, full, l1, cp, e1, e8} {
		if r.MFU <= 0 || r.MFU >= 1 || r.TokensPerSPerGPU <= 0 || len(r.Assumptions) == 0 {
			t.Errorf("%s: MFU %.3f, tokens/s/GPU %.0f", r.Layout(), r.MFU, r.TokensPerSPerGPU)
		}
	}
}

// TestLLMDoesNotFit: a layout that does not fit is predicted, marked and
// explained with its breakdown.
func TestLLMDoesNotFit(t *testing.T) {
	r := simLLM(t, "llama3-70b", 1, LLMOptions{TP: 8, GlobalBatch: 8})
	if r.Memory.Fits || r.Memory.TotalGB <= r.Memory.CapacityGB || len(r.Warnings) == 0 || !strings.Contains(r.Warnings[len(r.Warnings)-1], "does not fit") {
		t.Fatalf("70B training on one DGX: %s, warnings %q", r.Memory, r.Warnings)
	}
	sum := r.Memory.WeightsGB + r.Memory.GradientsGB + r.Memory.OptimizerGB + r.Memory.ActivationsGB + r.Memory.CommBuffersGB + r.Memory.RuntimeGB
	if !near(sum, r.Memory.TotalGB, 1e-12) {
		t.Errorf("parts sum to %.3f GB, total %.3f", sum, r.Memory.TotalGB)
	}
	t.Log(r.Warnings[len(r.Warnings)-1])
}

// TestLLMBadLayouts: layouts that do not split the model or the cluster
// are errors that say why.
func TestLLMBadLayouts(t *testing.T) {
	tr, _ := TransformerPreset("llama3-70b")
	c := llamaCluster(t, 8)
	for _, tc := range []struct {
		o    LLMOptions
		want string
	}{
		{LLMOptions{TP: 3}, "GPUs"},
		{LLMOptions{TP: 8, PP: 4, DP: 4}, "GPUs"},
		{LLMOptions{TP: 8, PP: 128, DP: 1}, "GPUs"},
		{LLMOptions{TP: 8, EP: 2}, "dense"},
		{LLMOptions{TP: 8, VirtualStages: 2}, "pp > 1"},
		{LLMOptions{TP: 8, GlobalBatch: 7}, "multiple"},
		{LLMOptions{TP: 8, ZeRO: 4}, "zero"},
		{LLMOptions{TP: 8, PP: 2, ZeRO: 3}, "with pipeline parallelism"},
		{LLMOptions{TP: 8, Recompute: "most"}, "recompute"},
		{LLMOptions{TP: -1}, ">= 0"},
		{LLMOptions{TP: 8, CP: 8, Seq: 100}, "cp"},
	} {
		_, err := SimulateLLM(tr, c, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want one mentioning %q", tc.o, err, tc.want)
		}
	}
	fsdp, _ := FrameworkPreset("fsdp")
	if _, err := SimulateLLM(tr, c, LLMOptions{TP: 8, PP: 2, ZeRO: 3, Framework: fsdp}); err != nil {
		t.Errorf("fsdp runs zero-3 with pp: %v", err)
	}
	moe, _ := TransformerPreset("mixtral-8x7b")
	if _, err := SimulateLLM(moe, c, LLMOptions{TP: 2, EP: 3, DP: 32}); err == nil || !strings.Contains(err.Error(), "does not divide the 8 experts") {
		t.Errorf("ep 3 of 8 experts: %v", err)
	}
}

// TestInflightCappedByMicroBatches: the first stage never holds more
// micro-batches' activations than the step has, interleaved or not
// (Korthikanti's (1 + (p-1)/(p v)) factor assumes m well above p).
func TestInflightCappedByMicroBatches(t *testing.T) {
	act := func(global, vp int) float64 {
		return simLLM(t, "llama2-7b", 1, LLMOptions{PP: 8, VirtualStages: vp, MicroBatch: 1, GlobalBatch: global, Seq: 1024, Recompute: RecomputeSelective}).Memory.ActivationsGB
	}
	// 8 micro-batches (m = p): every one is in flight on stage 0 with or
	// without interleaving; 64: interleaving holds (1 + 7/16) x 8 of them
	if a, b := act(8, 1), act(8, 2); !near(a, b, 0.05) {
		t.Errorf("m = p: activations %.2f GB plain vs %.2f GB interleaved, want the same", a, b)
	}
	if a, b := act(64, 1), act(64, 2); b < 1.3*a {
		t.Errorf("m = 8p: activations %.2f GB plain vs %.2f GB interleaved, want about 1.44x", a, b)
	}
}
