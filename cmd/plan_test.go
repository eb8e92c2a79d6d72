package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanShow writes a plan with optimize (with and without a cluster
// placement) and reads it back with plan show.
func TestPlanShow(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join("..", "testdata", "models", "sample_cnn.onnx")
	plan := filepath.Join(dir, "plan.json")
	if _, errs, code := run("optimize", model, "--dim", "N=1", "-o", plan); code != 0 {
		t.Fatalf("optimize: %s", errs)
	}
	out, errs, code := run("plan", "show", plan, "--top", "3")
	if code != 0 || !strings.Contains(out, "slowest 3 kernel(s)") || !strings.Contains(out, "fuse") {
		t.Fatalf("plan show: exit %d, stderr %q, out:\n%s", code, errs, out)
	}
	js, _, code := run("plan", "show", plan, "--format", "json")
	file, _ := os.ReadFile(plan)
	var a, b any
	if code != 0 || json.Unmarshal([]byte(js), &a) != nil || json.Unmarshal(file, &b) != nil {
		t.Fatalf("plan show --format json: exit %d", code)
	}
	if ja, _ := json.Marshal(a); string(ja) != func() string { jb, _ := json.Marshal(b); return string(jb) }() {
		t.Errorf("plan show --format json does not reproduce the plan")
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"model":"m","kernels":[{"name":"k","time_ms":-3}]}`), 0o644)
	if _, errs, code := run("plan", "show", bad); code != 1 || !strings.Contains(errs, "bad.json") || strings.Count(errs, "\n") != 1 {
		t.Errorf("bad plan: exit %d, stderr %q", code, errs)
	}
	if _, _, code := run("plan", "show"); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
}
