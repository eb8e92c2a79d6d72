package report

// This file implements what every prediction says about itself beside its
// total (issue 31): the breakdown of the time into named causes that add
// up to it, and the error band from the evidence behind the hardware.

import (
	"fmt"
	"math"
	"strings"

	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/band"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// Cause is one named part of a prediction's time. The parts of a
// prediction add up to its total (to rounding).
type Cause struct {
	Cause  string  `json:"cause"` // stable key: compute, memory, launch_host, dependency_wait, framework, communication, pipeline_bubble, recompute, other
	Label  string  `json:"label"` // in words
	Detail string  `json:"detail,omitempty"`
	Ms     float64 `json:"ms"`
	Pct    float64 `json:"pct"` // fraction of the total, 0..1
}

// ErrorBand is how sure a prediction is: the figure is within ±Pct by the
// evidence Source names (a typical error, not a bound).
type ErrorBand struct {
	Pct    float64 `json:"pct"`
	LoMs   float64 `json:"lo_ms"`
	HiMs   float64 `json:"hi_ms"`
	Cases  int     `json:"cases"`
	Source string  `json:"source"`
}

// NewErrorBand is b around a total of totalMs.
func NewErrorBand(b band.Band, totalMs float64) *ErrorBand {
	return &ErrorBand{Pct: b.Pct, LoMs: totalMs * math.Max(0, 1-b.Pct), HiMs: totalMs * (1 + b.Pct), Cases: b.Cases, Source: b.Source}
}

// String is the band as shown beside its figure: "±14.8% (source)".
func (e *ErrorBand) String() string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf("±%.0f%%", 100*e.Pct)
}

// Causes converts simulate's parts to report causes over totalS.
func Causes(parts []simulate.Part, totalS float64) []Cause {
	out := make([]Cause, 0, len(parts))
	for _, p := range parts {
		c := Cause{Cause: p.Cause, Label: simulate.CauseLabels[p.Cause], Detail: p.Detail, Ms: p.S * 1e3}
		if totalS > 0 {
			c.Pct = p.S / totalS
		}
		out = append(out, c)
	}
	return out
}

// ProfileWhy is what a profile says about its total beyond the figure
// (embedded in Profile: its fields are the profile's own in JSON).
type ProfileWhy struct {
	// Breakdown splits total_ms into named causes that add up to it;
	// ErrorBand is how sure total_ms is, from the evidence behind the
	// hardware.
	Breakdown []Cause    `json:"breakdown"`
	ErrorBand *ErrorBand `json:"error_band"`
	// WhatIf is the --what-if panel; Overrides the --set changes applied
	// to the hardware.
	WhatIf    *WhatIf  `json:"what_if,omitempty"`
	Overrides []string `json:"overrides,omitempty"`
}

// RunWhy is the breakdown and band of a single-device run.
func RunWhy(r *simulate.Result) ([]Cause, *ErrorBand) {
	return WhyOf(r.Why(), r.Hardware)
}

// WhyOf is the breakdown and band of a run kept as w, on h.
func WhyOf(w *simulate.Why, h *hw.Hardware) ([]Cause, *ErrorBand) {
	if w == nil {
		return nil, nil
	}
	return Causes(w.Parts, w.TotalS), NewErrorBand(band.ForRun(h, w.ClassS, w.TotalS*1e3), w.TotalS*1e3)
}

// SetWhy adds the breakdowns and error bands of the baseline and the
// optimized predictions (nil: not predicted).
func (o *OptHeader) SetWhy(base, final *simulate.Why, h *hw.Hardware) {
	o.BaselineBreakdown, o.BaselineErrorBand = WhyOf(base, h)
	o.OptimizedBreakdown, o.OptimizedErrorBand = WhyOf(final, h)
}

// causeLine is the breakdown on one line: "compute-bound kernels 61.2%,
// ...", largest first.
func causeLine(cs []Cause) string {
	idx := make([]int, len(cs))
	for i := range idx {
		idx[i] = i
	}
	for i := 1; i < len(idx); i++ { // insertion sort: a handful of causes
		for j := i; j > 0 && cs[idx[j]].Ms > cs[idx[j-1]].Ms; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	var parts []string
	for _, i := range idx {
		c := cs[i]
		l := c.Label
		if c.Detail != "" {
			l += " (" + c.Detail + ")"
		}
		parts = append(parts, fmt.Sprintf("%s %s", l, Pct(c.Pct)))
	}
	return strings.Join(parts, ", ")
}

// bandNote is the line under a figure naming its band's source.
func bandNote(e *ErrorBand) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf("Error band: ±%.1f%% (%s .. %s): %s", 100*e.Pct, Millis(e.LoMs/1e3), Millis(e.HiMs/1e3), e.Source)
}

// writeWhy prints, in two lines, the optimized prediction's causes and
// the bands of both predictions.
func (o *OptHeader) writeWhy(ew *errWriter) {
	if len(o.OptimizedBreakdown) > 0 {
		fmt.Fprintf(ew, "optimized time by cause: %s\n", causeLine(o.OptimizedBreakdown))
	}
	if b, f := o.BaselineErrorBand, o.OptimizedErrorBand; b != nil && f != nil {
		fmt.Fprintf(ew, "error band: before %s, after %s: %s\n", b, f, f.Source)
	}
}
