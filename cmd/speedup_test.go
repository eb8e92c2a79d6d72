package cmd

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// speedupTable is testdata/measured/speedup/speedup.json, written by
// bench/ort/speedup.sh.
type speedupTable struct {
	Hardware string `json:"hardware"`
	Host     string `json:"host"`
	Date     string `json:"date"`
	Models   []struct {
		Model          string  `json:"model"`
		OptimizedNodes int     `json:"optimized_nodes"`
		MeasuredSpeed  float64 `json:"measured_speedup"`
	} `json:"models"`
}

// TestCommittedSpeedups checks the current predictions of optimize
// --target ort against the speedups ONNX Runtime 1.30 measured
// (testdata/measured/speedup, bench/ort/speedup.sh: one thread,
// optimizations disabled, interleaved in blocks). Each model is optimized
// again (-O3 --target ort, in process) and must be the model measured
// (same node count); its predicted speedup over the original (both
// predicted as ORT runs them, every node, with the recorded input shapes)
// is compared with the measured one.
//
// Thresholds: with speedupHostFit, the hardware file `wolong calibrate
// --host` fitted on the measuring machine (committed beside the records),
// the MAPE must stay within issue 12's 20% target. With the shipped
// cpu-1t preset it must stay within speedupPresetMAPE: that preset's
// per-node dispatch (6.5 us, fitted to profiled runs) is several times
// what an unprofiled run pays, so every node a pass removes is predicted
// to save too much and the small models' speedups come out high; the
// bound catches regressions until the preset is refitted (then lower it).
// The emitted model may be slower than the original only within the
// measurement noise (speedupNoise, the drift-corrected spread seen between
// repeated measurements of the same model on this VM).
func TestCommittedSpeedups(t *testing.T) {
	root := shared(t, "models")
	dir := filepath.Join("..", "testdata", "measured", "speedup")
	b, err := os.ReadFile(filepath.Join(dir, "speedup.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab speedupTable
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Models) < 20 {
		t.Fatalf("%d models measured, want at least 20", len(tab.Models))
	}
	files := map[string]string{tab.Hardware: tab.Hardware, speedupHostFit: filepath.Join(dir, speedupHostFit)}
	mape := map[string]float64{}
	tmp := t.TempDir()
	for _, e := range tab.Models {
		name := strings.ReplaceAll(strings.TrimSuffix(e.Model, ".onnx"), "/", "_")
		model := filepath.Join(root, e.Model)
		out := filepath.Join(tmp, name+".ort.onnx")
		if _, errs, code := run("optimize", model, "-O3", "--target", "ort", "--hw", tab.Hardware, "--emit-onnx", out); code != 0 {
			t.Errorf("%s: optimize: %s", e.Model, errs)
			continue
		}
		m, err := importer.Load(out, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		nodes := len(m.Graph.Nodes)
		m.Close()
		if nodes != e.OptimizedNodes {
			t.Errorf("%s: the emitted model has %d nodes, the measured one %d: the optimizer changed, re-measure with bench/ort/speedup.sh", e.Model, nodes, e.OptimizedNodes)
			continue
		}
		lb, err := readLatency(filepath.Join(dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		lo, err := readLatency(filepath.Join(dir, name+".ort.json"))
		if err != nil {
			t.Fatal(err)
		}
		measured := lb.TargetUs() / lo.TargetUs()
		if measured < 1-speedupNoise {
			t.Errorf("%s: the emitted model measured %.3fx the original's speed, slower beyond noise", e.Model, measured)
		}
		for label, file := range files {
			h, err := hw.Resolve(file)
			if err != nil {
				t.Fatal(err)
			}
			mf := ModelFlags{MaxMemory: "4GiB"}
			pb, err := predictLatency(mf, model, h, lb)
			if err != nil {
				t.Fatal(err)
			}
			po, err := predictLatency(mf, out, h, lo)
			if err != nil {
				t.Fatal(err)
			}
			errPct := 100 * (pb/po - measured) / measured
			mape[label] += math.Abs(errPct) / float64(len(tab.Models))
			t.Logf("%-8s %-52s predicted %.3fx measured %.3fx error %+6.1f%%", label, e.Model, pb/po, measured, errPct)
		}
	}
	t.Logf("speedup MAPE over %d models measured on %s (%s): %s %.1f%%, %s %.1f%%", len(tab.Models), tab.Host, tab.Date,
		tab.Hardware, mape[tab.Hardware], speedupHostFit, mape[speedupHostFit])
	if mape[speedupHostFit] > 20 {
		t.Errorf("speedup MAPE with the host fit %.1f%%, want within 20%%", mape[speedupHostFit])
	}
	if mape[tab.Hardware] > speedupPresetMAPE {
		t.Errorf("speedup MAPE with %s %.1f%%, want within %.0f%%", tab.Hardware, mape[tab.Hardware], speedupPresetMAPE)
	}
}

// speedupHostFit is the hardware file `wolong calibrate --host` fitted on
// the machine the speedups were measured on (2026-12-04T00:52Z: 131
// generated models, none of the shared ones; held-out latency MAPE 16.1%),
// committed beside the records. On the committed measurement: 7.9%.
const speedupHostFit = "host-fit.json"

// speedupPresetMAPE bounds the MAPE with the shipped cpu-1t preset, the
// issue's target: 4.8% on the committed measurement since cpu-1t was fitted
// to unprofiled runs by calibrate --host (24.4% before, with its 6.5 us
// dispatch per node fitted to profiled runs).
const speedupPresetMAPE = 20.0

// speedupNoise is how much slower than the original an emitted model may
// measure before it counts as slower: the models whose run the ort pass
// leaves as it was (predicted 1.000x) measured 0.963x to 1.057x, so this
// VM's noise at 4 s per model, interleaved, is about 6%.
const speedupNoise = 0.06

// TestValidateOptimized runs validate --optimized on a committed pair of
// records: the JSON carries the speedups and their error (the measured
// one the records' ratio), outputs are compared in ONNX Runtime when node
// is there (null without it); malformed invocations are usage errors.
func TestValidateOptimized(t *testing.T) {
	root := shared(t, "models")
	dir := filepath.Join("..", "testdata", "measured", "speedup")
	model := filepath.Join(root, "cnn", "mnist_cntk_opset7.onnx")
	base, opt := filepath.Join(dir, "cnn_mnist_cntk_opset7.json"), filepath.Join(dir, "cnn_mnist_cntk_opset7.ort.json")
	out := filepath.Join(t.TempDir(), "m.ort.onnx")
	if _, errs, code := run("optimize", model, "--target", "ort", "--hw", "cpu-1t", "--emit-onnx", out); code != 0 {
		t.Fatal(errs)
	}
	stdout, errs, code := run("validate", model, "--optimized", out, "--ort-latency", base+","+opt, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v struct {
		PredictedSpeedup float64  `json:"predicted_speedup"`
		MeasuredSpeedup  float64  `json:"measured_speedup"`
		ErrorPct         float64  `json:"error_pct"`
		OutputsEqual     *bool    `json:"outputs_equal"`
		Hardware         string   `json:"hardware"`
		MeasuredMs       float64  `json:"measured_ms"`
		MeasuredOptMs    float64  `json:"measured_optimized_ms"`
		Notes            []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatal(err)
	}
	lb, _ := readLatency(base)
	lo, _ := readLatency(opt)
	if want := lb.TargetUs() / lo.TargetUs(); math.Abs(v.MeasuredSpeedup-want) > 1e-9 || v.Hardware != "cpu-1t" || v.PredictedSpeedup <= 1 {
		t.Errorf("measured %.4fx (want %.4fx from the records), predicted %.4fx on %s", v.MeasuredSpeedup, want, v.PredictedSpeedup, v.Hardware)
	}
	if e := 100 * (v.PredictedSpeedup - v.MeasuredSpeedup) / v.MeasuredSpeedup; math.Abs(e-v.ErrorPct) > 1e-9 {
		t.Errorf("error_pct %.3f, want %.3f", v.ErrorPct, e)
	}
	if _, err := exec.LookPath("node"); err == nil && (v.OutputsEqual == nil || !*v.OutputsEqual) {
		t.Errorf("outputs_equal %v with node present: %v", v.OutputsEqual, v.Notes)
	}
	for _, bad := range [][]string{
		{"validate", "--optimized", out},
		{"validate", model, "--optimized", out, "--ort-latency", base},
		{"validate", model, "--optimized", out, "--ort-profile", base},
	} {
		if _, _, code := run(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
