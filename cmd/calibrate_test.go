package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/hw"
)

func TestCalibrateValidate(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "models")); err != nil {
		t.Skip("../shared/models absent")
	}
	prof := func(name string) string {
		return filepath.Join("..", "testdata", "measured", "cpu", name+".profile.json")
	}
	out := filepath.Join(t.TempDir(), "fit.json")
	models := filepath.Join("..", "..", "shared", "models")
	stdout, stderr, code := run("calibrate", "--ort-profile", prof("cnn__mnist_cntk_opset7"), "--ort-profile", prof("rnn__dtln_model_1"),
		"--models", models, "--base", "cpu", "--fit", "joint", "-o", out)
	if code != 0 {
		t.Fatalf("calibrate: %d %s", code, stderr)
	}
	if !strings.Contains(stdout, "conv") || !strings.Contains(stdout, "dispatch_us") {
		t.Errorf("calibrate output lacks the fit table:\n%s", stdout)
	}
	h, err := hw.Load(out)
	if err != nil {
		t.Fatalf("--hw cannot load the fitted file: %v", err)
	}
	if h.Name != "cpu-calibrated" {
		t.Errorf("name %q", h.Name)
	}
	first, _ := os.ReadFile(out)
	out2 := filepath.Join(t.TempDir(), "fit2.json")
	run("calibrate", "--ort-profile", prof("cnn__mnist_cntk_opset7"), "--ort-profile", prof("rnn__dtln_model_1"), "--models", models, "--fit", "joint", "-o", out2)
	second, _ := os.ReadFile(out2)
	if string(first) != string(second) {
		t.Error("calibrating twice on the same profiles wrote different files")
	}

	stdout, stderr, code = run("validate", filepath.Join(models, "cnn", "mnist_cntk_opset7.onnx"), "--hw", out, "--ort-profile", prof("cnn__mnist_cntk_opset7"), "--format", "json")
	if code != 0 {
		t.Fatalf("validate: %d %s", code, stderr)
	}
	var v struct {
		PredictedMs *float64 `json:"predicted_ms"`
		MeasuredMs  *float64 `json:"measured_ms"`
		ErrorPct    *float64 `json:"error_pct"`
		Nodes       []struct {
			Name        string   `json:"name"`
			Op          string   `json:"op"`
			PredictedMs *float64 `json:"predicted_ms"`
			MeasuredMs  *float64 `json:"measured_ms"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	if v.PredictedMs == nil || v.MeasuredMs == nil || v.ErrorPct == nil || len(v.Nodes) == 0 || v.Nodes[0].Name == "" || v.Nodes[0].PredictedMs == nil {
		t.Fatalf("validate JSON lacks fields: %s", stdout)
	}
	var events []struct {
		Name string  `json:"name"`
		Dur  float64 `json:"dur"`
	}
	raw, _ := os.ReadFile(prof("cnn__mnist_cntk_opset7"))
	if err := json.Unmarshal(raw, &events); err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.Name == "model_run" && *v.MeasuredMs != e.Dur/1e3 {
			t.Errorf("measured_ms = %v, want the profile's model_run %v us", *v.MeasuredMs, e.Dur)
		}
	}

	// a profile of another model is refused, naming the mismatch
	_, stderr, code = run("validate", filepath.Join(models, "cnn", "mnist_cntk_opset7.onnx"), "--hw", "cpu", "--ort-profile", prof("rnn__dtln_model_1"))
	if code == 0 || !strings.Contains(stderr, "does not match the model") {
		t.Errorf("mismatched profile: code %d, %s", code, stderr)
	}
	_, stderr, code = run("calibrate", "--ort-profile", filepath.Join(models, "cnn", "mnist_cntk_opset7.onnx")+"="+prof("rnn__dtln_model_1"), "-o", filepath.Join(t.TempDir(), "x.json"))
	if code == 0 || !strings.Contains(stderr, "does not match the model") || !strings.Contains(stderr, "not in the model") {
		t.Errorf("calibrate on a mismatched profile: code %d, %s", code, stderr)
	}
	// microbench lists distinct ops
	stdout, _, code = run("microbench", filepath.Join(models, "cnn", "mnist_cntk_opset7.onnx"), "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"input_shapes": "1x1x28x28;8x1x5x5"`) {
		t.Errorf("microbench: %d\n%s", code, stdout)
	}
}

// TestValidateTable times every distinct op of a model at 10 us in a table
// (built from microbench's list), validates against it, and checks that a
// table lacking a row is refused; calibrate accepts the same table.
func TestValidateTable(t *testing.T) {
	model := filepath.Join("..", "..", "shared", "models", "cnn", "mnist_cntk_opset7.onnx")
	if _, err := os.Stat(model); err != nil {
		t.Skip("../shared/models absent")
	}
	stdout, stderr, code := run("microbench", model, "--format", "json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var mb struct {
		Ops []struct {
			Op, DType, Domain string
			Inputs            string `json:"input_shapes"`
			Attributes        string `json:"attributes"`
			Count             int    `json:"count"`
		} `json:"ops"`
	}
	if err := json.Unmarshal([]byte(stdout), &mb); err != nil || len(mb.Ops) == 0 {
		t.Fatalf("microbench JSON: %v\n%s", err, stdout)
	}
	q := func(s string) string { return `"` + s + `"` }
	var rows []string
	kernels := 0
	for _, o := range mb.Ops {
		rows = append(rows, strings.Join([]string{o.Op, o.DType, q(o.Inputs), q(o.Attributes), "10", o.Domain, ""}, ","))
		kernels += o.Count
	}
	dir := t.TempDir()
	write := func(name string, rows []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("op,dtype,input_shapes,attributes,measured_us,domain,name\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := write("full.csv", rows)
	stdout, stderr, code = run("validate", model, "--hw", "cpu", "--table", full, "--format", "json")
	if code != 0 {
		t.Fatalf("validate --table: %s", stderr)
	}
	var v struct {
		MeasuredMs float64 `json:"measured_ms"`
		Nodes      []any   `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Nodes) != kernels || v.MeasuredMs != float64(kernels)*0.010 {
		t.Errorf("validate --table: %d nodes, measured %v ms; want %d nodes at 10 us", len(v.Nodes), v.MeasuredMs, kernels)
	}
	short := write("short.csv", rows[1:])
	if _, stderr, code = run("validate", model, "--hw", "cpu", "--table", short); code == 0 || !strings.Contains(stderr, "no row for") {
		t.Errorf("table lacking a row: code %d %s", code, stderr)
	}
	if _, stderr, code = run("calibrate", "--table", full, "-o", filepath.Join(dir, "fit.json")); code != 0 {
		t.Errorf("calibrate --table: %s", stderr)
	}
}
