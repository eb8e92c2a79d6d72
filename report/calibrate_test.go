package report

import (
	"strconv"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/calibrate"
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
