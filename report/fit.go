package report

// This file fits text output to a width: tables wrap their long cells and,
// when that is not enough, leave out the columns their writer marked as
// least important (saying so under the table); every other line longer
// than the width is wrapped by the writer itself, continuation lines
// indented under the text (under a "- " item's text for list items). The
// width travels with the io.Writer (FitTo), so every writer that takes an
// io.Writer fits without a new parameter. Width 0 means unlimited: output
// is byte-identical to the unfitted form. Machine-read output (JSON, CSV,
// IR text, diffs) is written to Unfit(w), never wrapped.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// fitWriter is an io.Writer that carries the width its text must fit and
// wraps the lines written to it that are longer (tables excepted: they
// are fitted whole by TextTable). It holds back a line until its end: Flush
// writes what remains.
type fitWriter struct {
	w     io.Writer
	width int
	buf   []byte
}

func (f *fitWriter) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	for {
		i := bytes.IndexByte(f.buf, '\n')
		if i < 0 {
			break
		}
		line := fitLine(string(f.buf[:i]), f.width)
		f.buf = f.buf[i+1:]
		if _, err := io.WriteString(f.w, line+"\n"); err != nil {
			return len(p), err
		}
	}
	if len(f.buf) == 0 {
		f.buf = nil // release what the lines held
	}
	return len(p), nil
}

// Flush writes a last line that has no line break.
func (f *fitWriter) Flush() error {
	if len(f.buf) == 0 {
		return nil
	}
	line := fitLine(string(f.buf), f.width)
	f.buf = nil
	_, err := io.WriteString(f.w, line)
	return err
}

// FitTo returns w carrying width (in columns) for the text written to it;
// width <= 0 returns w unchanged (no limit). Call Flush(w) when done.
func FitTo(w io.Writer, width int) io.Writer {
	if width <= 0 {
		return w
	}
	return &fitWriter{w: w, width: width}
}

// Flush writes what a writer from FitTo holds back (a last line without
// a line break); other writers have nothing to flush.
func Flush(w io.Writer) error {
	if f, ok := w.(*fitWriter); ok {
		return f.Flush()
	}
	return nil
}

// Buffered returns w with its writes to the underlying writer held in a
// buffer until flush: a report written a line at a time to stdout is a
// write call a line (explain of a 100k-node model: 90k calls and ~0.1-0.2
// s of a run's wall, profile's text 10k). A writer from FitTo keeps
// fitting: the buffer goes under it (Unfit still reaches past the
// fitting), and flush gives it back its writer. Nothing is written
// through w's own writer between Buffered and flush but through the
// writer returned.
func Buffered(w io.Writer) (io.Writer, func() error) {
	if f, ok := w.(*fitWriter); ok {
		inner := f.w
		bw := bufio.NewWriterSize(inner, 64<<10)
		f.w = bw
		return f, func() error {
			err := bw.Flush()
			f.w = inner
			return err
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	return bw, bw.Flush
}

// Unfit returns the writer under FitTo's (and report's own wrappers): for
// output no one reads as lines on a terminal (JSON, CSV, IR text, diffs).
func Unfit(w io.Writer) io.Writer {
	switch x := w.(type) {
	case *fitWriter:
		x.Flush()
		return x.w
	case *errWriter:
		return Unfit(x.w)
	}
	return w
}

// tableRunes are the box-drawing characters of a table's lines, which
// fitLine leaves alone.
const tableRunes = "│┌└├─"

// fitLine wraps one line to width: continuation lines are indented as
// the line is, plus two, or under the text of a "- " list item.
func fitLine(line string, width int) string {
	if textWidth(line) <= width || strings.ContainsAny(line, tableRunes) {
		return line
	}
	text := strings.TrimLeft(line, " ")
	indent := len(line) - len(text)
	hang := indent + 2
	if width-hang < 20 {
		return line
	}
	wrapped := wrapPara(text, width-indent, width-hang)
	pad := strings.Repeat(" ", hang)
	for i := range wrapped {
		if i == 0 {
			wrapped[i] = line[:indent] + wrapped[i]
		} else {
			wrapped[i] = pad + wrapped[i]
		}
	}
	return strings.Join(wrapped, "\n")
}

// widthOf is the width w carries (0: unlimited), looking through the
// writers report wraps around it.
func widthOf(w io.Writer) int {
	switch x := w.(type) {
	case *fitWriter:
		return x.width
	case *errWriter:
		return widthOf(x.w)
	}
	return 0
}

// textWidth is the number of columns s takes (one per rune: the tables
// hold ASCII, box drawing and the odd accented name).
func textWidth(s string) int { return utf8.RuneCountInString(s) }

// keepWords is the longest word wrapping keeps whole while another choice
// remains (dropping a column); after that, words are cut at minColumn,
// and at last anywhere.
const (
	keepWords = 24
	minColumn = 6
	// shortCell: while a column may still be dropped, no cell this short
	// is wrapped ("0.766 ms" stays on one line; headers may wrap).
	shortCell = 16
)

// TextTable is a text table. Drop lists columns (by index) that may be left
// out, least important first, when the table does not fit the writer's
// width even with its cells wrapped. Prose lists columns of running text
// (descriptions, notes): while a Drop column remains, a fit that leaves
// one of them narrower than proseWidth counts as not fitting.
type TextTable struct {
	Header []string
	Rows   [][]string
	Drop   []int
	Prose  []int
}

// proseWidth is the width a prose column gets before the optional
// columns are given up for it.
const proseWidth = 28

// Write renders the table to w, fitted to w's width (FitTo): long cells
// are wrapped at spaces (words longer than their column are cut), and
// columns in Drop are left out, in order, while it still does not fit,
// with a line under the table naming them.
func (t TextTable) Write(w io.Writer) error {
	header, rows, hidden := t.fit(widthOf(w))
	if err := renderTable(w, header, rows); err != nil {
		return err
	}
	if len(hidden) > 0 {
		_, err := fmt.Fprintf(w, "(%s not shown at %d columns; --wide shows all)\n", strings.Join(hidden, ", "), widthOf(w))
		return err
	}
	return nil
}

// fit returns the header and rows wrapped (and columns dropped) to fit
// width, and the names of the columns dropped.
func (t TextTable) fit(width int) ([]string, [][]string, []string) {
	header, rows := t.Header, t.Rows
	if width <= 0 || tableWidth(naturalWidths(header, rows)) <= width {
		return header, rows, nil
	}
	keep := make([]bool, len(header))
	for i := range keep {
		keep[i] = true
	}
	var hidden []string
	for _, d := range t.Drop {
		h, r := selectColumns(header, rows, keep)
		if widths, ok := fitWidths(h, r, width, -1); ok && t.roomy(widths, keep, r) {
			return wrapCells(h, widths), wrapRows(r, widths), hidden
		}
		if d >= 0 && d < len(keep) && keep[d] {
			keep[d] = false
			hidden = append(hidden, header[d])
		}
	}
	h, r := selectColumns(header, rows, keep)
	widths, ok := fitWidths(h, r, width, keepWords)
	if !ok {
		if widths, ok = fitWidths(h, r, width, minColumn); !ok {
			widths, _ = fitWidths(h, r, width, 1)
		}
	}
	return wrapCells(h, widths), wrapRows(r, widths), hidden
}

// roomy reports whether widths (of the kept columns) leave every prose
// column at least proseWidth wide, or its natural width if less.
func (t TextTable) roomy(widths []int, keep []bool, rows [][]string) bool {
	nat := naturalWidths(selectColumns(t.Header, nil, keep))
	for _, p := range t.Prose {
		if p < 0 || p >= len(keep) || !keep[p] {
			continue
		}
		k := 0 // p's position among the kept columns
		for i := 0; i < p; i++ {
			if keep[i] {
				k++
			}
		}
		natural := 0
		for _, r := range rows {
			if k < len(r) {
				natural = max(natural, textWidth(r[k]))
			}
		}
		if widths[k] < min(proseWidth, max(natural, nat[k])) {
			return false
		}
	}
	return true
}

// tableWidth is the printed width of a table with these column widths:
// one space of padding on each side of a cell and a border between and
// around cells.
func tableWidth(widths []int) int {
	total := 1
	for _, w := range widths {
		total += w + 3
	}
	return total
}

// naturalWidths is each column's width unwrapped (its longest line).
func naturalWidths(header []string, rows [][]string) []int {
	widths := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i := 0; i < len(widths) && i < len(r); i++ {
			for _, line := range strings.Split(r[i], "\n") {
				widths[i] = max(widths[i], textWidth(line))
			}
		}
	}
	return widths
}

// longestWord is the widest piece a column's cells break into.
func longestWord(header string, cells []string) int {
	n := 0
	for _, c := range append([]string{header}, cells...) {
		for _, word := range words(c) {
			n = max(n, textWidth(strings.TrimRight(word, " ")))
		}
	}
	return n
}

// fitWidths chooses column widths that fit width: every column gets at
// most its natural width and at least its longest word (or wordCap when
// a word is longer: such words are cut), and the widest columns give way
// first. wordCap -1 is the strict choice made while columns may still be
// dropped: words up to keepWords stay whole and columns whose cells are
// all shortCell or less keep them on one line. ok is false when even
// those minimums do not fit.
func fitWidths(header []string, rows [][]string, width, wordCap int) ([]int, bool) {
	nat := naturalWidths(header, rows)
	cells := naturalWidths(make([]string, len(header)), rows)
	lo := make([]int, len(nat))
	for i := range nat {
		col := make([]string, 0, len(rows))
		for _, r := range rows {
			if i < len(r) {
				col = append(col, r[i])
			}
		}
		word := longestWord(header[i], col)
		switch {
		case wordCap >= 0:
			lo[i] = min(nat[i], word, wordCap)
		case cells[i] <= shortCell:
			lo[i] = min(nat[i], max(cells[i], longestWord(header[i], nil)))
		default:
			lo[i] = min(nat[i], word, keepWords)
		}
	}
	at := func(c int) []int {
		w := make([]int, len(nat))
		for i := range nat {
			w[i] = min(nat[i], max(lo[i], c))
		}
		return w
	}
	if tableWidth(lo) > width {
		return lo, false
	}
	// the largest cap whose widths fit, then the spare columns to the
	// columns the cap cut, left to right
	c := 0
	for tableWidth(at(c+1)) <= width && c < 1<<16 {
		c++
	}
	w := at(c)
	for spare := width - tableWidth(w); spare > 0; {
		grew := false
		for i := range w {
			if spare > 0 && w[i] < nat[i] {
				w[i]++
				spare--
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	return w, true
}

// selectColumns returns the header and rows without the columns keep
// says to leave out.
func selectColumns(header []string, rows [][]string, keep []bool) ([]string, [][]string) {
	pick := func(r []string) []string {
		var out []string
		for i, c := range r {
			if i >= len(keep) || keep[i] {
				out = append(out, c)
			}
		}
		return out
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = pick(r)
	}
	return pick(header), out
}

func wrapCells(r []string, widths []int) []string {
	out := make([]string, len(r))
	for i, c := range r {
		out[i] = c
		if i < len(widths) {
			out[i] = Wrap(c, widths[i])
		}
	}
	return out
}

func wrapRows(rows [][]string, widths []int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = wrapCells(r, widths)
	}
	return out
}

// words splits s into the pieces wrapping keeps together: each ends after
// a space (which it keeps) or at a line break, so a shape such as
// float32[1,16,32,32] stays whole.
func words(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		start := 0
		for i, r := range line {
			if r == ' ' {
				out = append(out, line[start:i+1])
				start = i + 1
			}
		}
		if start < len(line) {
			out = append(out, line[start:])
		}
	}
	return out
}

// Wrap breaks s into lines of at most width columns, at spaces where it
// can; a word longer than width is cut after its last separator in reach
// (",_/.-:["), else at width. Existing line breaks are kept; width <= 0
// returns s.
func Wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		lines = append(lines, wrapPara(para, width, width)...)
	}
	return strings.Join(lines, "\n")
}

// wrapPara wraps one line of text: the first line to first columns, the
// others to rest.
func wrapPara(para string, first, rest int) []string {
	var lines []string
	width := first
	cur := ""
	emit := func(l string) {
		lines = append(lines, l)
		width = rest
	}
	for _, word := range words(para) {
		if textWidth(strings.TrimRight(cur+word, " ")) <= width {
			cur += word
			continue
		}
		if strings.TrimSpace(cur) != "" {
			emit(strings.TrimRight(cur, " "))
		}
		cur = ""
		for textWidth(strings.TrimRight(word, " ")) > width {
			cut := byteIndexOfRune(word, width)
			// cut after the last separator in reach, if any
			if k := strings.LastIndexAny(word[:cut], ",_/.-:["); k > 0 {
				cut = k + 1
			}
			emit(word[:cut])
			word = word[cut:]
		}
		cur = word
	}
	return append(lines, strings.TrimRight(cur, " "))
}

// byteIndexOfRune is the byte offset of the n-th rune of s.
func byteIndexOfRune(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
