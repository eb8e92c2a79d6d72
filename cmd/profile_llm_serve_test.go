package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --serve with request-level flags runs the scheduler: today's fields
// carry its means, requests its distributions; a workload file and a
// trace work; --dtype spellings are accepted.
func TestProfileServeLoad(t *testing.T) {
	base := []string{"--llm", "llama3-8b", "--cluster", "1x2", "--hw", "h100", "--serve", "--dtype", "fp8", "--prompt", "256", "--output", "32"}
	d := profileJSON(t, append(base, "--requests", "300", "--rate", "20", "--slo", "ttft=200,tpot=20", "--router", "least-loaded")...)
	req := obj(t, d, "requests")
	ttft := obj(t, req, "ttft")
	if num(t, d, "ttft_ms") != num(t, ttft, "mean_ms") || num(t, ttft, "p99_ms") < num(t, ttft, "p50_ms") || num(t, req, "requests") != 300 {
		t.Errorf("ttft_ms %v, requests.ttft %v", d["ttft_ms"], ttft)
	}
	for _, k := range []string{"output_tokens_per_s", "total_tokens_per_s_per_gpu", "goodput_rps", "kv_util_mean", "slo_attainment"} {
		if num(t, req, k) <= 0 {
			t.Errorf("requests.%s = %v", k, req[k])
		}
	}
	if d["dtype"] != "float8e4m3fn" || num(t, req, "replicas") != 2 || req["router"] != "least-loaded" {
		t.Errorf("dtype %v, replicas %v, router %v", d["dtype"], req["replicas"], req["router"])
	}
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.jsonl")
	os.WriteFile(wl, []byte("{\"arrival_s\":0,\"prompt\":100,\"output\":10}\n{\"arrival_s\":0.5,\"prompt\":300,\"output\":20}\n"), 0o644)
	trace := filepath.Join(dir, "serve.json")
	d = profileJSON(t, "--llm", "llama3-8b", "--cluster", "1x1", "--hw", "h100", "--serve", "--workload", wl, "--trace", trace)
	if r := obj(t, d, "requests"); num(t, r, "requests") != 2 || r["length_dist"] != "workload file" {
		t.Errorf("workload run %v", r)
	}
	b, err := os.ReadFile(trace)
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err != nil || json.Unmarshal(b, &tr) != nil || len(tr.TraceEvents) < 10 {
		t.Errorf("trace: %v, %d events", err, len(tr.TraceEvents))
	}
}

// Impossible serving values are usage errors (exit 2); a layout that does
// not fit exits 1 saying which part overflows, with nothing on stdout.
func TestProfileServeBadInput(t *testing.T) {
	base := []string{"profile", "--llm", "llama3-8b", "--cluster", "1x8", "--hw", "h100", "--serve"}
	for _, args := range [][]string{
		{"--batch", "0"}, {"--requests", "0"}, {"--rate", "-1"}, {"--rate", "fast"}, {"--slo", "ttft=0"}, {"--slo", "latency=5"},
		{"--disagg", "0:3"}, {"--disagg", "2"}, {"--kv-fraction", "2", "--requests", "5"}, {"--workload", "/nonexistent.jsonl"},
		{"--dtype", "fp9"}, {"--dtype", "fp4"}, {"--runtime", "sglang"}, {"--preemption", "drop"}, {"--router", "random"},
		{"--kv-dtype", "int3", "--requests", "5"}, {"--strategy", "auto", "--requests", "5"}, {"--length-dist", "zipf"},
	} {
		if _, errs, code := run(append(append([]string{}, base...), args...)...); code != 2 || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, errs)
		}
	}
	out, errs, code := run("profile", "--llm", "llama3-405b", "--cluster", "1x8", "--hw", "h100", "--serve", "--requests", "10")
	if code != 1 || out != "" || !strings.Contains(errs, "weights") || !strings.Contains(errs, "would fit") {
		t.Errorf("405B bf16 on one H100: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	out, errs, code = run("profile", "--llm", "llama3-70b", "--cluster", "1x8", "--hw", "h100", "--serve", "--static", "--tp", "8", "--batch", "5000")
	if code != 1 || out != "" || !strings.Contains(errs, "overflows") || !strings.Contains(errs, "--batch") {
		t.Errorf("static batch 5000: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, dt := range []string{"bf16", "fp8", "fp16", "bfloat16", "float8e4m3fn"} {
		if _, errs, code := run(append(append([]string{}, base...), "--dtype", dt)...); code != 0 {
			t.Errorf("--dtype %s: exit %d, %s", dt, code, errs)
		}
	}
}
