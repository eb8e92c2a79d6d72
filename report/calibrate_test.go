package report

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/calibrate"
	hostpkg "github.com/wolong-dev/wolong/simulate/calibrate/host"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestCalibrationText: the per-kernel fit prints a class table (a kept
// class says so) and the host line; the direct fit its end-to-end error,
// host and worst runs; both end with the file written.
func TestCalibrationText(t *testing.T) {
	r := &calibrate.Result{
		HW: &hw.Hardware{Name: "cpu-calibrated"},
		Classes: []calibrate.ClassFit{
			{Class: "gemm", N: 12, Before: hw.ClassEfficiency{Compute: 0.5, Memory: 0.5, OverheadUs: 2}, After: hw.ClassEfficiency{Compute: 0.25, Memory: 0.75, OverheadUs: 1}, MAPEBefore: 40, MAPEAfter: 10, SumErrBefore: -20, SumErrAfter: 1.5},
			{Class: "norm", N: 1, Kept: true},
		},
		Runs: 2, Host: []calibrate.HostFit{{Name: "dispatch_us", Before: 1, After: 2.5}}, RunMAPEBefore: 30, RunMAPEAfter: 5,
	}
	var b strings.Builder
	if err := (&Calibration{Result: r, Written: "fit.json"}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `
fit of cpu-calibrated (compute / memory fraction of peak, overhead us; kernel error: mean |%| and % of the class's summed time)
class          kernels  before                 after                  MAPE before>after sum err before>after
gemm               12  0.5 / 0.5 / 2          0.25 / 0.75 / 1           40.0% >  10.0%   -20.0% >   +1.5%
norm                1  0 / 0 / 0              0 / 0 / 0                  0.0% >   0.0%    +0.0% >   +0.0%
               kept the base parameters: fewer than 3 kernels to fit
host: dispatch_us 1 > 2.5, fitted to 2 end-to-end runs (MAPE 30.0% > 5.0%)
wrote fit.json (use it with --hw fit.json)
`
	want = strings.Replace(want, "fewer than 3", "fewer than "+strconv.Itoa(calibrate.MinClassKernels), 1)
	if b.String() != want {
		t.Errorf("per-kernel fit:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	d := &Calibration{Result: r, Base: &hw.Hardware{Name: "cpu"}, Written: "fit.json",
		Direct: &calibrate.DirectSummary{MAPEBefore: 30, MAPEAfter: 5, Worst: []calibrate.RunError{{Label: "m.onnx", MeasuredUs: 1000, PredictedUs: 1100}}}}
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want = `
fit of cpu-calibrated to 2 unprofiled runs (direct): end-to-end MAPE 30.0% with cpu, 5.0% fitted
host: dispatch_us 1 > 2.5
  largest error: m.onnx: measured 1 ms, fitted 1.1 ms (+10.0%)
0 op types with efficiencies of their own
wrote fit.json (use it with --hw fit.json)
`
	if b.String() != want {
		t.Errorf("direct fit:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestHostCalibrationText: each thread count's fit has its group table,
// host line (or the one-thread fit's, kept), noise, the file written and
// the file saved; a blank line between fits; the kept folder last.
func TestHostCalibrationText(t *testing.T) {
	fit := func(name string, host []calibrate.HostFit) *hostpkg.FitResult {
		return &hostpkg.FitResult{HW: &hw.Hardware{Name: name, Fitted: &hw.Fitted{}}, Calib: &calibrate.Result{Host: host},
			Models: []hostpkg.ModelResult{{Name: "a", Group: "gemm", MeasuredUs: 100, PredictedUs: 110}, {Name: "b", Group: "gemm", MeasuredUs: 100, PredictedUs: 80, HeldOut: true}}}
	}
	h := &HostCalibration{
		Result:  &hostpkg.Result{Fits: []*hostpkg.FitResult{fit("local", []calibrate.HostFit{{Name: "dispatch_us", After: 1.5}}), fit("local-2t", nil)}, Dir: "kept"},
		Threads: []int{1, 2}, Written: map[int]string{1: "l.json", 2: "l-2t.json"}, SavedIn: "cfg",
	}
	var b strings.Builder
	if err := h.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"end-to-end error by group, 1 thread(s) (MAPE, models):\n",
		"host: dispatch_us 1.5; memory 0 GB/s",
		"host: kept from the one-thread fit;",
		"wrote l.json (use it with --hw l.json)\nsaved " + filepath.Join("cfg", "local.json") + " (use it with --hw local)\n\nlocal-2t: ",
		"wrote l-2t.json (use it with --hw l-2t.json)\n",
		"models and measurements kept in kept (refit them with --from kept)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "gemm") || !strings.Contains(out, "10.0% (1)") || !strings.Contains(out, "20.0% (1)") {
		t.Errorf("group table:\n%s", out)
	}
	h.SavedIn = ""
	b.Reset()
	h.WriteText(&b)
	if strings.Contains(b.String(), "saved ") {
		t.Errorf("--no-save printed a saved file:\n%s", b.String())
	}
}
