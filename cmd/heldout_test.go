package cmd

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestHeldOutCalibration is bench/calibrate_report.sh on the committed
// ONNX Runtime profiles (testdata/measured/cpu, measured with
// bench/ort/profile.mjs: one thread, graph optimizations disabled):
// calibrate cpu-1t on the profiles at even positions of the sorted list,
// predict every model at an odd position with the fitted file, and require
// the end-to-end MAPE to stay within 20% (wolong issue 8). The profiles are
// fixed data, so the figure is deterministic: a change to the cost model
// or the fit that makes held-out predictions worse fails here.
func TestHeldOutCalibration(t *testing.T) {
	models := filepath.Join("..", "..", "shared", "models")
	if _, err := os.Stat(models); err != nil {
		t.Skip("../shared/models absent")
	}
	if testing.Short() {
		t.Skip("calibrates on 23 models (-short)")
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "measured", "cpu", "*.json"))
	sort.Strings(files)
	if len(files) < 20 {
		t.Fatalf("%d measured profiles, want at least 20", len(files))
	}
	fit := filepath.Join(t.TempDir(), "fit.json")
	args := []string{"calibrate", "--base", "cpu-1t", "--models", models, "-o", fit}
	for i := 0; i < len(files); i += 2 {
		args = append(args, "--ort-profile", files[i])
	}
	if _, stderr, code := run(args...); code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, stderr)
	}
	var sum float64
	n := 0
	for i := 1; i < len(files); i += 2 {
		var meta []struct {
			Args struct {
				Model string `json:"model"`
			} `json:"args"`
		}
		data, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &meta); err != nil || len(meta) == 0 || meta[0].Args.Model == "" {
			t.Fatalf("%s: no wolong_profile metadata first (%v)", files[i], err)
		}
		stdout, stderr, code := run("validate", filepath.Join(models, meta[0].Args.Model), "--hw", fit, "--ort-profile", files[i], "--format", "json")
		if code != 0 {
			t.Fatalf("validate %s: exit %d: %s", files[i], code, stderr)
		}
		var v struct {
			PredictedMs float64 `json:"predicted_ms"`
			MeasuredMs  float64 `json:"measured_ms"`
			ErrorPct    float64 `json:"error_pct"`
		}
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatal(err)
		}
		if !(v.MeasuredMs > 0 && v.PredictedMs > 0) {
			t.Fatalf("%s: measured %g ms, predicted %g ms", files[i], v.MeasuredMs, v.PredictedMs)
		}
		t.Logf("%-60s measured %9.3f ms predicted %9.3f ms error %+6.1f%%", meta[0].Args.Model, v.MeasuredMs, v.PredictedMs, v.ErrorPct)
		sum += math.Abs(v.ErrorPct)
		n++
	}
	mape := sum / float64(n)
	t.Logf("held-out end-to-end MAPE over %d models: %.1f%%", n, mape)
	if mape > 20 {
		t.Errorf("held-out MAPE %.1f%% > 20%%", mape)
	}
}
