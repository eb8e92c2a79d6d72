package calibrate

// This file is the report of a fit from measurements (calibrate
// --ort-profile, --torch-trace, --table --format json): the fit a script
// reads besides the hardware file it wrote.

import "github.com/wolong-dev/wolong/simulate/hw"

// Report is a fit as calibrate --format json prints it.
type Report struct {
	Measurements []string      `json:"measurements"` // one line per file: what was used from it
	Classes      []ClassReport `json:"classes"`
	Host         []HostReport  `json:"host"` // empty when no end-to-end runs were fitted
	Runs         int           `json:"runs"`
	RunMAPE      [2]float64    `json:"run_mape_pct"` // before, after
	Hardware     *hw.Hardware  `json:"hardware"`     // the file written
	Written      string        `json:"written"`
	Warnings     []string      `json:"warnings"`
}

// ClassReport is one op class of a Report.
type ClassReport struct {
	Class    string             `json:"class"`
	Kernels  int                `json:"kernels"`
	Kept     bool               `json:"kept_base"` // fewer than MinClassKernels kernels
	Before   hw.ClassEfficiency `json:"before"`
	After    hw.ClassEfficiency `json:"after"`
	MAPE     [2]float64         `json:"mape_pct"`      // before, after
	SumError [2]float64         `json:"sum_error_pct"` // before, after
}

// HostReport is one host parameter of a Report.
type HostReport struct {
	Name   string  `json:"name"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
}

// NewReport describes fit r, written to file, from the measurement
// lines and warnings.
func NewReport(r *Result, file string, lines, warnings []string) *Report {
	j := &Report{Measurements: append([]string{}, lines...), Classes: []ClassReport{}, Host: []HostReport{},
		Runs: r.Runs, RunMAPE: [2]float64{r.RunMAPEBefore, r.RunMAPEAfter}, Hardware: r.HW, Written: file, Warnings: append([]string{}, warnings...)}
	for _, c := range r.Classes {
		j.Classes = append(j.Classes, ClassReport{Class: c.Class, Kernels: c.N, Kept: c.Kept, Before: c.Before, After: c.After,
			MAPE: [2]float64{c.MAPEBefore, c.MAPEAfter}, SumError: [2]float64{c.SumErrBefore, c.SumErrAfter}})
	}
	for _, h := range r.Host {
		j.Host = append(j.Host, HostReport{Name: h.Name, Before: h.Before, After: h.After})
	}
	return j
}
