package report

// This file implements the what-if panels of cluster and LLM runs
// (profile --cluster --what-if, --set, --hw A,B): the elasticity of the
// total (the step, or a serving run's latency) to each hardware, network,
// host and layout parameter, and the comparison of two GPU presets by
// the causes of the step's breakdown.

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/simulate/whatif"
)

// WhatIfPanel is what --what-if and --set add to a cluster or LLM
// profile's JSON: the sweep (what_if, the single-device fields and row
// shape, with metric naming the total) and the overrides applied.
type WhatIfPanel struct {
	Overrides []string `json:"overrides,omitempty"`
	WhatIf    *WhatIf  `json:"what_if,omitempty"`
}

// ClusterProfileWhatIf is a graph-level cluster profile with its panel.
type ClusterProfileWhatIf struct {
	*ClusterProfile
	WhatIfPanel
}

// LLMProfileWhatIf is an LLM training profile with its panel.
type LLMProfileWhatIf struct {
	*LLMProfile
	WhatIfPanel
}

// ServeProfileWhatIf is an LLM serving profile with its panel.
type ServeProfileWhatIf struct {
	*ServeProfile
	WhatIfPanel
}

// WriteText prints the panel: the overrides and the ranked table.
func (p WhatIfPanel) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	if len(p.Overrides) > 0 {
		fmt.Fprintf(ew, "\nOverrides (--set): %s\n", strings.Join(p.Overrides, "; "))
	}
	wi := p.WhatIf
	if wi == nil {
		return ew.err
	}
	fmt.Fprintf(ew, "\nWhat if (total: %s; each hardware, network and host parameter at -%.0f%% / +%.0f%%, the others as given; ranked by effect):\n",
		wi.Metric, 100*wi.Step, 100*wi.Step)
	writeRows(ew, wi.Rows)
	if len(wi.Layout) > 0 {
		fmt.Fprintf(ew, "\nWhat if the layout changed (each parallel degree or batch at its neighbouring valid values, the others as given; ranked by effect):\n")
		writeRows(ew, wi.Layout)
	}
	fmt.Fprintln(ew, "  elasticity: d ln(total) / d ln(parameter) between low and high; -1 means the total is inversely proportional to it, 0 that it does not matter")
	return ew.err
}

// writeRows prints what-if rows: each parameter's value, the two sides
// and their totals (and, serving, tokens/s).
func writeRows(ew *errWriter, rs []whatif.Row) {
	serve := len(rs) > 0 && rs[0].MinusServe != nil
	header := []string{"#", "parameter", "value", "low", "total at low", "high", "total at high", "elasticity", "fields / note"}
	if serve {
		header = append(header[:7:7], "tok/s at low", "tok/s at high", "elasticity", "fields / note")
	}
	var rows [][]string
	for i, r := range rs {
		row := []string{fmt.Sprint(i + 1), r.Param, fmt.Sprintf("%.4g", r.Value), sideValue(r.MinusValue, r.Value), Millis(r.MinusMs / 1e3),
			sideValue(r.PlusValue, r.Value), Millis(r.PlusMs / 1e3)}
		if serve && r.MinusServe != nil && r.PlusServe != nil {
			row = append(row, fmt.Sprintf("%.0f", r.MinusServe.TokensPerS), fmt.Sprintf("%.0f", r.PlusServe.TokensPerS))
		}
		note := r.Fields
		if r.Note != "" {
			note += "; " + r.Note
		}
		rows = append(rows, append(row, fmt.Sprintf("%+.2f", r.Elasticity), note))
	}
	last := len(header) - 1
	ew.check(TextTable{Header: header, Rows: rows, Drop: []int{last, 0}, Prose: []int{last}}.Write(ew))
}

// sideValue formats a side's parameter value ("-" when it stayed at v:
// no valid value on that side).
func sideValue(x, v float64) string {
	if x == v {
		return "-"
	}
	return fmt.Sprintf("%.4g", x)
}

// NewWhatIf is the panel of rows over a total called metric.
func NewWhatIf(metric string, rows []whatif.Row) *WhatIf {
	return &WhatIf{Step: whatif.Step, Metric: metric, Rows: rows}
}

// ClusterComparison is profile --cluster --hw A,B: the two predictions
// (the whole profiles) and the difference of their totals by cause (the
// breakdown's causes, communication by kind and link) or, serving, by
// figure.
type ClusterComparison struct {
	A        any     `json:"a"`
	B        any     `json:"b"`
	AName    string  `json:"a_hw"`
	BName    string  `json:"b_hw"`
	Metric   string  `json:"metric"`
	AMs      float64 `json:"a_ms"`
	BMs      float64 `json:"b_ms"`
	DeltaMs  float64 `json:"delta_ms"` // b - a
	Ratio    float64 `json:"ratio"`    // a / b: B's speedup over A
	ByCause  []Delta `json:"by_cause,omitempty"`
	ByFigure []Delta `json:"by_figure,omitempty"`
	// ByOp is a graph-level run's one-GPU device time per op type (the
	// compute behind the step), largest difference first.
	ByOp []Delta `json:"by_op,omitempty"`
	// Same says what the two runs share (the network, NICs, layout).
	Same string `json:"same"`
	// Top bounds the op rows the text prints (0: all).
	Top int `json:"-"`
}

// causeName names a cause with its detail ("exposed communication: tp
// over nvlink (8 ranks)").
func causeName(c Cause) string {
	if c.Detail == "" {
		return c.Label
	}
	return c.Label + ": " + c.Detail
}

// NewClusterComparison compares the totals aMs and bMs of profiles a and
// b, named by their GPUs, by their breakdowns' causes.
func NewClusterComparison(a, b any, aName, bName, metric string, aMs, bMs float64, aCauses, bCauses []Cause, same string) *ClusterComparison {
	c := &ClusterComparison{A: a, B: b, AName: aName, BName: bName, Metric: metric, AMs: aMs, BMs: bMs, DeltaMs: bMs - aMs, Same: same}
	if bMs > 0 {
		c.Ratio = aMs / bMs
	}
	if aCauses != nil || bCauses != nil {
		c.ByCause = deltas(func(add func(string, float64, bool)) {
			for _, x := range aCauses {
				add(causeName(x), x.Ms, true)
			}
			for _, x := range bCauses {
				add(causeName(x), x.Ms, false)
			}
		})
	}
	return c
}

// ServeFigures are a serving run's figures compared by --hw A,B.
func ServeFigures(p *ServeProfile) []Delta {
	pt := whatif.ServePointOf(p.ServeResult)
	return []Delta{{Name: "time to first token, ms (mean)", AMs: pt.Serve.TTFTMs}, {Name: "time per output token, ms (mean)", AMs: pt.Serve.TPOTMs},
		{Name: "generated tokens/s (cluster)", AMs: pt.Serve.TokensPerS}}
}

// CompareFigures fills c.ByFigure from a's and b's figures (AMs of each).
func (c *ClusterComparison) CompareFigures(a, b []Delta) {
	for i := range a {
		d := Delta{Name: a[i].Name, AMs: a[i].AMs, BMs: b[i].AMs}
		d.DeltaMs = d.BMs - d.AMs
		c.ByFigure = append(c.ByFigure, d)
	}
}

// CompareOps fills c.ByOp from the device time per op type (ms) of a
// and b.
func (c *ClusterComparison) CompareOps(a, b map[string]float64) {
	names := make([]string, 0, len(a))
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	c.ByOp = deltas(func(add func(string, float64, bool)) {
		for _, n := range names {
			add(n, a[n], true)
			add(n, b[n], false)
		}
	})
}

// WriteText prints the totals, the ratio and the difference by cause.
func (c *ClusterComparison) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Total: %s\n%s: %s\n%s: %s\n", c.Metric, c.AName, Millis(c.AMs/1e3), c.BName, Millis(c.BMs/1e3))
	fmt.Fprintf(ew, "%s / %s: %.3fx (%s takes %+.4g ms); both: %s\n", c.AName, c.BName, c.Ratio, c.BName, c.DeltaMs, c.Same)
	// kind: 0 causes (with their share of the difference), 1 op device
	// time, 2 figures (not milliseconds)
	write := func(title, col string, ds []Delta, kind int) {
		if len(ds) == 0 {
			return
		}
		fmt.Fprintf(ew, "\n%s:\n", title)
		header := []string{col, c.AName, c.BName, "difference"}
		if kind == 0 {
			header = append(header, "share of the difference")
		}
		var rows [][]string
		for i, d := range ds {
			if kind == 1 && c.Top > 0 && i == c.Top {
				break
			}
			row := []string{d.Name, fmt.Sprintf("%.4g", d.AMs), fmt.Sprintf("%.4g", d.BMs), fmt.Sprintf("%+.4g", d.DeltaMs)}
			if kind != 2 {
				row = []string{d.Name, Millis(d.AMs / 1e3), Millis(d.BMs / 1e3), Millis(d.DeltaMs / 1e3)}
			}
			if kind == 0 {
				row = append(row, share(math.Abs(d.DeltaMs), math.Abs(c.DeltaMs)))
			}
			rows = append(rows, row)
		}
		ew.check(WriteTable(ew, header, rows))
	}
	write("The difference by cause", "cause", c.ByCause, 0)
	write("The difference by figure", "figure", c.ByFigure, 2)
	write("The one-GPU device time by op type (forward and backward in training; the step also holds host time)", "op", c.ByOp, 1)
	return ew.err
}
