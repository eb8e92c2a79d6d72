package ortbench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
		var rec struct {
			Median  float64   `json:"median_us"`
			Passes  []float64 `json:"pass_medians_us"`
			Retries []float64 `json:"retry_medians_us"`
		}
		measureRelu(t, h, dir, model, Measure{Runs: 20, Warmup: 2, WarmupMs: 1, MaxSeconds: 0.05, Passes: 2, RetryOverPct: c.retry}, &rec)
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
		var rec struct {
			Passes  []float64 `json:"pass_medians_us"`
			Retries []float64 `json:"retry_medians_us"`
			CI      *float64  `json:"ci_pct"`
			Fast    int       `json:"fast_passes"`
		}
		measureRelu(t, h, dir, model, Measure{Runs: 20, Warmup: 2, WarmupMs: 1, MaxSeconds: 0.05, Passes: 8, PassMinRuns: 5, CIPct: c.ci, CIPasses: 2, CISeconds: 10}, &rec)
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

// TestMeasureCacheProbe measures a Relu in four passes with the cache
// probe and an interval any run meets: the record states the probe's size
// and each pass's probe ratio; the quiet passes are those whose ratio is
// within the harness's bound (1.5), they are pooled before any other, and
// a model with none pooled gets the extra passes (it was never measured
// with the cache to itself). Whatever state the machine is in, these hold.
func TestMeasureCacheProbe(t *testing.T) {
	h := openHarness(t)
	dir := t.TempDir()
	model := writeRelu(t, dir, 64)
	var rec struct {
		Passes    []float64 `json:"pass_medians_us"`
		Retries   []float64 `json:"retry_medians_us"`
		Fast      int       `json:"fast_passes"`
		KB        int       `json:"cache_probe_kb"`
		Probe     []float64 `json:"pass_cache_probe"`
		Quiet     int       `json:"quiet_passes"`
		FastQuiet int       `json:"fast_quiet_passes"`
	}
	measureRelu(t, h, dir, model, Measure{Runs: 20, Warmup: 2, WarmupMs: 1, MaxSeconds: 0.05, Passes: 4, PassMinRuns: 5, CIPct: 1000, CIPasses: 2, CISeconds: 10, CacheProbeKB: 256}, &rec)
	if rec.KB != 256 || len(rec.Probe) != len(rec.Passes)+len(rec.Retries) {
		t.Fatalf("cache_probe_kb %d, %d probe ratios for %d passes: want 256 and one a pass", rec.KB, len(rec.Probe), len(rec.Passes)+len(rec.Retries))
	}
	quiet := 0
	for _, r := range rec.Probe {
		if !(r > 0) {
			t.Errorf("probe ratio %v: want > 0", r)
		}
		if r <= 1.5 {
			quiet++
		}
	}
	if rec.Quiet != quiet {
		t.Errorf("quiet_passes %d, want %d (ratios %v)", rec.Quiet, quiet, rec.Probe)
	}
	if rec.FastQuiet > rec.Fast || rec.FastQuiet > rec.Quiet || (rec.Quiet > 0 && rec.FastQuiet < min(rec.Quiet, rec.Fast)) {
		t.Errorf("%d of %d pooled passes quiet, %d quiet in all: want the quiet ones pooled first", rec.FastQuiet, rec.Fast, rec.Quiet)
	}
	if rec.FastQuiet == 0 && len(rec.Retries) != 2 {
		t.Errorf("no quiet pass pooled and %d extra passes: want the 2 extra passes of an unsettled model", len(rec.Retries))
	}
}

// measureRelu measures model (writeRelu's, 64 elements) with m into dir
// and decodes its record into rec.
func measureRelu(t *testing.T, h *Harness, dir, model string, m Measure, rec any) {
	t.Helper()
	err := h.Run(context.Background(), dir, []Job{{Model: model, Inputs: []Input{{Name: "x", DType: "float32", Shape: []int64{64}}}, Out: "relu.json"}}, m)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "relu.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, rec); err != nil {
		t.Fatal(err)
	}
}

// TestMeasureCacheProbeQuietFirst sets the probe's ratios (the harness's
// test hook): of eight passes the first and fifth are quiet (both
// bracketing probes within 1.5), and the two passes pooled (a quarter)
// are those two whatever their medians; with no quiet pass, the model
// gets the extra passes of an unsettled one.
func TestMeasureCacheProbeQuietFirst(t *testing.T) {
	h := openHarness(t)
	dir := t.TempDir()
	model := writeRelu(t, dir, 64)
	for _, c := range []struct {
		seq       string
		probe     []float64
		quiet     int
		extra     int
		fastQuiet int
	}{
		{"1,1,3,3,1,1,3,3,1", []float64{1, 3, 3, 3, 1, 3, 3, 3}, 2, 0, 2},
		{"3", []float64{3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 0, 2, 0},
	} {
		t.Setenv("WOLONG_CACHE_PROBE_SEQ", c.seq)
		var rec struct {
			Retries   []float64 `json:"retry_medians_us"`
			Fast      int       `json:"fast_passes"`
			Probe     []float64 `json:"pass_cache_probe"`
			Quiet     int       `json:"quiet_passes"`
			FastQuiet int       `json:"fast_quiet_passes"`
		}
		measureRelu(t, h, dir, model, Measure{Runs: 20, Warmup: 2, WarmupMs: 1, MaxSeconds: 0.05, Passes: 8, PassMinRuns: 5, CIPct: 1000, CIPasses: 2, CISeconds: 10, CacheProbeKB: 256}, &rec)
		if !slices.Equal(rec.Probe, c.probe) || rec.Quiet != c.quiet || len(rec.Retries) != c.extra || rec.FastQuiet != c.fastQuiet {
			t.Errorf("probes %s: pass ratios %v, %d quiet, %d extra passes, %d of %d pooled quiet; want %v, %d, %d, %d", c.seq, rec.Probe, rec.Quiet, len(rec.Retries), rec.FastQuiet, rec.Fast, c.probe, c.quiet, c.extra, c.fastQuiet)
		}
	}
}
