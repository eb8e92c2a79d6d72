package cmd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/calibrate"
)

// measuredCPU is the committed measurement of the shared models in ONNX
// Runtime (bench/ort/latency.sh --profiled --passes 2: one thread, graph
// optimizations disabled): per model an unprofiled latency record
// (NAME.json) and the per-node profile of a profiled session
// (NAME.profile.json). Models wolong refuses to match with their profile
// are not committed.
var measuredCPU = filepath.Join("..", "testdata", "measured", "cpu")

// measuredRecords lists the committed latency records (profiles left out),
// each with its model's family fold: a model of a family in the first
// fold of calibrate.FamilyFolds is in a, the others in b.
func measuredRecords(t *testing.T) (a, b []string) {
	t.Helper()
	files, err := latencyFiles(measuredCPU)
	if err != nil || len(files) < 40 {
		t.Fatalf("%d measured records in %s, want at least 40 (%v)", len(files), measuredCPU, err)
	}
	foldA, _ := calibrate.FamilyFolds()
	for _, f := range files {
		lat, err := pipeline.ReadLatency(f)
		if err != nil {
			t.Fatal(err)
		}
		fam, shared := calibrate.ModelFamily(lat.Model)
		if !shared {
			t.Fatalf("%s: %s is not a shared model", f, lat.Model)
		}
		if foldA[fam] {
			a = append(a, f)
		} else {
			b = append(b, f)
		}
	}
	return a, b
}

// profilesOf is the committed profiles of records (records whose profile
// wolong does not match have none).
func profilesOf(records []string) []string {
	var out []string
	for _, r := range records {
		p := strings.TrimSuffix(r, ".json") + ".profile.json"
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// validateSet runs validate --ort-latency over records (copied into a
// folder of their own) with hw and returns the set's figures.
func validateSet(t *testing.T, hw, models string, records []string) setFigures {
	t.Helper()
	dir := t.TempDir()
	for _, rec := range records {
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(rec)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := run("validate", "--hw", hw, "--ort-latency", dir, "--models", models, "--format", "json")
	if code != 0 {
		t.Fatalf("validate --hw %s: exit %d: %s", hw, code, stderr)
	}
	var f setFigures
	if err := json.Unmarshal([]byte(stdout), &f); err != nil {
		t.Fatal(err)
	}
	for _, m := range f.Models {
		if m.Error != "" {
			t.Errorf("%s: not predicted: %s", m.Model, m.Error)
			continue
		}
		t.Logf("%-60s measured %9.4f ms predicted %9.4f ms error %+6.1f%%", m.Model, m.MeasuredMs, m.PredictedMs, m.ErrorPct)
	}
	for _, fam := range f.Families {
		t.Logf("family %-20s %2d models MAPE %5.1f%% worst %.2fx", fam.Family, fam.Models, fam.MAPE, fam.MaxRatio)
	}
	t.Logf("--hw %s on %d models (%d not predicted, counted as misses): MAPE %.1f%% (median %.1f%%), %d within 15%%, worst %.2fx", hw, len(f.Models), f.Missed, f.MAPE, f.MedianAbs, f.Within15, f.MaxRatio)
	return f
}

type setFigures struct {
	Hardware string `json:"hardware"`
	Models   []struct {
		Model       string  `json:"model"`
		MeasuredMs  float64 `json:"measured_ms"`
		PredictedMs float64 `json:"predicted_ms"`
		ErrorPct    float64 `json:"error_pct"`
		Error       string  `json:"error"`
	} `json:"models"`
	Families []struct {
		Family   string  `json:"family"`
		Models   int     `json:"models"`
		MAPE     float64 `json:"mape_pct"`
		MaxRatio float64 `json:"max_ratio"`
	} `json:"families"`
	Predicted int     `json:"predicted"`
	Missed    int     `json:"missed"`
	MAPE      float64 `json:"mape_pct"`
	MedianAbs float64 `json:"median_abs_error_pct"`
	Within15  int     `json:"within_15pct"`
	MaxRatio  float64 `json:"max_ratio"`
}

// TestHeldOutCalibration is bench/calibrate_report.sh on the committed
// measurement, split by model family (calibrate.FamilyFolds): calibrate
// cpu-1t on the profiles of one fold's families (their unprofiled runs
// are the targets, their profiles share each run's kernel time), predict
// every model of the other fold with the fitted file and compare with its
// unprofiled end-to-end median; then the other way round, so that every
// committed model is predicted once by a fit that never saw its family.
// The data are fixed, so the figures are deterministic. The guard is the
// level the method reaches (heldOutFoldMAPE); a model not predicted
// counts as a miss.
func TestHeldOutCalibration(t *testing.T) {
	models := filepath.Join("..", "..", "shared", "models")
	if _, err := os.Stat(models); err != nil {
		t.Skip("../shared/models absent")
	}
	if testing.Short() {
		t.Skip("calibrates on the shared models (-short)")
	}
	a, b := measuredRecords(t)
	var sum float64
	var n int
	worst := 0.0
	for i, fold := range [][2][]string{{a, b}, {b, a}} {
		fit := filepath.Join(t.TempDir(), fmt.Sprintf("fit%d.json", i))
		args := []string{"calibrate", "--base", "cpu-1t", "--models", models, "-o", fit}
		for _, f := range profilesOf(fold[0]) {
			args = append(args, "--ort-profile", f)
		}
		if stdout, stderr, code := run(args...); code != 0 {
			t.Fatalf("calibrate: exit %d: %s", code, stderr)
		} else if !strings.Contains(stdout, "(direct)") {
			t.Fatalf("calibrate did not fit the unprofiled runs directly:\n%s", stdout)
		}
		f := validateSet(t, fit, models, fold[1])
		sum += f.MAPE * float64(len(f.Models))
		n += len(f.Models)
		worst = max(worst, f.MaxRatio)
		if f.Missed > 0 {
			worst = math.Inf(1)
		}
	}
	mape := sum / float64(n)
	t.Logf("family-fold cross-validation, %d models: MAPE %.1f%%, worst %.2fx", n, mape, worst)
	if mape > heldOutFoldMAPE || worst > heldOutFoldWorst {
		t.Errorf("family-held-out MAPE %.1f%%, worst %.2fx: want <= %.0f%% and <= %.0fx", mape, worst, heldOutFoldMAPE, heldOutFoldWorst)
	}
}

// heldOutFoldMAPE and heldOutFoldWorst bound TestHeldOutCalibration's
// figures at the level the ORT-profile fit reaches on families it never
// saw: 23.8% MAPE, worst 2.28x on the 52 records remeasured on 2026-12-07
// (22.0% before views that are a model's output were costed as copies:
// kinference_qattention's fold went 2.4% -> 106%, not diagnosed)
// (twelve passes, the fastest quarter pooled, as calibrate --host measures
// its suite), from the cpu-1t of that day (25.1% / 2.23x from its first
// refit, before the padding rows' and the int8 rules), with the per-MB host costs
// bounded (calibrate's maxUsPerMB: without it a fold without large
// outputs fitted 2,305 us/MB and put kinference_qattention 7.4x too
// slow). Earlier: 28.4% and 4.99x (records of 2026-12-04, the cpu-1t of
// that day). The misses are what a fit to few families cannot know: the
// QLinear MobileNetV2, the quantised attention and the tiny Llama
// 2.1-2.2x, the burn control-flow models up to 2.0x, the DTLN pair 1.8x.
// Sorted-name halves (the split before issue 29) put an export of the
// same model on both sides and read 14.3%.
const (
	heldOutFoldMAPE  = 30.0
	heldOutFoldWorst = 3.0
)

// TestShippedCPUPreset: the cpu-1t preset as shipped, with no calibration,
// predicts every committed model (the development set, all measured on the
// machine class the preset was fitted on) within shippedMAPE; every model
// ORT runs is there, a model wolong cannot predict counts as a miss.
func TestShippedCPUPreset(t *testing.T) {
	models := filepath.Join("..", "..", "shared", "models")
	if _, err := os.Stat(models); err != nil {
		t.Skip("../shared/models absent")
	}
	a, b := measuredRecords(t)
	f := validateSet(t, "cpu-1t", models, append(a, b...))
	if f.MAPE > shippedMAPE || f.MaxRatio > 2 || f.Missed > 0 {
		t.Errorf("cpu-1t: MAPE %.1f%% on the %d committed measurements, worst %.2fx, %d not predicted; want <= %.0f%%, <= 2x, none", f.MAPE, len(f.Models), f.MaxRatio, f.Missed, shippedMAPE)
	}
	t.Logf("cpu-1t as shipped, %d committed measurements: MAPE %.1f%%, worst %.2fx", len(f.Models), f.MAPE, f.MaxRatio)
}

// shippedMAPE bounds TestShippedCPUPreset: 11.6%, worst 1.63x on the 52
// records remeasured on 2026-12-07 (testdata/measured/cpu/ADDED.md) with
// the cpu-1t refitted that day and the evening's cost rules (11.8% before
// them; its first refit: 11.9% / 1.70x); the
// cpu-1t before it read 18.2% / 2.28x
// on them (14.6% / 1.92x on the records of 2026-12-04, measured as the
// median of two passes, ~10% slower than the suite's estimator).
const shippedMAPE = 15.0

// measuredZen3 is the 52 shared models measured on the AMD EPYC Zen 3 VM
// (testdata/measured/cpu-zen3/ADDED.md), records that name the CPU's id.
var measuredZen3 = filepath.Join("..", "testdata", "measured", "cpu-zen3")

// TestShippedCPUPresetZen3: on records of the Zen 3 VM, --hw cpu-1t is
// the variant fitted there (cpu-1t-zen3: the records' host names its CPU
// id, and two AMD EPYC generations share a model name), and it predicts
// every model within shippedZen3MAPE. The preset's fits saw none of these
// models (the suite alone); the cost model's rules were developed on them
// on the Zen 5 VM.
func TestShippedCPUPresetZen3(t *testing.T) {
	models := filepath.Join("..", "..", "shared", "models")
	if _, err := os.Stat(models); err != nil {
		t.Skip("../shared/models absent")
	}
	files, err := latencyFiles(measuredZen3)
	if err != nil || len(files) != 52 {
		t.Fatalf("%d records in %s, want 52 (%v)", len(files), measuredZen3, err)
	}
	f := validateSet(t, "cpu-1t", models, files)
	if f.Hardware != "cpu-1t-zen3" {
		t.Errorf("--hw cpu-1t on the Zen 3 records predicted with %q, want cpu-1t-zen3", f.Hardware)
	}
	if f.MAPE > shippedZen3MAPE || f.MaxRatio > 2 || f.Missed > 0 {
		t.Errorf("%s: MAPE %.1f%% on the %d Zen 3 records, worst %.2fx, %d not predicted; want <= %.0f%%, <= 2x, none", f.Hardware, f.MAPE, len(f.Models), f.MaxRatio, f.Missed, shippedZen3MAPE)
	}
	t.Logf("%s, %d Zen 3 records: MAPE %.1f%%, worst %.2fx", f.Hardware, len(f.Models), f.MAPE, f.MaxRatio)
}

// shippedZen3MAPE bounds TestShippedCPUPresetZen3: measured 16.3% (worst
// 1.77x) on the first measurement of 2026-12-07 23:13 UTC, the VM noisy
// (the same model 1.45x apart in two back-to-back measurements); the
// preset fitted on Zen 5, cpu-1t itself, reads 47.1% (2.59x) on them.
const shippedZen3MAPE = 20.0

// TestSetGuardsCanFail: the figures the guards above read fail a constant
// predictor (every model 0.1 ms) on the committed records.
func TestSetGuardsCanFail(t *testing.T) {
	a, b := measuredRecords(t)
	s := &report.ValidationSet{}
	for _, f := range append(a, b...) {
		lat, err := pipeline.ReadLatency(f)
		if err != nil {
			t.Fatal(err)
		}
		s.Models = append(s.Models, report.SetModel{Model: lat.Model, MeasuredMs: lat.TargetUs() / 1e3, PredictedMs: 0.1})
	}
	report.NewValidationSet(s)
	if s.MAPE <= shippedMAPE || s.MAPE <= heldOutFoldMAPE {
		t.Errorf("a constant 0.1 ms predictor: MAPE %.1f%%, passes a guard", s.MAPE)
	}
	t.Logf("constant 0.1 ms: MAPE %.1f%%, worst %.2fx", s.MAPE, s.MaxRatio)
}
