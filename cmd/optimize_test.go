package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// writeGen exports a generated model into dir.
func writeGen(t *testing.T, dir, name string, m *ir.Model) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := importer.WriteFile(m, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOptimizeCommand runs optimize end to end on the sample CNN: JSON
// keys, the plan, the emitted ONNX (re-imported, verified, same graph IO,
// same outputs under `wolong verify`).
func TestOptimizeCommand(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN())
	plan := filepath.Join(dir, "plan.json")
	opt := filepath.Join(dir, "opt.onnx")
	out, errs, code := run("optimize", model, "--hw", "h100", "-o", plan, "--emit-onnx", opt, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Baseline  map[string]float64 `json:"baseline"`
		Optimized map[string]float64 `json:"optimized"`
		Speedup   float64            `json:"speedup"`
		Passes    []struct {
			Name     string  `json:"name"`
			Rewrites int     `json:"rewrites"`
			DeltaMs  float64 `json:"delta_ms"`
		} `json:"passes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, k := range []string{"nodes", "kernels", "total_ms"} {
		if doc.Baseline[k] <= 0 || doc.Optimized[k] <= 0 {
			t.Errorf("%s: baseline %v optimized %v", k, doc.Baseline[k], doc.Optimized[k])
		}
	}
	if doc.Optimized["kernels"] >= doc.Baseline["kernels"] || doc.Speedup <= 1 {
		t.Errorf("kernels %v -> %v, speedup %v: want fewer kernels and a speedup", doc.Baseline["kernels"], doc.Optimized["kernels"], doc.Speedup)
	}
	saved := 0.0
	for _, p := range doc.Passes {
		saved += p.DeltaMs
	}
	if d := doc.Baseline["total_ms"] - doc.Optimized["total_ms"]; d-saved > 1e-9 || saved-d > 1e-9 {
		t.Errorf("per-pass deltas sum to %v ms, total saving is %v ms", saved, d)
	}
	var p struct {
		Kernels []struct {
			Name    string   `json:"name"`
			Members []string `json:"members"`
			Bound   string   `json:"bound"`
		} `json:"kernels"`
		Passes []struct{ Name string } `json:"passes"`
	}
	data, err := os.ReadFile(plan)
	if err != nil || json.Unmarshal(data, &p) != nil {
		t.Fatalf("plan: %v", err)
	}
	if len(p.Kernels) != int(doc.Optimized["kernels"]) {
		t.Errorf("plan has %d kernels, report %v", len(p.Kernels), doc.Optimized["kernels"])
	}
	fused := false
	for _, k := range p.Kernels {
		fused = fused || len(k.Members) > 1
		if k.Bound == "" {
			t.Errorf("kernel %s has no bound", k.Name)
		}
	}
	if !fused {
		t.Error("plan lists no fused kernel with several member nodes")
	}
	back, err := importer.Load(opt, importer.Options{KeepFunctions: true}) // the file as written
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if err := ir.Verify(back); err != nil {
		t.Fatal(err)
	}
	if len(back.Functions) == 0 || back.Opset("wolong") != 1 {
		t.Errorf("emitted model: %d functions, wolong opset %d", len(back.Functions), back.Opset("wolong"))
	}
	if back.Graph.Inputs[0].Name != "image" || back.Graph.Outputs[0].Name != "logits" || back.Graph.Inputs[0].Declared.String() != "float32[N,3,32,32]" {
		t.Errorf("graph IO changed: %s %s", back.Graph.Inputs[0].Name, back.Graph.Outputs[0].Name)
	}
	if _, errs, code := run("verify", model, opt, "--dim", "N=2"); code != 0 {
		t.Errorf("verify original optimized: exit %d: %s", code, errs)
	}
}

// TestOptimizeFlags is an argv table: exit codes and what each prints.
func TestOptimizeFlags(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN())
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // regexp on stdout (code 0) or stderr
	}{
		{"table", []string{"optimize", model}, 0, `predicted speedup: \d+\.\d\dx`},
		{"O0 changes nothing", []string{"optimize", model, "-O0", "--format", "json"}, 0, `"speedup": 1[,\n]`},
		{"O1", []string{"optimize", model, "-O1"}, 0, `│ cse `},
		{"passes", []string{"optimize", model, "--passes", "bnfold,fuse"}, 0, `│ bnfold +│ 5 `},
		{"disable", []string{"optimize", model, "--disable-pass", "bnfold"}, 0, `│ fuse +│ 5 `},
		{"unknown pass", []string{"optimize", model, "--passes", "nope"}, 2, `unknown pass "nope"`},
		{"required pass", []string{"optimize", model, "--disable-pass", "late dce"}, 2, `required`},
		{"bad level", []string{"optimize", model, "-O7"}, 2, `-O7`},
		{"bad hw", []string{"optimize", model, "--hw", "z80"}, 2, `--hw`},
		{"refuse input as plan", []string{"optimize", model, "-o", model}, 1, `refusing to overwrite`},
		{"refuse input as onnx", []string{"optimize", model, "--emit-onnx", model}, 1, `refusing to overwrite`},
		{"missing model", []string{"optimize", filepath.Join(dir, "none.onnx")}, 1, `none.onnx`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errs)
			}
			text := out
			if code != 0 {
				text = errs
			}
			if !regexp.MustCompile(tc.want).MatchString(text) {
				t.Errorf("output does not match %q:\n%s", tc.want, text)
			}
		})
	}
}

// TestExplainCommand lists the rewrites by name on the generated LSTM and
// writes the diff and DOT files.
func TestExplainCommand(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "lstm.onnx", modelgen.LSTM(3, 2, 8, 8))
	dot := filepath.Join(dir, "dot")
	out, errs, code := run("explain", model, "--diff", "--dot", dot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, re := range []string{
		`(?m)^== hbatch: 6 rewrite\(s\); nodes \d+ -> \d+, kernels \d+ -> \d+, predicted [\d.]+ ms -> [\d.]+ ms`,
		`(?m)^  MatMul_0 \|\| MatMul_2 \|\| MatMul_4 \|\| MatMul_6 -> batched_matmul_\d+, split_\d+  \(4 MatMul ops sharing Squeeze_0_out`,
		`(?m)^  batched_matmul_\d+ \|\| batched_matmul_\d+ \|\| batched_matmul_\d+ -> concat_0, batched_matmul_\d+, split_\d+`,
		`(?m)^  batched_matmul_\d+ \+ split_\d+ \+ Add_\d+ .* -> fused_matmul_\d+  \(wolong:`,
		`(?m)^--- before fuse$`,
		`(?m)^\+  %c_last, %h_last = wolong:`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("explain output does not match %q", re)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dot, "*.dot"))
	if len(files) < 10 {
		t.Fatalf("%d DOT files, want one per pass", len(files))
	}
	sort.Strings(files)
	if !strings.HasSuffix(files[len(files)-1], "_late_dce.dot") {
		t.Errorf("last DOT file %s, want the late dce one", files[len(files)-1])
	}
	last, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(last), "subgraph cluster_"); n != 5 {
		t.Errorf("last DOT has %d clusters, want 5 (3 steps, the input projection, the gather of x_t)", n)
	}
	// --pass focuses.
	out, _, code = run("explain", model, "--pass", "tbatch")
	if code != 0 || strings.Contains(out, "== hbatch") || !strings.Contains(out, "== tbatch") {
		t.Errorf("--pass tbatch: exit %d\n%s", code, out)
	}
	if _, errs, code := run("explain", model, "--pass", "nope"); code != 2 || !strings.Contains(errs, "unknown pass") {
		t.Errorf("--pass nope: exit %d: %s", code, errs)
	}
}
