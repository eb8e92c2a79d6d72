package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestProfileExpectedError: a calibrated CPU file's expected error by size
// class shows in profile's table and JSON; a preset without one shows
// none.
func TestProfileExpectedError(t *testing.T) {
	h, err := hw.Preset("cpu-1t")
	if err != nil {
		t.Fatal(err)
	}
	h = h.Clone()
	h.Name = "fit-with-bands"
	if h.Fitted == nil {
		h.Fitted = &hw.Fitted{CPU: "test", Cores: 1, Threads: 1, Runtime: "test", Date: "2026-12-05T00:00:00Z", Method: "test"}
	}
	var res []hw.Residual
	for _, ms := range []float64{0.01, 0.02, 0.03, 0.04, 0.2, 0.3, 0.4, 0.5, 2, 3, 4, 5, 20, 30, 40, 50} {
		res = append(res, hw.Residual{PredictedMs: ms, MeasuredMs: ms * 1.1})
	}
	h.Fitted.ExpectedError = hw.ErrorBands(res, "test residuals")
	file := filepath.Join(t.TempDir(), "fit.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	mm := writeModel(t, "MatMul", ir.Float32, ir.ShapeOf(64, 64), ir.ShapeOf(64, 64))
	out, errs, code := wolong(t, "profile", mm, "--hw", file)
	if code != 0 || !strings.Contains(out, "expected error +-9%") || !strings.Contains(out, "test residuals") {
		t.Errorf("exit %d, table without the expected error:\n%s\n%s", code, out, errs)
	}
	out, errs, code = wolong(t, "profile", mm, "--hw", file, "--format", "json")
	var doc struct {
		TotalMs       float64 `json:"total_ms"`
		ExpectedError *struct {
			Pct    float64 `json:"pct"`
			LowMs  float64 `json:"low_ms"`
			HighMs float64 `json:"high_ms"`
			Class  string  `json:"size_class"`
		} `json:"expected_error"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d %v: %s", code, err, errs)
	}
	if e := doc.ExpectedError; e == nil || e.Pct != 9.1 || e.Class != "< 0.1 ms" || !(e.LowMs < doc.TotalMs && doc.TotalMs < e.HighMs) {
		t.Errorf("expected_error %+v for %g ms", e, doc.TotalMs)
	}
	page := filepath.Join(t.TempDir(), "x.html")
	if _, errs, code := wolong(t, "explain", mm, "--hw", file, "--html", page); code != 0 {
		t.Fatalf("explain --html: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(page); !strings.Contains(string(b), `"expected_error":{"pct":9.1`) {
		t.Error("the explain --html page does not carry the expected error")
	}
	out, _, _ = wolong(t, "optimize", mm, "--hw", file, "--format", "json")
	if !strings.Contains(out, `"expected_error"`) {
		t.Error("optimize --format json does not state the expected error")
	}
	out, _, _ = wolong(t, "profile", mm, "--hw", "h100", "--format", "json")
	if strings.Contains(out, "expected_error") {
		t.Error("h100 (no calibration) states an expected error")
	}
}
