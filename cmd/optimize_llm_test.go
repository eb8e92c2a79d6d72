package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// optimize --cluster with the LLM flags writes the plan to -o (the JSON it
// prints) with the layout, stages, rank groups, memory, collectives,
// prediction and Megatron-LM arguments.
func TestOptimizeLLMPlan(t *testing.T) {
	model := smallLLM(t)
	dir := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, d map[string]any)
	}{
		{"layout", []string{"--tp", "2", "--pp", "2", "--sp", "--zero", "1", "--recompute", "selective", "--global-batch", "16", "--seq", "512"}, func(t *testing.T, d map[string]any) {
			if num(t, d, "tp") != 2 || num(t, d, "pp") != 2 || num(t, d, "dp") != 2 || d["sequence_parallel"] != true || num(t, d, "zero") != 1 || d["recompute"] != "selective" {
				t.Errorf("layout tp %v pp %v dp %v sp %v zero %v recompute %v", d["tp"], d["pp"], d["dp"], d["sequence_parallel"], d["zero"], d["recompute"])
			}
			args, _ := d["megatron_args"].(string)
			for _, a := range []string{"--tensor-model-parallel-size 2", "--pipeline-model-parallel-size 2", "--sequence-parallel", "--use-distributed-optimizer",
				"--recompute-granularity selective", "--global-batch-size 16", "--seq-length 512", "--num-layers 4", "--num-query-groups 4"} {
				if !strings.Contains(args, a) {
					t.Errorf("megatron_args lack %q: %s", a, args)
				}
			}
		}},
		{"embedding chunk", []string{"--tp", "2", "--pp", "2", "--vp", "3", "--zero", "2", "--framework", "fsdp", "--global-batch", "16", "--seq", "512"}, func(t *testing.T, d map[string]any) {
			// 4 layers + embedding + output layer in 2 x 3 one-layer chunks
			stages, _ := d["stages"].([]any)
			first := stages[0].(map[string]any)["chunks"].([]any)
			last := stages[1].(map[string]any)["chunks"].([]any)
			if c := first[0].(map[string]any); num(t, c, "first_layer") != -1 || num(t, c, "last_layer") != -1 {
				t.Errorf("stage 0's first chunk %v, want only the embedding (layers -1)", c)
			}
			if c := last[len(last)-1].(map[string]any); num(t, c, "first_layer") != -1 {
				t.Errorf("the last stage's last chunk %v, want only the output layer", c)
			}
			args, _ := d["megatron_args"].(string)
			for _, a := range []string{"--num-layers-per-virtual-pipeline-stage 1", "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split"} {
				if !strings.Contains(args, a) {
					t.Errorf("megatron_args lack %q: %s", a, args)
				}
			}
		}},
		{"auto", []string{"--strategy", "auto", "--global-batch", "32", "--pp", "1"}, func(t *testing.T, d map[string]any) {
			if num(t, d, "pp") != 1 || num(t, d, "tp")*num(t, d, "dp")*num(t, d, "cp") != 8 {
				t.Errorf("searched layout tp %v pp %v dp %v cp %v: want pp 1 (fixed) on 8 GPUs", d["tp"], d["pp"], d["dp"], d["cp"])
			}
			if !strings.Contains(strings.Join(strs(d["assumptions"]), "\n"), "--strategy auto") {
				t.Errorf("assumptions do not say the layout was searched: %v", d["assumptions"])
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := filepath.Join(dir, tc.name+".json")
			args := append([]string{"optimize", model, "--cluster", "1x8", "--hw", "h100", "--format", "json", "-o", plan}, tc.args...)
			out, errs, code := run(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var d, file map[string]any
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatalf("stdout is not JSON: %v", err)
			}
			data, err := os.ReadFile(plan)
			if err != nil {
				t.Fatalf("plan file: %v", err)
			}
			if err := json.Unmarshal(data, &file); err != nil || !reflect.DeepEqual(d, file) {
				t.Fatalf("plan file (%v) is not the JSON printed", err)
			}
			checkPlanCommon(t, d, 8)
			tc.check(t, d)
		})
	}
}

// checkPlanCommon checks what every plan carries: stages covering the
// layers, rank groups, memory by part, collectives and the prediction.
func checkPlanCommon(t *testing.T, d map[string]any, gpus float64) {
	t.Helper()
	arch := obj(t, d, "architecture")
	stages, _ := d["stages"].([]any)
	if len(stages) != int(num(t, d, "pp")) {
		t.Fatalf("%d stages, pp %v", len(stages), d["pp"])
	}
	layers := 0.0
	for _, s := range stages {
		layers += num(t, s.(map[string]any), "layers")
	}
	if layers != num(t, arch, "layers") {
		t.Errorf("stages hold %g layers, the model %v", layers, arch["layers"])
	}
	ranks := obj(t, d, "ranks")
	if ranks["order"] != "tp-cp-dp-pp" || !strings.Contains(ranks["formula"].(string), "machine = rank / 8") {
		t.Errorf("ranks %v", ranks)
	}
	m := obj(t, d, "memory_per_gpu")
	if num(t, m, "weights_gb") <= 0 || num(t, m, "optimizer_gb") <= 0 || num(t, m, "activations_gb") <= 0 || m["fits"] != true {
		t.Errorf("memory %v", m)
	}
	if num(t, d, "gpus") != gpus || num(t, d, "step_ms") <= 0 || num(t, d, "tokens_per_s") <= 0 {
		t.Errorf("gpus %v step %v tokens/s %v", d["gpus"], d["step_ms"], d["tokens_per_s"])
	}
	if mfu := num(t, d, "mfu"); mfu <= 0 || mfu >= 1 {
		t.Errorf("mfu %g", mfu)
	}
	if comm, _ := d["comm"].([]any); len(comm) == 0 && num(t, d, "tp") > 1 {
		t.Errorf("no collectives listed for tp %v", d["tp"])
	}
}

// strs returns a JSON array of strings.
func strs(v any) []string {
	var out []string
	a, _ := v.([]any)
	for _, s := range a {
		if s, ok := s.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// A layout that does not fit prints its breakdown, writes no plan and
// exits 1; the table output prints the plan's sections.
func TestOptimizeLLMFailures(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.json")
	out, errs, code := run("optimize", "--llm", "llama3-70b", "--cluster", "1x8", "--hw", "h100", "--tp", "8", "-o", plan)
	if code != 1 || !strings.Contains(errs, "does not fit") || !strings.Contains(out, "DOES NOT FIT") {
		t.Fatalf("70B on 8 GPUs without sharding: exit %d, stderr %q; want 1, 'does not fit' and the breakdown", code, errs)
	}
	if _, err := os.Stat(plan); !os.IsNotExist(err) {
		t.Errorf("a plan was written for a layout that does not fit (%v)", err)
	}
	out, errs, code = run("optimize", "--llm", "gpt3-1.3b", "--cluster", "1x8", "--hw", "a100", "--tp", "2", "--pp", "2", "--global-batch", "16")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"Pipeline stages:", "Ranks (order tp-cp-dp-pp)", "Megatron-LM arguments:", "--tensor-model-parallel-size 2", "Memory per GPU", "Predicted step time"} {
		if !strings.Contains(out, s) {
			t.Errorf("table output lacks %q", s)
		}
	}
	if _, errs, code := run("optimize", "--llm", "gpt3-1.3b", "--cluster", "1x8", "--tp", "3"); code != 2 || !strings.Contains(errs, "tp 3") {
		t.Errorf("tp 3: exit %d, stderr %q; want 2 naming the layout", code, errs)
	}
}

// The plan's table names a chunk of no layers by what it holds.
func TestOptimizeLLMPlanTableChunks(t *testing.T) {
	model := smallLLM(t)
	out, errs, code := run("optimize", model, "--cluster", "1x8", "--hw", "h100", "-o", filepath.Join(t.TempDir(), "p.json"),
		"--tp", "2", "--pp", "2", "--vp", "3", "--zero", "2", "--framework", "fsdp", "--global-batch", "16", "--seq", "512")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"(embedding), 1, 3 ", "0, 2, (head) "} {
		if !strings.Contains(out, want) {
			t.Errorf("plan table lacks %q:\n%s", want, out)
		}
	}
}
