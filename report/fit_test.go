package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"a short line", 40, "a short line"},
		{"NVIDIA Tesla V100 SXM2 32 GB", 12, "NVIDIA Tesla\nV100 SXM2 32\nGB"},
		{"float32[1,16,32,32]", 12, "float32[1,\n16,32,32]"},
		{"abcdefghij", 4, "abcd\nefgh\nij"},
		{"two\nlines kept", 20, "two\nlines kept"},
		{"anything", 0, "anything"},
	} {
		if got := Wrap(tc.in, tc.width); got != tc.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

// TestTextTableFits checks that a table fits the writer's width by
// wrapping, then by leaving out its Drop columns in order (saying so),
// that prose columns keep room, and that width 0 changes nothing.
func TestTextTableFits(t *testing.T) {
	tab := TextTable{
		Header: []string{"name", "a long optional column", "value", "description"},
		Rows: [][]string{
			{"first", "1", "0.766 ms", "a description long enough to need wrapping at any narrow width"},
			{"second", "2", "12.5 us", "short"},
		},
		Drop:  []int{1},
		Prose: []int{3},
	}
	var plain, zero bytes.Buffer
	if err := tab.Write(&plain); err != nil {
		t.Fatal(err)
	}
	renderTable(&zero, tab.Header, tab.Rows)
	if plain.String() != zero.String() {
		t.Error("an unfitted writer's table differs from the plain rendering")
	}
	for _, width := range []int{40, 60, 80} {
		var b bytes.Buffer
		w := FitTo(&b, width)
		if err := tab.Write(w); err != nil {
			t.Fatal(err)
		}
		Flush(w)
		out := b.String()
		for _, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: line of %d: %q", width, n, l)
			}
		}
		dropped := strings.Contains(out, "a long optional column not shown")
		if dropped != (width < 80) {
			t.Errorf("width %d: the optional column shown/dropped wrongly:\n%s", width, out)
		}
		if !strings.Contains(out, "0.766 ms") {
			t.Errorf("width %d: a short cell was wrapped:\n%s", width, out)
		}
	}
}

// TestFitWriterWrapsLines checks the writer's own wrapping of lines that
// are not tables: list items hang under their text, other lines indent
// by two, table lines and short lines pass, JSON written to Unfit(w)
// is never wrapped.
func TestFitWriterWrapsLines(t *testing.T) {
	var b bytes.Buffer
	w := FitTo(&b, 30)
	long := "word " + strings.Repeat("x", 10) + " and some more words to wrap"
	io := func(s string) { w.Write([]byte(s)) }
	io("  - " + long + "\n")
	io(long + "\n")
	io("│ " + long + " │\n")
	io("short\n")
	WriteJSON(w, map[string]string{"k": long})
	io("no newline at the end")
	Flush(w)
	want := "  - word xxxxxxxxxx and some\n" +
		"    more words to wrap\n" +
		"word xxxxxxxxxx and some more\n" +
		"  words to wrap\n" +
		"│ " + long + " │\n" +
		"short\n" +
		"{\n  \"k\": \"" + long + "\"\n}\n" +
		"no newline at the end"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestBufferedKeepsFitting: the text written through Buffered, fitted or
// not, is what the writer itself gets, and none of it before flush.
func TestBufferedKeepsFitting(t *testing.T) {
	long := "word " + strings.Repeat("x", 10) + " and some more words to wrap"
	write := func(w io.Writer) {
		io.WriteString(w, "  - "+long+"\n")
		WriteJSON(w, map[string]string{"k": long})
		io.WriteString(Unfit(w), long+"\n")
		io.WriteString(w, "no newline")
	}
	for _, width := range []int{0, 30} {
		var direct, buffered bytes.Buffer
		w := FitTo(&direct, width)
		write(w)
		Flush(w)
		w = FitTo(&buffered, width)
		bw, flush := Buffered(w)
		write(bw)
		if width == 0 && buffered.Len() > 0 {
			t.Errorf("width %d: %d bytes written before flush", width, buffered.Len())
		}
		if err := flush(); err != nil {
			t.Fatal(err)
		}
		Flush(w)
		if buffered.String() != direct.String() {
			t.Errorf("width %d: got\n%s\nwant\n%s", width, buffered.String(), direct.String())
		}
	}
}
