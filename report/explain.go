package report

// This file implements `wolong explain`: pass by pass, each rewrite on one
// line in the TensorRT manner, with node/kernel counts and predicted time
// before and after; and the unified diff of the IR text (--diff).

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// OptHeader opens the reports of an optimization run (optimize, explain
// and explain's HTML page): the model, the hardware, the level and the
// predictions before and after the passes.
type OptHeader struct {
	Model    string     `json:"model"`
	Hardware string     `json:"hardware"`
	Level    int        `json:"level"`
	Baseline OptSummary `json:"baseline"`
	Final    OptSummary `json:"optimized"`
	Speedup  float64    `json:"speedup"`
	// The breakdowns of the baseline's and the optimized model's total_ms
	// into causes, and their error bands (SetWhy; absent where the
	// prediction was not kept). Beside the summaries, which stay objects
	// of numbers.
	BaselineBreakdown  []Cause    `json:"baseline_breakdown,omitempty"`
	BaselineErrorBand  *ErrorBand `json:"baseline_error_band,omitempty"`
	OptimizedBreakdown []Cause    `json:"optimized_breakdown,omitempty"`
	OptimizedErrorBand *ErrorBand `json:"optimized_error_band,omitempty"`
	// Missed are the candidates the fusion and batching passes refused,
	// largest predicted gain first (missed.go).
	Missed []Missed `json:"missed"`
	// ShowMissed prints the missed opportunities as a table (--missed)
	// instead of one line.
	ShowMissed bool `json:"-"`
	// ExpectedError is the optimized prediction's expected error from a
	// calibrated hardware file that records one (nil otherwise).
	ExpectedError *ExpectedError `json:"expected_error,omitempty"`
}

// SetExpectedError states the optimized prediction's expected error from
// h (nothing when h records none).
func (o *OptHeader) SetExpectedError(h *hw.Hardware) {
	o.ExpectedError = expectedError(h, o.Final.TotalMs)
}

func newOptHeader(path, hardware string, res *optimize.Result) OptHeader {
	return OptHeader{Model: path, Hardware: hardware, Level: res.Level, Baseline: Summary(res.Baseline),
		Final: Summary(res.Final), Speedup: res.Speedup(), Missed: NewMissed(res, "")}
}

// PassDelta is a pass as explain and its HTML page show it: its
// rewrites, one line each, and the predictions before and after it.
type PassDelta struct {
	Name     string              `json:"name"`
	Rewrites []string            `json:"rewrites"`
	Before   optimize.Prediction `json:"before"`
	After    optimize.Prediction `json:"after"`
	DeltaMs  float64             `json:"delta_ms"`
}

func newPassDelta(p *optimize.PassResult) PassDelta {
	d := PassDelta{Name: p.Name, Rewrites: []string{}, Before: p.Before, After: p.After, DeltaMs: p.DeltaMs()}
	for _, r := range p.Rewrites {
		d.Rewrites = append(d.Rewrites, RewriteLine(r))
	}
	return d
}

// ExplainPass is one pass in the explain report.
type ExplainPass struct {
	PassDelta
	// WallMs is the pass's own running time (not a prediction).
	WallMs float64 `json:"wall_ms"`
	// Unchanged: the pass left the model as it found it (the same graph
	// hash before and after).
	Unchanged bool   `json:"unchanged,omitempty"`
	Diff      string `json:"diff,omitempty"`
}

// Explain is what `wolong explain` prints.
type Explain struct {
	OptHeader
	// Runtime states which runtime the predictions assume (its host
	// costs and load-time fusion; hw.Runtime.Describe).
	Runtime  string        `json:"runtime"`
	Passes   []ExplainPass `json:"passes"`
	Warnings []string      `json:"warnings"`
}

// maxRewriteItems is how many node names one rewrite line lists.
const maxRewriteItems = 8

// RewriteLine prints a rewrite on one line, eliding long node lists:
// "Conv_3 + Relu_4 -> fused_conv_0  (remark)".
func RewriteLine(r optimize.Rewrite) string {
	short := r
	if len(r.Before) > maxRewriteItems {
		short.Before = append(append([]string(nil), r.Before[:maxRewriteItems-2]...), fmt.Sprintf("... (%d more)", len(r.Before)-maxRewriteItems+3), r.Before[len(r.Before)-1])
	}
	if len(r.After) > maxRewriteItems {
		short.After = append(append([]string(nil), r.After[:maxRewriteItems-1]...), fmt.Sprintf("... (%d more)", len(r.After)-maxRewriteItems+1))
	}
	return short.String()
}

// NewExplain builds the report; focus, when not empty, keeps only that
// pass; diffs maps a pass name to its IR diff (may be nil); warnings are
// the import, inference and hardware messages.
func NewExplain(path, hardware string, res *optimize.Result, focus string, diffs map[string]string, warnings []string) *Explain {
	e := &Explain{OptHeader: newOptHeader(path, hardware, res), Passes: []ExplainPass{}, Warnings: append([]string{}, warnings...)}
	e.FilterMissed(focus)
	for i := range res.Passes {
		p := &res.Passes[i]
		if focus != "" && p.Name != focus {
			continue
		}
		e.Passes = append(e.Passes, ExplainPass{PassDelta: newPassDelta(p),
			WallMs: float64(p.Elapsed) / float64(time.Millisecond), Unchanged: p.Unchanged, Diff: diffs[p.Name]})
	}
	return e
}

// WriteText prints one block per pass.
func (e *Explain) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "model %s on %s at -O%d: %s / %s / %s -> %s / %s / %s (%.2fx)\n",
		e.Model, e.Hardware, e.Level, Count(e.Baseline.Nodes, "node"), Count(e.Baseline.Kernels, "kernel"), ms(e.Baseline.TotalMs),
		Count(e.Final.Nodes, "node"), Count(e.Final.Kernels, "kernel"), ms(e.Final.TotalMs), e.Speedup)
	if e.Runtime != "" {
		fmt.Fprintf(w, "%s\n", e.Runtime)
	}
	e.writeWhy(&errWriter{w: w})
	for _, p := range e.Passes {
		ran := "ran " + wallMs(p.WallMs)
		switch {
		case p.Unchanged && len(p.Rewrites) == 0:
			fmt.Fprintf(w, "\n== %s: unchanged (%s)\n", p.Name, ran)
			continue
		case len(p.Rewrites) == 0 && p.Diff == "":
			fmt.Fprintf(w, "\n== %s: no rewrite (%s)\n", p.Name, ran)
			continue
		}
		fmt.Fprintf(w, "\n== %s: %d rewrite(s); nodes %d -> %d, kernels %d -> %d, predicted %s -> %s (%s); %s\n",
			p.Name, len(p.Rewrites), p.Before.Nodes, p.After.Nodes, p.Before.Kernels, p.After.Kernels,
			ms(p.Before.TotalMs), ms(p.After.TotalMs), signedMs(-p.DeltaMs), ran)
		for _, r := range p.Rewrites {
			fmt.Fprintf(w, "  %s\n", r)
		}
		if p.Diff != "" {
			io.WriteString(Unfit(w), p.Diff)
		}
	}
	ew := &errWriter{w: w}
	e.writeMissed(ew)
	return ew.err
}

// wallMs formats a measured running time with three significant digits
// or more: "0.005 ms", "0.412 ms", "4.12 ms", "41.2 ms", "1250 ms".
func wallMs(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	case v >= 1:
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%.3f ms", v)
}

// maxDiffCells bounds the LCS table of UnifiedDiff; larger inputs fall
// back to one hunk that replaces the differing middle.
const maxDiffCells = 40_000_000

// UnifiedDiff returns a unified diff (3 lines of context) of a and b, or
// "" when they are equal.
func UnifiedDiff(a, b, fromName, toName string) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	// Common prefix and suffix.
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	xm, ym := x[pre:len(x)-suf], y[pre:len(y)-suf]
	type op struct {
		kind byte // ' ', '-', '+'
		line string
	}
	var ops []op
	for _, l := range x[:pre] {
		ops = append(ops, op{' ', l})
	}
	if int64(len(xm)+1)*int64(len(ym)+1) <= maxDiffCells {
		n, m := len(xm), len(ym)
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if xm[i] == ym[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && xm[i] == ym[j]:
				ops = append(ops, op{' ', xm[i]})
				i++
				j++
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, op{'-', xm[i]})
				i++
			default:
				ops = append(ops, op{'+', ym[j]})
				j++
			}
		}
	} else {
		for _, l := range xm {
			ops = append(ops, op{'-', l})
		}
		for _, l := range ym {
			ops = append(ops, op{'+', l})
		}
	}
	for _, l := range x[len(x)-suf:] {
		ops = append(ops, op{' ', l})
	}
	// Hunks with 3 lines of context.
	const ctx = 3
	var b2 strings.Builder
	fmt.Fprintf(&b2, "--- %s\n+++ %s\n", fromName, toName)
	k := 0
	for k < len(ops) {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*ctx || run == len(ops) {
				end = min(len(ops), end+ctx)
				break
			}
			end = run
		}
		// Line numbers of the hunk.
		ai, bi := 1, 1
		for _, o := range ops[:start] {
			if o.kind != '+' {
				ai++
			}
			if o.kind != '-' {
				bi++
			}
		}
		var al, bl int
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				al++
			}
			if o.kind != '-' {
				bl++
			}
		}
		fmt.Fprintf(&b2, "@@ -%d,%d +%d,%d @@\n", ai, al, bi, bl)
		for _, o := range ops[start:end] {
			b2.WriteByte(o.kind)
			b2.WriteString(o.line)
			b2.WriteByte('\n')
		}
		k = end
	}
	return b2.String()
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
