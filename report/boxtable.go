package report

// This file draws the bordered text tables of the table format. It
// replaces olekukonko/tablewriter, whose package initialisation (an East
// Asian locale probe, a regexp, an LRU cache: ~2-3 ms and 0.6 MB before
// main on every command, --help included) cost more than drawing the
// tables does; the output is byte for byte what tablewriter v1.1.5 wrote
// with the options wolong used (header as given, left-aligned; cells
// trimmed, tabs as four spaces, multi-line cells on several lines, blank
// lines left out), as
// TestTableMatchesTablewriter checks, except that widths are always
// measured narrow: tablewriter measured East Asian ambiguous runes
// (─ × µ ...) as two columns under a CJK locale, while the fitting to the
// terminal (fit.go) counts them as one.

import (
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
)

// narrow measures display widths as a non-CJK terminal shows them.
var narrow = &runewidth.Condition{EastAsianWidth: false}

// renderTable renders rows under a header as a bordered text table, as
// given. Header names are printed as given (no upper-casing); no header
// (nil) draws the rows alone.
func renderTable(w io.Writer, header []string, rows [][]string) error {
	cols := len(header)
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return nil
	}
	lines := func(r []string) [][]string { // cells split into lines
		out := make([][]string, cols)
		for i := range out {
			s := ""
			if i < len(r) {
				s = r[i]
			}
			out[i] = cellLines(s)
		}
		return out
	}
	var body [][][]string
	var head [][]string
	if len(header) > 0 {
		head = lines(header)
	}
	for _, r := range rows {
		body = append(body, lines(r))
	}
	widths := make([]int, cols)
	for _, r := range append([][][]string{head}, body...) {
		for i, c := range r {
			for _, l := range c {
				widths[i] = max(widths[i], narrow.StringWidth(l))
			}
		}
	}
	var b strings.Builder
	rule := func(l, m, r string) {
		b.WriteString(l)
		for i, wd := range widths {
			if i > 0 {
				b.WriteString(m)
			}
			b.WriteString(strings.Repeat("─", wd+2))
		}
		b.WriteString(r + "\n")
	}
	row := func(r [][]string, isHeader bool) {
		n := 1
		for _, c := range r {
			n = max(n, len(c))
		}
		drawn := 0
		for k := 0; k < n; k++ {
			blank := true
			for _, c := range r {
				blank = blank && (k >= len(c) || c[k] == "")
			}
			if blank && !isHeader && (drawn > 0 || k < n-1) {
				continue // tablewriter leaves out a row's line blank in every cell (all but the last of a blank row)
			}
			drawn++
			b.WriteString("│")
			for i, c := range r {
				l := ""
				if k < len(c) {
					l = c[k]
				}
				b.WriteString(" " + l + strings.Repeat(" ", widths[i]-narrow.StringWidth(l)) + " │")
			}
			b.WriteString("\n")
		}
	}
	rule("┌", "┬", "┐")
	if head != nil {
		row(head, true)
		if len(body) > 0 {
			rule("├", "┼", "┤")
		}
	}
	for _, r := range body {
		row(r, false)
	}
	rule("└", "┴", "┘")
	_, err := io.WriteString(w, b.String())
	return err
}

// cellLines is a cell as tablewriter laid it out: tabs as four spaces,
// trimmed, split at newlines, each line trimmed.
func cellLines(s string) []string {
	ls := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\t", "    ")), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSpace(l)
	}
	return ls
}
