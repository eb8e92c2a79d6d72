package host

// This file is the report of a host calibration: calibrate --host --format
// json, and the per-group errors its table prints.

import (
	"fmt"
	"math"
	"strings"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// Report is calibrate --host --format json.
type Report struct {
	Fits    []FitReport `json:"fits"`
	Written []string    `json:"written"`
}

// FitReport is one thread count's fit.
type FitReport struct {
	Name        string  `json:"name"`
	Threads     int     `json:"threads"`
	TrainMAPE   float64 `json:"train_mape_pct"`
	HeldOutMAPE float64 `json:"held_out_mape_pct"`
	NoisePct    float64 `json:"noise_pct"` // median difference between a model's two measuring passes
	NoisyModels int     `json:"noisy_models"`
	// TooNoisy counts the models whose median was not known to within
	// TargetCIPct after the extra passes (the machine was too noisy).
	TooNoisy int `json:"too_noisy_models"`
	// CacheSharedPct: the share of the passes in which the harness's
	// cache probe found the core's L2 shared with another tenant (%);
	// CacheUnquietModels: the models never measured with it to themselves.
	CacheSharedPct     float64            `json:"cache_shared_pct"`
	CacheUnquietModels int                `json:"cache_unquiet_models"`
	Models             []ModelReport      `json:"models"`
	Hardware           *hw.Hardware       `json:"hardware"`
	Host               map[string]float64 `json:"host"`
}

// ModelReport is one suite model's end-to-end time, measured and fitted.
type ModelReport struct {
	Name        string  `json:"name"`
	Group       string  `json:"group"`
	HeldOut     bool    `json:"held_out"`
	MeasuredMs  float64 `json:"measured_ms"`
	PredictedMs float64 `json:"predicted_ms"`
	ErrorPct    float64 `json:"error_pct"`
	// CIPct: how well the measured time is known (95% interval, %).
	CIPct float64 `json:"ci_pct,omitempty"`
}

// NewReport describes res, fitted at threads (in res.Fits order), and the
// files written.
func NewReport(res *Result, threads []int, written []string) Report {
	out := Report{Written: written}
	for i, f := range res.Fits {
		j := FitReport{Name: f.HW.Name, Threads: threads[i], TrainMAPE: f.TrainMAPE, HeldOutMAPE: f.HeldMAPE, NoisePct: f.NoisePct, NoisyModels: f.NoisyModels, TooNoisy: len(f.Unsettled), CacheSharedPct: f.CacheSharedPct, CacheUnquietModels: len(f.CacheUnquiet), Hardware: f.HW, Host: map[string]float64{}}
		for _, hp := range f.Calib.Host {
			j.Host[hp.Name] = hp.After
		}
		for _, m := range f.Models {
			j.Models = append(j.Models, ModelReport{Name: m.Name, Group: m.Group, HeldOut: m.HeldOut,
				MeasuredMs: m.MeasuredUs / 1e3, PredictedMs: m.PredictedUs / 1e3, ErrorPct: m.ErrorPct(), CIPct: m.CIPct})
		}
		out.Fits = append(out.Fits, j)
	}
	return out
}

// GroupError is a suite group's MAPE on the models fitted on and on those
// held out (N, NHeld models; a MAPE is 0 where its count is).
type GroupError struct {
	Group             string
	N, NHeld          int
	FitMAPE, HeldMAPE float64
}

// GroupErrors is ms's error per suite group, in the order groups first
// appear.
func GroupErrors(ms []ModelResult) []GroupError {
	idx := map[string]int{}
	var out []GroupError
	for _, m := range ms {
		i, ok := idx[m.Group]
		if !ok {
			i = len(out)
			idx[m.Group] = i
			out = append(out, GroupError{Group: m.Group})
		}
		g, e := &out[i], math.Abs(m.ErrorPct())
		if m.HeldOut {
			g.NHeld++
			g.HeldMAPE += e
		} else {
			g.N++
			g.FitMAPE += e
		}
	}
	for i := range out {
		if g := &out[i]; g.N > 0 {
			g.FitMAPE /= float64(g.N)
		}
		if g := &out[i]; g.NHeld > 0 {
			g.HeldMAPE /= float64(g.NHeld)
		}
	}
	return out
}

// Count is how many of ms are held out (held) or fitted on (!held).
func Count(ms []ModelResult, held bool) int {
	n := 0
	for _, m := range ms {
		if m.HeldOut == held {
			n++
		}
	}
	return n
}

// OutPath is the file calibrate --host -o out writes the fit of threads
// to: out for one thread, NAME-Nt.json beside it for N.
func OutPath(out string, threads int) string {
	if threads == 1 {
		return out
	}
	return strings.TrimSuffix(out, ".json") + fmt.Sprintf("-%dt.json", threads)
}

// Warnings are the lines that say f, fitted at threads, is less reliable:
// medians not settled within TargetCIPct, and a machine whose speed varied
// (a pass-to-pass difference over NoisyPct).
func (f *FitResult) Warnings(threads int) []string {
	var ws []string
	if u := f.Unsettled; len(u) > 0 {
		ws = append(ws, fmt.Sprintf("%d thread(s): the machine was too noisy: %d of %d models' medians are not known to within %d%% (95%% interval) after %d passes and more for the noisy ones (widest: %s +-%.0f%%); the fit weighs them by their noise; re-run wolong calibrate --host when the machine is quiet",
			threads, len(u), len(f.Models), TargetCIPct, Passes, u[0].Name, u[0].CIPct))
	}
	if u := f.CacheUnquiet; len(u) > 0 {
		how := "the fit weighs them less"
		if 2*len(u) > len(f.Models) {
			how = "the fit is of this machine with its cache shared"
		}
		ws = append(ws, fmt.Sprintf("%d thread(s): the harness's cache probe read %.0f%% of the passes as sharing the core's L2, and %d of %d models as never measured with it to themselves (e.g. %s); %s (the probe is experimental: on the Intel VM it read quiet passes so too, docs/calibration-protocol.md)",
			threads, f.CacheSharedPct, len(u), len(f.Models), u[0], how))
	}
	if f.NoisePct > NoisyPct {
		ws = append(ws, fmt.Sprintf("%d thread(s): the machine's speed varied while measuring (a model's two passes differ by %.1f%% at the median, %d models by more than 10%%): another process was likely running; the fit is less reliable: re-run wolong calibrate --host when the machine is quiet",
			threads, f.NoisePct, f.NoisyModels))
	}
	return ws
}
