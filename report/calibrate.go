package report

// This file is calibrate's text report: the fit from measurements (per
// kernel, or direct to unprofiled runs) and the fit of calibrate --host.
// Their JSON forms are calibrate.Report and host.Report.

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/calibrate/host"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// WriteLines writes each line of lines (calibrate's "what was used from
// each file", printed as each is read).
func WriteLines(w io.Writer, lines ...string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// Calibration is a fit from measurements as calibrate prints it.
type Calibration struct {
	Result *calibrate.Result
	// Base and Direct are set for a direct fit (calibrate.FitDirect): the
	// base hardware and the end-to-end summary; Direct nil: per kernel.
	Base    *hw.Hardware
	Direct  *calibrate.DirectSummary
	Written string // the hardware file written
}

// WriteText writes the fit's parameters and errors and the file written.
func (c *Calibration) WriteText(w io.Writer) error {
	if c.Direct != nil {
		c.writeDirect(w)
	} else {
		c.writeFit(w)
	}
	_, err := fmt.Fprintf(w, "wrote %s (use it with --hw %s)\n", c.Written, c.Written)
	return err
}

func (c *Calibration) writeFit(w io.Writer) {
	r := c.Result
	fmt.Fprintf(w, "\nfit of %s (compute / memory fraction of peak, overhead us; kernel error: mean |%%| and %% of the class's summed time)\n", r.HW.Name)
	fmt.Fprintf(w, "%-14s %6s  %-22s %-22s %16s %16s\n", "class", "kernels", "before", "after", "MAPE before>after", "sum err before>after")
	for _, c := range r.Classes {
		fmt.Fprintf(w, "%-14s %6d  %-22s %-22s %7.1f%% > %5.1f%% %+7.1f%% > %+6.1f%%\n", c.Class, c.N,
			fmt.Sprintf("%.4g / %.4g / %.3g", c.Before.Compute, c.Before.Memory, c.Before.OverheadUs),
			fmt.Sprintf("%.4g / %.4g / %.3g", c.After.Compute, c.After.Memory, c.After.OverheadUs),
			c.MAPEBefore, c.MAPEAfter, c.SumErrBefore, c.SumErrAfter)
		if c.Kept {
			fmt.Fprintf(w, "%-14s kept the base parameters: fewer than %d kernels to fit\n", "", calibrate.MinClassKernels)
		}
	}
	if r.Runs > 0 {
		var ps []string
		for _, p := range r.Host {
			ps = append(ps, fmt.Sprintf("%s %.4g > %.4g", p.Name, p.Before, p.After))
		}
		fmt.Fprintf(w, "host: %s, fitted to %d end-to-end runs (MAPE %.1f%% > %.1f%%)\n",
			strings.Join(ps, ", "), r.Runs, r.RunMAPEBefore, r.RunMAPEAfter)
	}
}

func (c *Calibration) writeDirect(w io.Writer) {
	r, sum := c.Result, c.Direct
	fmt.Fprintf(w, "\nfit of %s to %d unprofiled runs (direct): end-to-end MAPE %.1f%% with %s, %.1f%% fitted\n", r.HW.Name, r.Runs, sum.MAPEBefore, c.Base.Name, sum.MAPEAfter)
	var hp []string
	for _, p := range r.Host {
		hp = append(hp, fmt.Sprintf("%s %.4g > %.4g", p.Name, p.Before, p.After))
	}
	fmt.Fprintf(w, "host: %s\n", strings.Join(hp, ", "))
	for _, e := range sum.Worst {
		fmt.Fprintf(w, "  largest error: %s: measured %.4g ms, fitted %.4g ms (%+.1f%%)\n", e.Label, e.MeasuredUs/1e3, e.PredictedUs/1e3, e.Pct())
	}
	fmt.Fprintf(w, "%d op types with efficiencies of their own\n", len(r.Ops))
}

// HostCalibration is calibrate --host's fit as it prints it.
type HostCalibration struct {
	Result  *host.Result
	Threads []int          // the thread count of each fit
	Written map[int]string // -o's file per thread count
	// SavedIn is the user's hardware folder the fits were saved in
	// ("": not saved, --no-save).
	SavedIn string
}

// WriteText writes each thread count's fit: its end-to-end error per
// group of models, host parameters, noise and files.
func (h *HostCalibration) WriteText(w io.Writer) error {
	res := h.Result
	for i, f := range res.Fits {
		t := h.Threads[i]
		fmt.Fprintf(w, "%s: %s\n", f.HW.Name, f.HW.Fitted.Describe())
		rows := [][]string{}
		for _, g := range host.GroupErrors(f.Models) {
			held, fit := "-", "-"
			if g.NHeld > 0 {
				held = fmt.Sprintf("%.1f%% (%d)", g.HeldMAPE, g.NHeld)
			}
			if g.N > 0 {
				fit = fmt.Sprintf("%.1f%% (%d)", g.FitMAPE, g.N)
			}
			rows = append(rows, []string{g.Group, fit, held})
		}
		fmt.Fprintf(w, "\nend-to-end error by group, %d thread(s) (MAPE, models):\n", t)
		WriteTable(w, []string{"group", "fitted on", "held out"}, rows)
		var hp []string
		for _, p := range f.Calib.Host {
			hp = append(hp, fmt.Sprintf("%s %.4g", p.Name, p.After))
		}
		hostLine := strings.Join(hp, ", ")
		if hostLine == "" {
			hostLine = "kept from the one-thread fit"
		}
		fmt.Fprintf(w, "host: %s; memory %.4g GB/s, cache %.4g GB/s (L2 %.3g MB); %d op types with efficiencies of their own\n",
			hostLine, f.HW.MemoryBandwidthGBs, f.HW.CacheBandwidthGBs, f.HW.L2MB, len(f.HW.Efficiency.Ops))
		fmt.Fprintf(w, "fit: %.1f%% MAPE on the %d models fitted on, %.1f%% on the %d held out\n", f.TrainMAPE, host.Count(f.Models, false), f.HeldMAPE, host.Count(f.Models, true))
		fmt.Fprintf(w, "machine noise: a model's two measuring passes differ by %.1f%% (median, beyond the shift all models share); %d models by more than 10%%\n", f.NoisePct, f.NoisyModels)
		if p := h.Written[t]; p != "" {
			fmt.Fprintf(w, "wrote %s (use it with --hw %s)\n", p, p)
		}
		if h.SavedIn != "" {
			fmt.Fprintf(w, "saved %s (use it with --hw %s)\n", filepath.Join(h.SavedIn, f.HW.Name+".json"), f.HW.Name)
		}
		if i < len(res.Fits)-1 {
			fmt.Fprintln(w)
		}
	}
	if res.Dir != "" {
		fmt.Fprintf(w, "models and measurements kept in %s (refit them with --from %s)\n", res.Dir, res.Dir)
	}
	return nil
}
