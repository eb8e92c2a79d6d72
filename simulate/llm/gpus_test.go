package llm

import (
	"github.com/wolong-dev/wolong/simulate/cluster"
	"strings"
	"testing"
)

// commTotal is a result's total time of one kind of communication.
func commTotal(r *LLMResult, kind string) float64 {
	for _, p := range r.Comm {
		if p.Kind == kind {
			return p.TotalMs
		}
	}
	return 0
}

// TestLLMGPUPresets: the GPU presets of this package carry sources and a
// dense peak the MFU is labelled with; a GB200 NVL72 domain keeps a
// data-parallel group on NVLink that eight-GPU B200 machines send over
// the network; an H800's cut NVLink makes the same tensor-parallel
// traffic slower than an H100's.
func TestLLMGPUPresets(t *testing.T) {
	for _, name := range []string{"h800", "b200", "gb200", "mi300x"} {
		g, err := cluster.GPUPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Sources) == 0 || g.PeakTFLOPS.BF16 <= 0 || g.NVLinkGBs <= 0 || g.MemoryGB <= 0 {
			t.Errorf("%s: sources %d, bf16 %g, link %g GB/s, memory %g GB", name, len(g.Sources), g.PeakTFLOPS.BF16, g.NVLinkGBs, g.MemoryGB)
		}
	}
	tr, _ := TransformerPreset("llama3-70b")
	run := func(gpu string, machines, per int) *LLMResult {
		g, err := cluster.GPUPreset(gpu)
		if err != nil {
			t.Fatal(err)
		}
		net, _ := cluster.NetworkPreset("ib-ndr")
		c, err := cluster.New(machines, per, g, net)
		if err != nil {
			t.Fatal(err)
		}
		c.NICsPerMachine = per
		r, err := SimulateLLM(tr, c, LLMOptions{TP: 8, SequenceParallel: true, ZeRO: 1, Recompute: RecomputeFull, GlobalBatch: 144})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %dx%d: %s step %.2f s, MFU %.1f%% of %s, tp %.0f ms, dp %.0f ms, %s", gpu, machines, per, r.Layout(), r.StepMs/1e3, 100*r.MFU, r.Peak, commTotal(r, "tp"), commTotal(r, "dp"), r.Memory)
		return r
	}
	nvl := run("gb200", 2, 72)
	hgx := run("b200", 18, 8)
	if !strings.Contains(nvl.Peak, "2500") || !strings.Contains(hgx.Peak, "2250") {
		t.Errorf("peaks %q, %q", nvl.Peak, hgx.Peak)
	}
	if commTotal(nvl, "dp") >= commTotal(hgx, "dp") {
		t.Errorf("dp gradient reduce: NVL72 %.1f ms, 8-GPU machines %.1f ms", commTotal(nvl, "dp"), commTotal(hgx, "dp"))
	}
	h800, h100 := run("h800", 18, 8), run("h100", 18, 8)
	if commTotal(h800, "tp") <= 1.5*commTotal(h100, "tp") {
		t.Errorf("tp traffic: h800 %.1f ms, h100 %.1f ms", commTotal(h800, "tp"), commTotal(h100, "tp"))
	}
	mi := run("mi300x", 18, 8)
	if mi.MFU >= h100.MFU || !mi.Memory.Fits {
		t.Errorf("mi300x MFU %.3f (h100 %.3f), fits %v", mi.MFU, h100.MFU, mi.Memory.Fits)
	}
}
