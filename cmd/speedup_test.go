package cmd

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/pipeline"
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
// The guard (speedupSkill) is on skill, not on an absolute MAPE: the
// measured speedups are small (median 1.06x), so a predictor that always
// says 1.00x is only 7.5% off on average. The shipped cpu-1t preset must
// beat that constant predictor by a margin (its MAPE at most
// speedupSkillRatio of the constant's) and rank the models as measured
// (Spearman's rho at least speedupMinRho); the test checks that the same
// guard fails the constant predictor. speedupHostFit (an older host fit,
// committed beside the records) is reported with its figures, unguarded:
// it is no better than the constant (7.9% against 7.5%).
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
	pred := map[string][]float64{}
	var meas []float64
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
		lb, err := pipeline.ReadLatency(filepath.Join(dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		lo, err := pipeline.ReadLatency(filepath.Join(dir, name+".ort.json"))
		if err != nil {
			t.Fatal(err)
		}
		measured := lb.TargetUs() / lo.TargetUs()
		if measured < 1-speedupNoise {
			t.Errorf("%s: the emitted model measured %.3fx the original's speed, slower beyond noise", e.Model, measured)
		}
		meas = append(meas, measured)
		for label, file := range files {
			h, err := hw.Resolve(file)
			if err != nil {
				t.Fatal(err)
			}
			mo := &ModelOptions{MaxMemory: 4 << 30}
			pb, err := predictLatency(mo, model, h, lb)
			if err != nil {
				t.Fatal(err)
			}
			po, err := predictLatency(mo, out, h, lo)
			if err != nil {
				t.Fatal(err)
			}
			pred[label] = append(pred[label], pb/po)
			t.Logf("%-8s %-52s predicted %.3fx measured %.3fx error %+6.1f%%", label, e.Model, pb/po, measured, 100*(pb/po-measured)/measured)
		}
	}
	constant := make([]float64, len(meas))
	for i := range constant {
		constant[i] = 1
	}
	pred["constant 1.00x"] = constant
	for _, label := range []string{tab.Hardware, speedupHostFit, "constant 1.00x"} {
		g := speedupSkill(pred[label], meas)
		t.Logf("speedup over %d models measured on %s (%s), %s: MAPE %.1f%% (constant 1.00x: %.1f%%, ratio %.2f), Spearman rho %.2f: guard passes %v",
			len(meas), tab.Host, tab.Date, label, g.mape, g.constMAPE, g.mape/g.constMAPE, g.rho, g.ok)
	}
	if g := speedupSkill(pred[tab.Hardware], meas); !g.ok {
		t.Errorf("%s: speedup MAPE %.1f%% against the constant 1.00x predictor's %.1f%% (want at most %.0f%% of it), Spearman rho %.2f (want >= %.2f)",
			tab.Hardware, g.mape, g.constMAPE, 100*speedupSkillRatio, g.rho, speedupMinRho)
	}
	if g := speedupSkill(constant, meas); g.ok {
		t.Errorf("the speedup guard passes a predictor that always says 1.00x: it cannot fail")
	}
}

// speedupSkillRatio and speedupMinRho are the speedup guard: a hardware
// file's speedup MAPE at most this fraction of a constant 1.00x
// predictor's, and Spearman's rank correlation with the measured speedups
// at least this. On the committed measurement cpu-1t reaches 4.8% against
// 7.5% (0.64) and rho 0.76; the constant 1.00x, 1.00 and 0.
const (
	speedupSkillRatio = 0.8
	speedupMinRho     = 0.4
)

type skill struct {
	mape, constMAPE, rho float64
	ok                   bool
}

// speedupSkill is the speedup guard on predicted against measured speedups.
func speedupSkill(pred, meas []float64) skill {
	var g skill
	n := float64(len(meas))
	for i := range meas {
		g.mape += 100 * math.Abs(pred[i]-meas[i]) / meas[i] / n
		g.constMAPE += 100 * math.Abs(1-meas[i]) / meas[i] / n
	}
	g.rho = spearman(pred, meas)
	g.ok = g.mape <= speedupSkillRatio*g.constMAPE && g.rho >= speedupMinRho
	return g
}

// spearman is Spearman's rank correlation of x and y (average ranks for
// ties; 0 when either is constant).
func spearman(x, y []float64) float64 {
	rx, ry := ranks(x), ranks(y)
	var mx, my float64
	for i := range rx {
		mx += rx[i] / float64(len(rx))
		my += ry[i] / float64(len(ry))
	}
	var sxy, sxx, syy float64
	for i := range rx {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}

// speedupHostFit is the hardware file `wolong calibrate --host` fitted on
// the machine the speedups were measured on (2026-12-04T00:52Z: 131
// generated models, none of the shared ones; held-out latency MAPE 16.1%),
// committed beside the records. On the committed measurement: 10.0%, no
// better than a constant 1.00x (9.7%; 7.9% and 7.5% when first
// written): reported, not guarded.
const speedupHostFit = "host-fit.json"

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
	lb, _ := pipeline.ReadLatency(base)
	lo, _ := pipeline.ReadLatency(opt)
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
