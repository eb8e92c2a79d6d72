package cmd

// This file implements calibrate --format json for fits from measurements
// (--ort-profile, --torch-trace, --table): the fit a script reads besides
// the hardware file it wrote.

import (
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// calibrateJSON is what calibrate --format json prints.
type calibrateJSON struct {
	Measurements []string        `json:"measurements"` // one line per file: what was used from it
	Classes      []classFitJSON  `json:"classes"`
	Host         []hostParamJSON `json:"host"` // empty when no end-to-end runs were fitted
	Runs         int             `json:"runs"`
	RunMAPE      [2]float64      `json:"run_mape_pct"` // before, after
	Hardware     *hw.Hardware    `json:"hardware"`     // the file written
	Written      string          `json:"written"`
	Warnings     []string        `json:"warnings"`
}

type classFitJSON struct {
	Class    string             `json:"class"`
	Kernels  int                `json:"kernels"`
	Kept     bool               `json:"kept_base"` // fewer than calibrate.MinClassKernels kernels
	Before   hw.ClassEfficiency `json:"before"`
	After    hw.ClassEfficiency `json:"after"`
	MAPE     [2]float64         `json:"mape_pct"`      // before, after
	SumError [2]float64         `json:"sum_error_pct"` // before, after
}

type hostParamJSON struct {
	Name   string  `json:"name"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
}

// newCalibrateJSON describes fit r, written to file, from the measurement
// lines and warnings.
func newCalibrateJSON(r *calibrate.Result, file string, lines, warnings []string) *calibrateJSON {
	j := &calibrateJSON{Measurements: append([]string{}, lines...), Classes: []classFitJSON{}, Host: []hostParamJSON{},
		Runs: r.Runs, RunMAPE: [2]float64{r.RunMAPEBefore, r.RunMAPEAfter}, Hardware: r.HW, Written: file, Warnings: append([]string{}, warnings...)}
	for _, c := range r.Classes {
		j.Classes = append(j.Classes, classFitJSON{Class: c.Class, Kernels: c.N, Kept: c.Kept, Before: c.Before, After: c.After,
			MAPE: [2]float64{c.MAPEBefore, c.MAPEAfter}, SumError: [2]float64{c.SumErrBefore, c.SumErrAfter}})
	}
	for _, h := range r.Host {
		j.Host = append(j.Host, hostParamJSON{Name: h.Name, Before: h.Before, After: h.After})
	}
	return j
}
