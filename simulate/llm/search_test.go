package llm

import (
	"github.com/wolong-dev/wolong/simulate/cluster"
	"testing"
)

// llamaCluster is machines DGX H100s with one 400 Gb/s NDR NIC per GPU.
func llamaCluster(t testing.TB, machines int) *cluster.Cluster {
	t.Helper()
	gpu, err := cluster.GPUPreset("h100")
	if err != nil {
		t.Fatal(err)
	}
	net, err := cluster.NetworkPreset("ib-ndr")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(machines, 8, gpu, net)
	if err != nil {
		t.Fatal(err)
	}
	c.NICsPerMachine = 8
	return c
}

// TestSearchLLM: the search's best layout is at least as fast as any
// fitting layout it was given to choose from, every kept layout fits and
// they are sorted; fixing a dimension fixes it; a model that cannot fit
// reports the smallest layout's memory.
func TestSearchLLM(t *testing.T) {
	tr, err := TransformerPreset("llama3-70b")
	if err != nil {
		t.Fatal(err)
	}
	c := llamaCluster(t, 8)
	res, err := SearchLLM(tr, c, SearchOptions{Base: LLMOptions{GlobalBatch: 64}, Top: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Best) == 0 || res.Fitting == 0 || res.Evaluated < res.Fitting {
		t.Fatalf("no fitting layout: %+v", res)
	}
	for i, b := range res.Best {
		if !b.Memory.Fits {
			t.Errorf("layout %d (%s) does not fit: %s", i, b.Layout(), b.Memory)
		}
		if i > 0 && b.StepMs < res.Best[i-1].StepMs {
			t.Errorf("layout %d faster than %d", i, i-1)
		}
		if b.PP > 1 && b.ZeRO > 1 {
			t.Errorf("layout %d (%s): megatron-core runs zero-1 at most with pp", i, b.Layout())
		}
		if len(b.Assumptions) == 0 {
			t.Errorf("layout %d without assumptions", i)
		}
	}
	t.Logf("best of %d (%d fit): %s step %.0f ms MFU %.1f%% mem %s", res.Evaluated, res.Fitting, res.Best[0].Layout(), res.Best[0].StepMs, 100*res.Best[0].MFU, res.Best[0].Memory)
	// hand-picked layouts are no faster than the search's best
	for _, o := range []LLMOptions{
		{TP: 8, PP: 2, SequenceParallel: true, ZeRO: 1, Recompute: RecomputeSelective, GlobalBatch: 64},
		{TP: 8, PP: 4, SequenceParallel: true, ZeRO: 1, Recompute: RecomputeFull, GlobalBatch: 64, VirtualStages: 2},
		{TP: 4, PP: 4, SequenceParallel: true, ZeRO: 1, Recompute: RecomputeFull, GlobalBatch: 64},
	} {
		r, err := SimulateLLM(tr, c, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Memory.Fits && r.StepMs < res.Best[0].StepMs*(1-1e-9) {
			t.Errorf("%s takes %.1f ms, faster than the search's best %s (%.1f ms)", r.Layout(), r.StepMs, res.Best[0].Layout(), res.Best[0].StepMs)
		}
	}
	// fixed dimensions
	fixed, err := SearchLLM(tr, c, SearchOptions{Base: LLMOptions{GlobalBatch: 64}, TP: []int{4}, Recompute: []Recompute{RecomputeFull}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range fixed.Best {
		if b.TP != 4 || b.Recompute != RecomputeFull {
			t.Errorf("fixed tp 4, full recompute; got %s", b.Layout())
		}
	}
	// too small a cluster: nothing fits, the smallest is reported
	small, err := SearchLLM(tr, llamaCluster(t, 1), SearchOptions{Base: LLMOptions{GlobalBatch: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if len(small.Best) != 0 || small.Smallest == nil || small.Smallest.Memory.Fits {
		t.Fatalf("70B training on 8 GPUs fits? %+v", small)
	}
	t.Logf("8 GPUs: smallest %s needs %s", small.Smallest.Layout(), small.Smallest.Memory)
	// bad input
	if _, err := SearchLLM(tr, c, SearchOptions{}); err == nil {
		t.Error("no global batch: no error")
	}
}

// BenchmarkSearchLLM16K searches Llama 3 405B (sequence 8192, global
// batch 2048 sequences) on 16,384 H100s: every TP x PP x CP x VP x ZeRO x
// recompute x micro-batch layout.
func BenchmarkSearchLLM16K(b *testing.B) {
	tr, err := TransformerPreset("llama3-405b")
	if err != nil {
		b.Fatal(err)
	}
	c := llamaCluster(b, 2048)
	for i := 0; i < b.N; i++ {
		res, err := SearchLLM(tr, c, SearchOptions{Base: LLMOptions{GlobalBatch: 2048}})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(res.Evaluated), "layouts")
			b.Logf("best of %d (%d fit): %s step %.2f s MFU %.1f%%", res.Evaluated, res.Fitting, res.Best[0].Layout(), res.Best[0].StepMs/1e3, 100*res.Best[0].MFU)
		}
	}
}
