package report

// This file implements profile's what-if panels: the elasticity of the
// total to each hardware parameter (--what-if), the overrides applied
// (--set), and the comparison of two presets (--hw a,b).

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/wolong-dev/wolong/simulate/whatif"
)

// WhatIf is the --what-if panel.
type WhatIf struct {
	Step float64 `json:"step"` // relative change of each parameter (0.2)
	// Metric names the total of a cluster or LLM run ("step_ms: ...");
	// empty for a single device (total_ms).
	Metric string       `json:"metric,omitempty"`
	Rows   []whatif.Row `json:"params"`
	// Layout are an LLM run's parallel degrees and batch, each at its
	// neighbouring valid values, ranked among themselves.
	Layout []whatif.Row `json:"layout,omitempty"`
}

// WriteWhatIf prints the what-if table.
func (p *Profile) WriteWhatIf(w io.Writer) error {
	if p.WhatIf == nil {
		return nil
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "\nWhat if (each parameter at -%.0f%% / +%.0f%%, the others as the preset; ranked by effect):\n", 100*p.WhatIf.Step, 100*p.WhatIf.Step)
	var rows [][]string
	for i, r := range p.WhatIf.Rows {
		rows = append(rows, []string{fmt.Sprint(i + 1), r.Param, fmt.Sprintf("%.4g", r.Value), Millis(r.MinusMs / 1e3), Millis(r.PlusMs / 1e3),
			fmt.Sprintf("%+.2f", r.Elasticity), r.Fields})
	}
	ew.check(TextTable{Header: []string{"#", "parameter", "value", "at -20%", "at +20%", "elasticity", "hardware-file fields"}, Rows: rows, Drop: []int{6, 0}, Prose: []int{6}}.Write(ew))
	fmt.Fprintln(ew, "  elasticity: d ln(total) / d ln(parameter); -1 means the total is inversely proportional to it, 0 that it does not matter")
	return ew.err
}

// Delta is one op type's or cause's part of the difference between two
// predictions.
type Delta struct {
	Name    string  `json:"name"`
	AMs     float64 `json:"a_ms"`
	BMs     float64 `json:"b_ms"`
	DeltaMs float64 `json:"delta_ms"` // b - a
}

// Comparison is profile --hw a,b: the two predictions and what makes the
// difference, by cause and by op type (largest first).
type Comparison struct {
	A       *Profile `json:"a"`
	B       *Profile `json:"b"`
	DeltaMs float64  `json:"delta_ms"` // b.total - a.total
	Ratio   float64  `json:"ratio"`    // a.total / b.total: B's speedup over A
	ByCause []Delta  `json:"by_cause"`
	ByOp    []Delta  `json:"by_op"` // device time per op type
}

// NewComparison compares a and b.
func NewComparison(a, b *Profile) *Comparison {
	c := &Comparison{A: a, B: b, DeltaMs: b.TotalMs - a.TotalMs}
	if b.TotalMs > 0 {
		c.Ratio = a.TotalMs / b.TotalMs
	}
	c.ByCause = deltas(func(add func(string, float64, bool)) {
		for _, x := range a.Breakdown {
			add(x.Label, x.Ms, true)
		}
		for _, x := range b.Breakdown {
			add(x.Label, x.Ms, false)
		}
	})
	c.ByOp = deltas(func(add func(string, float64, bool)) {
		for _, x := range a.Ops {
			add(x.Op, x.TimeMs, true)
		}
		for _, x := range b.Ops {
			add(x.Op, x.TimeMs, false)
		}
	})
	return c
}

func deltas(fill func(add func(string, float64, bool))) []Delta {
	idx := map[string]int{}
	var out []Delta
	fill(func(name string, ms float64, isA bool) {
		i, ok := idx[name]
		if !ok {
			i = len(out)
			idx[name] = i
			out = append(out, Delta{Name: name})
		}
		if isA {
			out[i].AMs += ms
		} else {
			out[i].BMs += ms
		}
	})
	for i := range out {
		out[i].DeltaMs = out[i].BMs - out[i].AMs
	}
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].DeltaMs) > math.Abs(out[j].DeltaMs) })
	return out
}

// WriteText prints the comparison: totals, causes and the top op types.
func (c *Comparison) WriteText(w io.Writer, top int) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Model: %s\n", c.A.Model)
	fmt.Fprintf(ew, "%s: %s %s\n%s: %s %s\n", c.A.Hardware, Millis(c.A.TotalMs/1e3), c.A.ErrorBand, c.B.Hardware, Millis(c.B.TotalMs/1e3), c.B.ErrorBand)
	fmt.Fprintf(ew, "%s / %s: %.3fx (%s takes %+.4g ms)\n", c.A.Hardware, c.B.Hardware, c.Ratio, c.B.Hardware, c.DeltaMs)
	write := func(title, col string, ds []Delta) {
		fmt.Fprintf(ew, "\n%s:\n", title)
		var rows [][]string
		for i, d := range ds {
			if top > 0 && i == top {
				break
			}
			rows = append(rows, []string{d.Name, Millis(d.AMs / 1e3), Millis(d.BMs / 1e3), Millis(d.DeltaMs / 1e3)})
		}
		ew.check(WriteTable(ew, []string{col, c.A.Hardware, c.B.Hardware, "difference"}, rows))
	}
	write("The difference by cause", "cause", c.ByCause)
	write("The difference by op type (device time)", "op", c.ByOp)
	return ew.err
}
