package llm

import (
	"fmt"
	"strings"
	"testing"
)

// planOf predicts name on machines DGX H100s under o and builds its plan.
func planOf(t *testing.T, name string, machines int, o LLMOptions) *LLMPlan {
	t.Helper()
	tr, err := TransformerPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	c := llamaCluster(t, machines)
	r, err := SimulateLLM(tr, c, o)
	if err != nil {
		t.Fatalf("%+v: %v", o, err)
	}
	return NewLLMPlan(tr, c, r, o.Framework)
}

// coverLayers checks that the chunks hold every layer once, in runs of
// consecutive layers, in virtual-stage order (a chunk of no layers only
// first on the first stage or last on the last); it returns what is wrong.
func coverLayers(p *LLMPlan) string {
	next, want := 0, 0
	byVS := map[int]PlanChunk{}
	for i, s := range p.Stages {
		n := 0
		for j, c := range s.Chunks {
			if c.Empty() {
				if c.FirstLayer != -1 || c.LastLayer != -1 || !(i == 0 && j == 0 || i == len(p.Stages)-1 && j == len(s.Chunks)-1) {
					return fmt.Sprintf("stage %d chunk %d: %+v holds no layer", i, j, c)
				}
				continue
			}
			byVS[c.VirtualStage] = c
			n += c.LastLayer - c.FirstLayer + 1
		}
		if n != s.Layers {
			return fmt.Sprintf("stage %d: chunks hold %d layers, stage %d", s.Stage, n, s.Layers)
		}
		want += s.Layers
	}
	for vs := 0; len(byVS) > 0; vs++ {
		c, ok := byVS[vs]
		if !ok {
			if vs == 0 {
				continue // the first stage's chunk of only the embedding
			}
			if len(byVS) > 0 && vs < len(p.Stages)*len(p.Stages[0].Chunks)-1 {
				return fmt.Sprintf("virtual stage %d: missing, want a run from layer %d", vs, next)
			}
			break
		}
		delete(byVS, vs)
		if c.FirstLayer != next || c.LastLayer < c.FirstLayer {
			return fmt.Sprintf("virtual stage %d: %+v, want a run from layer %d", vs, c, next)
		}
		next = c.LastLayer + 1
	}
	if next != p.Architecture.Layers || want != p.Architecture.Layers {
		return fmt.Sprintf("chunks end at layer %d of %d (stages hold %d)", next, p.Architecture.Layers, want)
	}
	return ""
}

// TestLLMPlan: the plan's stages hold every layer once, its rank groups
// sit where the rank order puts them, and its Megatron-LM arguments say
// the layout.
func TestLLMPlan(t *testing.T) {
	tests := []struct {
		name     string
		model    string
		machines int
		o        LLMOptions
		stage0   []PlanChunk // stage 0's chunks
		args     []string    // in megatron_args
		notArgs  []string
		groups   map[string][2]int // kind: size, NVLink domains
	}{
		{"llama3-405b meta layout", "llama3-405b", 64, LLMOptions{TP: 8, PP: 16, SequenceParallel: true, ZeRO: 1, Recompute: RecomputeFull, GlobalBatch: 64},
			[]PlanChunk{{0, 0, 6}},
			[]string{"--tensor-model-parallel-size 8 ", "--pipeline-model-parallel-size 16 ", "--decoder-first-pipeline-num-layers 7 ", "--decoder-last-pipeline-num-layers 7 ",
				"--sequence-parallel", "--use-distributed-optimizer", "--recompute-granularity full", "--group-query-attention --num-query-groups 8", "--swiglu", "--seq-length 8192"},
			[]string{"--context-parallel-size", "--num-layers-per-virtual"},
			map[string][2]int{"tp": {8, 1}, "dp": {4, 4}, "pp": {16, 16}}},
		{"llama3-405b meta interleaved layout", "llama3-405b", 64, LLMOptions{TP: 8, PP: 16, VirtualStages: 8, SequenceParallel: true, ZeRO: 2, GlobalBatch: 64, Framework: mustFramework(t, "fsdp")},
			[]PlanChunk{{0, -1, -1}, {16, 15, 15}, {32, 31, 31}, {48, 47, 47}, {64, 63, 63}, {80, 79, 79}, {96, 95, 95}, {112, 111, 111}},
			[]string{"--num-layers-per-virtual-pipeline-stage 1 ", "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split", "--use-custom-fsdp"},
			[]string{"--decoder-first", "--num-virtual-stages-per-pipeline-rank", "--recompute-granularity"},
			map[string][2]int{"tp": {8, 1}, "dp": {4, 4}, "pp": {16, 16}}},
		{"gpt3-175b interleaved", "gpt3-175b", 16, LLMOptions{TP: 8, PP: 8, VirtualStages: 2, Recompute: RecomputeSelective, GlobalBatch: 64, Framework: mustFramework(t, "megatron-2021")},
			[]PlanChunk{{0, 0, 5}, {8, 48, 53}},
			[]string{"--num-layers-per-virtual-pipeline-stage 6", "--recompute-granularity selective", "--position-embedding-type learned_absolute", "--bf16"},
			[]string{"--decoder-first", "--use-distributed-optimizer", "--untie-embeddings", "--disable-bias-linear", "--use-flash-attn"},
			map[string][2]int{"tp": {8, 1}, "dp": {2, 2}, "pp": {8, 8}}},
		{"mixtral ep cp", "mixtral-8x7b", 4, LLMOptions{TP: 2, CP: 2, EP: 4, ZeRO: 1, Recompute: RecomputeFull, GlobalBatch: 64},
			[]PlanChunk{{0, 0, 31}},
			[]string{"--context-parallel-size 2", "--expert-model-parallel-size 4", "--num-experts 8 --moe-router-topk 2", "--use-flash-attn"},
			[]string{"--pipeline-model-parallel-size 2", "--sequence-parallel"},
			map[string][2]int{"tp": {2, 1}, "cp": {2, 1}, "dp": {8, 4}, "ep": {4, 1}, "pp": {1, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := planOf(t, tc.model, tc.machines, tc.o)
			if msg := coverLayers(p); msg != "" {
				t.Error(msg)
			}
			if got := p.Stages[0].Chunks; fmt.Sprint(got) != fmt.Sprint(tc.stage0) {
				t.Errorf("stage 0 chunks %v, want %v", got, tc.stage0)
			}
			if !p.Stages[0].Embedding || !p.Stages[len(p.Stages)-1].Head {
				t.Errorf("embedding / head stages: %+v", p.Stages)
			}
			last := p.Stages[len(p.Stages)-1]
			if last.LastMachine != tc.machines-1 || p.Stages[0].FirstMachine != 0 {
				t.Errorf("stages span machines %d..%d, want 0..%d", p.Stages[0].FirstMachine, last.LastMachine, tc.machines-1)
			}
			args := p.MegatronArgs + " "
			for _, a := range tc.args {
				if !strings.Contains(args, a) {
					t.Errorf("megatron_args lack %q: %s", a, p.MegatronArgs)
				}
			}
			for _, a := range tc.notArgs {
				if strings.Contains(args, a) {
					t.Errorf("megatron_args have %q: %s", a, p.MegatronArgs)
				}
			}
			got := map[string][2]int{}
			for _, g := range p.Ranks.Groups {
				got[g.Kind] = [2]int{g.Size, g.Domains}
				if g.Size*g.Groups != p.GPUs || len(g.First) != min(g.Size, maxShownRanks) || g.First[len(g.First)-1] != (len(g.First)-1)*g.Stride {
					t.Errorf("group %+v on %d GPUs", g, p.GPUs)
				}
			}
			for k, want := range tc.groups {
				if want[0] > 1 && got[k] != want {
					t.Errorf("%s group: size, domains %v, want %v", k, got[k], want)
				}
			}
		})
	}
}

func mustFramework(t *testing.T, name string) *Framework {
	t.Helper()
	f, err := FrameworkPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
