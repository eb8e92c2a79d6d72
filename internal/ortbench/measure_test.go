package ortbench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestMeasureRetry measures a Relu in two passes with a retry threshold
// no two passes can meet (and with none): with it, the record carries a
// third, retried pass median, and its median is the lowest of all three.
func TestMeasureRetry(t *testing.T) {
	h := openHarness(t)
	dir := t.TempDir()
	model := writeRelu(t, dir, 64)
	for _, c := range []struct {
		retry   float64
		retries int
	}{{1e-9, 1}, {0, 0}} {
		err := h.Run(context.Background(), dir, []Job{{Model: model, Inputs: []Input{{Name: "x", DType: "float32", Shape: []int64{64}}}, Out: "relu.json"}},
			Measure{Runs: 20, Warmup: 2, WarmupMs: 1, MaxSeconds: 0.05, Passes: 2, RetryOverPct: c.retry})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "relu.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Median  float64   `json:"median_us"`
			Passes  []float64 `json:"pass_medians_us"`
			Retries []float64 `json:"retry_medians_us"`
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		if len(rec.Passes) != 2 || len(rec.Retries) != c.retries {
			t.Fatalf("retry over %g%%: %d passes and %d retries recorded, want 2 and %d", c.retry, len(rec.Passes), len(rec.Retries), c.retries)
		}
		low := rec.Passes[0]
		for _, m := range append(rec.Passes, rec.Retries...) {
			low = min(low, m)
		}
		if rec.Median != low {
			t.Errorf("retry over %g%%: median %g us, want the lowest pass median %g us", c.retry, rec.Median, low)
		}
	}
}

// TestMeasureCI measures a Relu in two passes to a confidence interval no
// run can meet (1e-9%): the model gets the CIPasses extra passes, its
// record states its interval (ci_pct, above the target), and its median is
// that of the fastest quarter of its passes, pooled with outliers dropped
// (fast_passes: 3 of 10); to an interval any run meets (1000%), no extra
// pass (2 of 8 pooled).
func TestMeasureCI(t *testing.T) {
	h := openHarness(t)
	dir := t.TempDir()
	model := writeRelu(t, dir, 64)
	for _, c := range []struct {
		ci      float64
		retries int
	}{{1e-9, 2}, {1000, 0}} {
		err := h.Run(context.Background(), dir, []Job{{Model: model, Inputs: []Input{{Name: "x", DType: "float32", Shape: []int64{64}}}, Out: "relu.json"}},
			Measure{Runs: 20, Warmup: 2, WarmupMs: 1, MaxSeconds: 0.05, Passes: 8, PassMinRuns: 5, CIPct: c.ci, CIPasses: 2, CISeconds: 10})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "relu.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Passes  []float64 `json:"pass_medians_us"`
			Retries []float64 `json:"retry_medians_us"`
			CI      *float64  `json:"ci_pct"`
			Fast    int       `json:"fast_passes"`
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		if len(rec.Passes) != 8 || len(rec.Retries) != c.retries {
			t.Errorf("to %g%%: %d passes and %d extra recorded, want 8 and %d", c.ci, len(rec.Passes), len(rec.Retries), c.retries)
		}
		if rec.CI == nil || *rec.CI < 0 || (c.ci < 1 && *rec.CI <= c.ci) {
			t.Errorf("to %g%%: ci_pct %v, want a stated interval above the target when it is unmet", c.ci, rec.CI)
		}
		// the fastest quarter (rounded) of all its passes is pooled
		if want := (8 + c.retries + 2) / 4; rec.Fast != want {
			t.Errorf("to %g%%: %d passes pooled of %d, want %d", c.ci, rec.Fast, 8+c.retries, want)
		}
	}
}
