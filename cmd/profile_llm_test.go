package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// smallLLM writes a 4-layer grouped-query SwiGLU decoder (hidden 512, 8
// query and 4 key/value heads, sequence 1024) with the generator and
// returns its path.
func smallLLM(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	tr := llm.Transformer{Name: "small-llm", Layers: 4, Hidden: 512, Heads: 8, KVHeads: 4, FFN: 1408, Gated: true, Vocab: 32000, Seq: 1024, RMSNorm: true}
	m, err := modelgen.LLM(modelgen.Decoder(tr), filepath.Join(dir, "w.data"), modelgen.LLMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	return writeGen(t, dir, "llm.onnx", m)
}

func obj(t *testing.T, doc map[string]any, key string) map[string]any {
	t.Helper()
	v, ok := doc[key].(map[string]any)
	if !ok {
		t.Fatalf("JSON field %q missing or not an object: %v", key, doc[key])
	}
	return v
}

// The LLM flags reach the planner: training, --strategy auto and --serve
// on a generated transformer, with the JSON fields.
func TestProfileLLM(t *testing.T) {
	model := smallLLM(t)
	base := []string{model, "--cluster", "1x8", "--hw", "h100"}
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, d map[string]any)
	}{
		{"deepspeed overhead", []string{"--tp", "2", "--pp", "2", "--global-batch", "16", "--framework", "deepspeed", "--recompute", "full", "--seq", "512"}, func(t *testing.T, d map[string]any) {
			// 8 micro-batches per pipeline x 42 ms of the pipeline engine's host time
			if o := num(t, d, "framework_overhead_ms"); o != 8*42 {
				t.Errorf("framework_overhead_ms %g, want 336", o)
			}
			parts := num(t, d, "compute_ms") + num(t, d, "comm_ms") + num(t, d, "framework_overhead_ms") + num(t, d, "bubble_ms") + num(t, d, "optimizer_ms")
			if step := num(t, d, "step_ms"); parts < 0.999*step || parts > 1.001*step {
				t.Errorf("parts sum to %g ms, step %g", parts, step)
			}
		}},
		{"train", []string{"--tp", "2", "--pp", "2", "--global-batch", "16", "--zero", "1", "--recompute", "full", "--seq", "512"}, func(t *testing.T, d map[string]any) {
			if num(t, d, "tp") != 2 || num(t, d, "pp") != 2 || num(t, d, "dp") != 2 || num(t, d, "ep") != 1 || num(t, d, "cp") != 1 {
				t.Errorf("layout tp %v pp %v dp %v ep %v cp %v, want 2 2 2 1 1 (dp from the 8 GPUs)", d["tp"], d["pp"], d["dp"], d["ep"], d["cp"])
			}
			if num(t, d, "zero") != 1 || d["recompute"] != "full" || num(t, d, "seq") != 512 || num(t, d, "global_batch") != 16 {
				t.Errorf("zero %v recompute %v seq %v global batch %v", d["zero"], d["recompute"], d["seq"], d["global_batch"])
			}
			if mfu := num(t, d, "mfu"); mfu <= 0 || mfu >= 1 {
				t.Errorf("mfu %g", mfu)
			}
			if step, tok := num(t, d, "step_ms"), num(t, d, "tokens_per_s"); step <= 0 || tok <= 0 {
				t.Errorf("step %g ms, %g tokens/s", step, tok)
			} else if want := 16 * 512 / (step / 1e3); tok < 0.99*want || tok > 1.01*want {
				t.Errorf("tokens/s %g, want global batch x seq / step = %g", tok, want)
			}
			m := obj(t, d, "memory_per_gpu")
			if num(t, m, "weights_gb") <= 0 || num(t, m, "optimizer_gb") <= 0 || m["fits"] != true {
				t.Errorf("memory %v", m)
			}
		}},
		{"auto", []string{"--strategy", "auto", "--global-batch", "32", "--tp", "2"}, func(t *testing.T, d map[string]any) {
			if num(t, d, "tp") != 2 {
				t.Errorf("tp %v: --tp 2 fixes the search's tp", d["tp"])
			}
			s := obj(t, d, "search")
			if num(t, s, "evaluated") < 2 || num(t, s, "fitting") < 1 {
				t.Errorf("search %v", s)
			}
			alts, _ := s["alternatives"].([]any)
			if len(alts) == 0 || len(alts) > 4 {
				t.Fatalf("%d alternatives, want 1..4 (the best 5)", len(alts))
			}
			for _, a := range alts {
				a := a.(map[string]any)
				if num(t, a, "tp") != 2 || num(t, a, "step_ms") < num(t, d, "step_ms") {
					t.Errorf("alternative tp %v step %v: want tp 2, no faster than the best %v", a["tp"], a["step_ms"], d["step_ms"])
				}
			}
		}},
		{"serve", []string{"--serve", "--tp", "2", "--batch", "4", "--prompt", "256", "--output", "64"}, func(t *testing.T, d map[string]any) {
			if num(t, d, "tp") != 2 || num(t, d, "replicas") != 4 || num(t, d, "batch") != 4 || num(t, d, "prompt") != 256 || num(t, d, "output") != 64 {
				t.Errorf("tp %v replicas %v batch %v prompt %v output %v", d["tp"], d["replicas"], d["batch"], d["prompt"], d["output"])
			}
			ttft, tpot := num(t, d, "ttft_ms"), num(t, d, "tpot_ms")
			if ttft <= 0 || tpot <= 0 || num(t, d, "tokens_per_s_per_gpu") <= 0 {
				t.Errorf("ttft %g tpot %g tokens/s/GPU %v", ttft, tpot, d["tokens_per_s_per_gpu"])
			}
			if m := obj(t, d, "memory_per_gpu"); num(t, m, "kv_cache_gb") <= 0 || m["fits"] != true {
				t.Errorf("memory %v", m)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, profileJSON(t, append(append([]string{}, base...), tc.args...)...))
		})
	}
}

// A layout that does not fit prints its breakdown and exits 1; LLM flags
// on a graph that is not a transformer are a usage error.
func TestProfileLLMFailures(t *testing.T) {
	out, errs, code := run("profile", "--llm", "llama3-70b", "--cluster", "1x8", "--hw", "h100", "--tp", "8", "--format", "json")
	if code != 1 || !strings.Contains(errs, "does not fit") {
		t.Fatalf("70B on 8 GPUs without sharding: exit %d, stderr %q; want 1 and 'does not fit'", code, errs)
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("no report printed: %v", err)
	}
	if m := obj(t, d, "memory_per_gpu"); m["fits"] != false || num(t, m, "total_gb") <= num(t, m, "capacity_gb") {
		t.Errorf("memory %v: want fits false, total over capacity", m)
	}
	if _, errs, code := run("profile", "--llm", "gpt3-1.3b", "--cluster", "1x8", "--tp", "3"); code != 2 || !strings.Contains(errs, "tp 3") {
		t.Errorf("tp 3 on 8 GPUs and 16 heads: exit %d, stderr %q; want 2 naming the layout", code, errs)
	}
	cnn := writeGen(t, t.TempDir(), "cnn.onnx", modelgen.SampleCNN())
	if _, errs, code := run("profile", cnn, "--cluster", "1x8", "--tp", "2"); code != 2 || !strings.Contains(errs, "decoder transformer") || !strings.Contains(errs, "--llm") {
		t.Errorf("a CNN with --tp: exit %d, stderr %q; want 2 naming what is missing and --llm", code, errs)
	}
}

// A graph whose sequence is symbolic needs --seq for training; serving
// takes prompt + output as its context.
func TestProfileLLMSymbolicSeq(t *testing.T) {
	model := shared(t, "models", "transformer", "tiny-random-gpt2-fp32_past.onnx")
	if _, errs, code := run("profile", model, "--cluster", "1x8", "--tp", "2"); code != 2 || !strings.Contains(errs, "--seq") {
		t.Errorf("no --seq: exit %d, stderr %q; want 2 asking for --seq", code, errs)
	}
	if d := profileJSON(t, model, "--cluster", "1x8", "--tp", "2", "--seq", "256"); num(t, d, "seq") != 256 {
		t.Errorf("seq %v, want 256", d["seq"])
	}
	d := profileJSON(t, model, "--cluster", "1x8", "--serve", "--tp", "2", "--prompt", "100", "--output", "20")
	if num(t, d, "prompt") != 100 || num(t, d, "ttft_ms") <= 0 {
		t.Errorf("prompt %v ttft %v", d["prompt"], d["ttft_ms"])
	}
}

// --llm FILE.json plans an architecture no preset names, from its config:
// the same step as the preset it copies, and a config that is not one is a
// usage error naming the file.
func TestProfileLLMConfigFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "my-8b.json")
	// Llama 3 8B written out as a config (no name: the file's is taken).
	if err := os.WriteFile(cfg, []byte(`{"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336,
		"gated": true, "vocab": 128256, "seq": 8192, "rms_norm": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--cluster", "1x8", "--hw", "h100", "--tp", "2", "--zero", "1", "--recompute", "full", "--global-batch", "16", "--format", "json"}
	fromFile := profileJSON(t, append([]string{"--llm", cfg}, args...)...)
	preset := profileJSON(t, append([]string{"--llm", "llama3-8b"}, args...)...)
	if fromFile["model"] != "my-8b" {
		t.Errorf("model %v, want the config file's name", fromFile["model"])
	}
	if a, b := num(t, fromFile, "step_ms"), num(t, preset, "step_ms"); a != b {
		t.Errorf("config step %.3f ms, preset step %.3f ms: want equal", a, b)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"layers": 32, "hiden": 4096}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{bad, filepath.Join(dir, "missing.json")} {
		if _, errs, code := run("profile", "--llm", p, "--cluster", "1x8"); code != 2 || !strings.Contains(errs, filepath.Base(p)) {
			t.Errorf("--llm %s: exit %d, stderr %q; want 2 naming the file", filepath.Base(p), code, errs)
		}
	}
}

// Shell completion of --llm offers the presets and leaves file completion
// on (for a FILE.json config); --framework offers only its names.
func TestProfileLLMCompletion(t *testing.T) {
	out, _, code := run("__complete", "profile", "--llm", "")
	if code != 0 || !strings.Contains(out, "llama3-405b\n") || !strings.HasSuffix(strings.TrimSpace(out), ":0") {
		t.Errorf("--llm completion (exit %d):\n%s\nwant the presets and directive 0 (files too)", code, out)
	}
	out, _, _ = run("__complete", "profile", "--framework", "")
	if !strings.Contains(out, "fsdp\n") || !strings.HasSuffix(strings.TrimSpace(out), ":4") {
		t.Errorf("--framework completion:\n%s\nwant the frameworks and directive 4 (no files)", out)
	}
}
