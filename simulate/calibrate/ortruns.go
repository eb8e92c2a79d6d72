package calibrate

// This file turns ONNX Runtime measurements (a matched profile, and the
// unprofiled run beside it when the harness wrote one) into what the fits
// take, and summarizes a direct fit's end-to-end errors.

import (
	"math"
	"sort"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// ORTRun is one ORT profile matched with its model.
type ORTRun struct {
	Label string
	Model *ir.Model
	Pairs []Pair
	// ProfiledUs is the profiled run's end-to-end time; UnprofiledUs the
	// unprofiled record's beside it (0: none), µs.
	ProfiledUs, UnprofiledUs float64
	EveryNode                bool // the runtime ran every node (graph optimizations disabled)
}

// FitData is what the fits take from measurements: per-kernel
// observations (Fit), end-to-end runs (Fit's joint refinement) and
// unprofiled runs with their profiled split (FitDirect).
type FitData struct {
	Obs    []Obs
	Runs   []Run
	Direct []DirectRun
}

// AddORT adds r, measured on base's machine, and returns how many kernel
// observations it gave. With an unprofiled target, the profiler's own cost
// inside each kernel timing (base.Fitted.KernelInflationUs, measured by
// calibrate --host) is taken off every profiled kernel, never below 5% of
// its timing.
func (d *FitData) AddORT(base *hw.Hardware, r ORTRun) int {
	inflation := 0.0
	if base.Fitted != nil {
		inflation = base.Fitted.KernelInflationUs
	}
	copt := cost.Options{NoFold: r.EveryNode}
	runUs := r.ProfiledUs
	if r.UnprofiledUs > 0 {
		runUs = r.UnprofiledUs
	}
	o := Observations(base, r.Model, r.Pairs, copt, runUs)
	if r.UnprofiledUs > 0 {
		for i := range o {
			o[i].Us = deflate(o[i].Us, inflation)
		}
	}
	d.Obs = append(d.Obs, o...)
	if runUs > 0 && base.Kind == "cpu" {
		d.Runs = append(d.Runs, Run{Label: r.Label, Model: r.Model, Us: runUs, Opt: copt})
		if r.UnprofiledUs > 0 {
			split := map[*ir.Node]float64{}
			for _, p := range r.Pairs {
				split[p.Node] = deflate(p.Sample.Us, inflation)
			}
			d.Direct = append(d.Direct, DirectRun{Label: r.Label, Model: r.Model, Us: runUs, Opt: copt, Split: split, ProfiledUs: r.ProfiledUs})
		}
	}
	return len(o)
}

func deflate(us, inflation float64) float64 { return math.Max(us-inflation, 0.05*us) }

// RunError is one run's end-to-end prediction against its measurement.
type RunError struct {
	Label                   string
	MeasuredUs, PredictedUs float64
}

// Pct is the signed error, % of measured.
func (e RunError) Pct() float64 { return 100 * (e.PredictedUs - e.MeasuredUs) / e.MeasuredUs }

// DirectSummary is a direct fit's end-to-end error on its runs.
type DirectSummary struct {
	MAPEBefore, MAPEAfter float64    // with the base file, with the fitted one
	Worst                 []RunError // the largest |errors| after the fit, largest first
}

// SummarizeDirect compares base and fitted on runs, keeping the n worst.
func SummarizeDirect(base, fitted *hw.Hardware, runs []DirectRun, n int) DirectSummary {
	var before, after []float64
	var errs []RunError
	for _, run := range runs {
		m := run.Us
		p := PredictRun(fitted, run)
		before = append(before, math.Abs(PredictRun(base, run)-m)/m*100)
		after = append(after, math.Abs(p-m)/m*100)
		errs = append(errs, RunError{Label: run.Label, MeasuredUs: m, PredictedUs: p})
	}
	sort.SliceStable(errs, func(a, b int) bool { return math.Abs(errs[a].Pct()) > math.Abs(errs[b].Pct()) })
	return DirectSummary{MAPEBefore: Mean(before), MAPEAfter: Mean(after), Worst: errs[:min(n, len(errs))]}
}
