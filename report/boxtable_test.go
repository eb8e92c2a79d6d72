package report

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// tablewriterTable is how wolong drew tables until issue 25 (tablewriter
// v1.1.5), the reference renderTable must match byte for byte.
func tablewriterTable(header []string, rows [][]string) string {
	var b bytes.Buffer
	t := tablewriter.NewTable(&b, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithHeaderAlignment(tw.AlignLeft))
	any := func(ss []string) []any {
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		return out
	}
	t.Header(any(header)...)
	for _, r := range rows {
		t.Append(any(r)...)
	}
	t.Render()
	return b.String()
}

// TestTableMatchesTablewriter: random tables of the cells wolong's
// reports hold (numbers, units, names, padded and empty cells, multi-line
// cells from fitting, tabs, accents, CJK) render as tablewriter drew them.
func TestTableMatchesTablewriter(t *testing.T) {
	t.Setenv("LANG", "C.UTF-8") // tablewriter's own width follows the locale; ours is always narrow
	words := []string{"", "x", "3038", "0.766 ms", "  padded ", "two\nlines", "a\tb", "é", "中文", "Conv_12", "12.5 µs", "─", "+0.0000 ms", "long cell with words", "a\n\nb", " \n x"}
	r := rand.New(rand.NewSource(1))
	pick := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[r.Intn(len(words))]
		}
		return out
	}
	for i := range 1000 {
		cols := 1 + r.Intn(4)
		var header []string
		if i%5 != 0 {
			header = pick(cols)
			for k := range header { // headers are column names: never empty
				if strings.TrimSpace(header[k]) == "" {
					header[k] = "h"
				}
			}
		}
		var rows [][]string
		for range r.Intn(4) {
			rows = append(rows, pick(cols))
		}
		if header == nil && len(rows) == 0 {
			continue
		}
		var b bytes.Buffer
		if err := renderTable(&b, header, rows); err != nil {
			t.Fatal(err)
		}
		if want := tablewriterTable(header, rows); b.String() != want {
			t.Fatalf("header %q rows %q:\n%s\ntablewriter:\n%s", header, rows, b.String(), want)
		}
	}
}
