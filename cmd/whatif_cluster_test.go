package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/simulate/hw"
)

type whatIfDoc struct {
	StepMs float64 `json:"step_ms"`
	WhatIf struct {
		Metric string `json:"metric"`
		Params []struct {
			Param      string  `json:"param"`
			MinusMs    float64 `json:"minus_20_ms"`
			PlusMs     float64 `json:"plus_20_ms"`
			Elasticity float64 `json:"elasticity"`
		} `json:"params"`
		Layout []struct {
			Param      string  `json:"param"`
			MinusValue float64 `json:"minus_value"`
			PlusValue  float64 `json:"plus_value"`
			MinusMs    float64 `json:"minus_20_ms"`
			PlusMs     float64 `json:"plus_20_ms"`
		} `json:"layout"`
	} `json:"what_if"`
	Overrides []string `json:"overrides"`
}

func whatIfJSON(t *testing.T, args ...string) whatIfDoc {
	t.Helper()
	out, errs, code := run(append(append([]string{"profile"}, args...), "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var d whatIfDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// Through the CLI, an LLM training step: --what-if ranks the bf16 peak
// first for a compute-bound layout, the ±20% totals equal runs with the
// hardware file edited by hand (--hw file.json) and with --set, and the
// layout's rows equal runs with those degrees given.
func TestProfileLLMWhatIf(t *testing.T) {
	args := []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--tp", "2", "--global-batch", "64"}
	d := whatIfJSON(t, append(args, "--hw", "h100", "--what-if")...)
	if d.WhatIf.Params[0].Param != "peak_bf16" || !strings.HasPrefix(d.WhatIf.Metric, "step_ms") {
		t.Errorf("first %s, metric %q: want peak_bf16, step_ms", d.WhatIf.Params[0].Param, d.WhatIf.Metric)
	}
	out, errs, code := run(append(append([]string{"profile"}, args...), "--what-if", "--set", "net_bw=+10%")...)
	if code != 0 || !strings.Contains(out, "What if (total: step_ms") || !strings.Contains(out, "What if the layout changed") || !strings.Contains(out, "Overrides (--set): net_bw=+10%") {
		t.Errorf("text: exit %d: %s%s", code, out, errs)
	}
	h, _ := hw.Preset("h100")
	top := d.WhatIf.Params[0]
	for _, f := range []float64{0.8, 1.2} {
		got := whatIfJSON(t, append(args, "--hw", editedPreset(t, h, "bf16", f))...).StepMs
		want := top.MinusMs
		if f > 1 {
			want = top.PlusMs
		}
		if got != want {
			t.Errorf("bf16 x%g: edited preset %v ms, what-if %v ms", f, got, want)
		}
	}
	if got := whatIfJSON(t, append(args, "--hw", "h100", "--set", "peak_bf16=+20%")...); got.StepMs != top.PlusMs || len(got.Overrides) != 1 {
		t.Errorf("--set peak_bf16=+20%%: %v ms (overrides %v), what-if %v ms", got.StepMs, got.Overrides, top.PlusMs)
	}
	for _, l := range d.WhatIf.Layout {
		if l.Param != "tp" {
			continue
		}
		if l.MinusValue != 1 || l.PlusValue != 4 {
			t.Fatalf("tp row %+v", l)
		}
		if got := whatIfJSON(t, "--llm", "gpt3-1.3b", "--cluster", "1x8", "--tp", "4", "--global-batch", "64").StepMs; got != l.PlusMs {
			t.Errorf("--tp 4: %v ms, layout row %v ms", got, l.PlusMs)
		}
		if got := whatIfJSON(t, append(args, "--set", "tp=4")...).StepMs; got != l.PlusMs {
			t.Errorf("--set tp=4: %v ms, layout row %v ms", got, l.PlusMs)
		}
	}
}

// A graph-level cluster step over a slow network ranks net_bw first;
// --set net_bw=+20% gives the row's total; serving has a what-if too.
func TestProfileClusterWhatIf(t *testing.T) {
	m := mlpModel(t)
	args := []string{m, "--cluster", "4x1", "--net", "roce-25", "--strategy", "allreduce", "--batch", "8"}
	d := whatIfJSON(t, append(args, "--what-if")...)
	top := d.WhatIf.Params[0]
	if top.Param != "net_bw" {
		t.Fatalf("first %s, want net_bw", top.Param)
	}
	if got := whatIfJSON(t, append(args, "--set", "net_bw=+20%")...).StepMs; got != top.PlusMs {
		t.Errorf("--set net_bw=+20%%: %v ms, what-if %v ms", got, top.PlusMs)
	}
	s := whatIfJSON(t, "--llm", "gpt3-1.3b", "--cluster", "1x8", "--serve", "--tp", "2", "--static", "--batch", "16", "--what-if")
	if len(s.WhatIf.Params) == 0 || len(s.WhatIf.Layout) == 0 || !strings.HasPrefix(s.WhatIf.Metric, "request_ms") {
		t.Errorf("serving what-if %+v", s.WhatIf)
	}
	// request-level: the time per request; pp's row where pp is a degree
	q := whatIfJSON(t, "--llm", "gpt3-1.3b", "--cluster", "1x8", "--serve", "--tp", "2", "--requests", "200", "--what-if")
	names := ""
	for _, l := range q.WhatIf.Layout {
		names += l.Param + " "
	}
	if !strings.HasPrefix(q.WhatIf.Metric, "ms_per_request") || !strings.Contains(names, "tp ") || !strings.Contains(names, "pp ") || !strings.Contains(names, "batch ") {
		t.Errorf("request-level what-if: metric %q, layout %s", q.WhatIf.Metric, names)
	}
	out, errs, code := run("profile", "--llm", "gpt3-1.3b", "--cluster", "1x8", "--serve", "--tp", "2", "--static", "--hw", "h100,h200")
	if code != 0 || !strings.Contains(out, "The difference by figure") || !strings.Contains(out, "time per output token") {
		t.Errorf("serving --hw A,B: exit %d: %s%s", code, out, errs)
	}
}

// --hw A,B with --cluster and the LLM flags names the causes; bad keys
// and misplaced flags are usage errors listing the valid names.
func TestProfileClusterCompareAndBadSet(t *testing.T) {
	out, errs, code := run("profile", "--llm", "gpt3-1.3b", "--cluster", "1x8", "--tp", "2", "--global-batch", "64", "--hw", "h100,h200")
	if code != 0 || !strings.Contains(out, "The difference by cause") || !strings.Contains(out, "exposed communication: tp over nvlink") {
		t.Errorf("exit %d: %s%s", code, out, errs)
	}
	out, errs, code = run("profile", mlpModel(t), "--cluster", "2x1", "--batch", "8", "--hw", "h100,a100", "--format", "json")
	if code != 0 || !strings.Contains(out, `"by_cause"`) || !strings.Contains(out, `"by_op"`) || !strings.Contains(out, `"b_hw": "a100"`) {
		t.Errorf("exit %d: %s%s", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--set", "nope=+3%"}, "net_bw"},
		{[]string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--set", "batch=4"}, "micro_batch"},
		{[]string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--set", "tp=+20%"}, "whole value"},
		{[]string{mlpModel(t), "--cluster", "2x1", "--set", "tp=2"}, "net_latency"},
		{[]string{mlpModel(t), "--cluster", "2x1", "--sweep", "gpus=1,2", "--what-if"}, "--sweep"},
		{[]string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--strategy", "auto", "--global-batch", "64", "--what-if"}, "--strategy auto"},
	} {
		_, errs, code := run(append([]string{"profile"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %s (want 2 and %q)", tc.args, code, errs, tc.want)
		}
	}
}

// mlpModel writes an MLP of 4 layers of 1024 x 1024 float32 weights (16
// MB) over [N, 1024]: little compute, much gradient traffic.
func mlpModel(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mlp.onnx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := importer.Export(modelgen.MLP(1024, 4), f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Host speed reaches the framework's host time (DeepSpeed's pipeline
// engine): its row equals --set host=+20%, and ranks first here.
func TestProfileLLMWhatIfHostFramework(t *testing.T) {
	args := []string{"--llm", "gpt3-1.3b", "--cluster", "2x8", "--tp", "2", "--pp", "2", "--global-batch", "64", "--framework", "deepspeed"}
	d := whatIfJSON(t, append(args, "--what-if")...)
	top := d.WhatIf.Params[0]
	if top.Param != "host" {
		t.Fatalf("first %s, want host", top.Param)
	}
	if got := whatIfJSON(t, append(args, "--set", "host=+20%")...).StepMs; got != top.PlusMs {
		t.Errorf("--set host=+20%%: %v ms, row %v ms", got, top.PlusMs)
	}
	// and the serving runtime's host time per iteration and sequence
	serve := []string{"--llm", "gpt3-1.3b", "--cluster", "1x8", "--serve", "--tp", "1", "--runtime", "vllm", "--requests", "300"}
	var host float64
	for _, r := range whatIfJSON(t, append(serve, "--what-if")...).WhatIf.Params {
		if r.Param == "host" {
			host = r.PlusMs
		}
	}
	out, errs, code := run(append(append([]string{"profile"}, serve...), "--set", "host=+20%", "--format", "json")...)
	var d2 struct {
		Requests struct {
			Requests  int     `json:"requests"`
			DurationS float64 `json:"duration_s"`
		} `json:"requests"`
	}
	if err := json.Unmarshal([]byte(out), &d2); code != 0 || err != nil {
		t.Fatalf("exit %d: %v %s", code, err, errs)
	}
	if got := d2.Requests.DurationS * 1e3 / float64(d2.Requests.Requests); host == 0 || got != host {
		t.Errorf("serving --set host=+20%%: %v ms per request, row %v", got, host)
	}
}
