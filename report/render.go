package report

// This file implements the shared rendering helpers: tables, JSON and
// human-readable numbers.

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

// Format is an output format chosen with --format.
type Format string

// Output formats.
const (
	Table Format = "table"
	JSON  Format = "json"
	// CSV is one header row and one row per item, numbers unformatted,
	// for the tables a spreadsheet wants (profile's nodes or op types,
	// inspect's nodes, hw list, the sweep).
	CSV Format = "csv"
)

// ParseFormat validates a --format value: table or json, plus the extra
// formats (CSV) a command also writes.
func ParseFormat(s string, extra ...Format) (Format, error) {
	allowed := append([]Format{Table, JSON}, extra...)
	names := make([]string, len(allowed))
	for i, f := range allowed {
		if Format(s) == f {
			return f, nil
		}
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, orList(names))
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// WriteCSV writes header and rows as CSV (RFC 4180).
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(Unfit(w))
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// WriteJSON writes v as indented JSON followed by a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(Unfit(w))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteTable renders rows under a header as a bordered text table fitted
// to w's width (see TextTable).
func WriteTable(w io.Writer, header []string, rows [][]string) error {
	return TextTable{Header: header, Rows: rows}.Write(w)
}

// siPrefixes are SI's decimal prefixes from the largest SI uses.
var siPrefixes = [...]struct {
	scale  float64
	prefix string
}{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}

// SI formats n with an SI prefix: 1234567 -> "1.23 M".
func SI(n float64) string {
	for _, p := range siPrefixes {
		if math.Abs(n) >= p.scale {
			return fmt.Sprintf("%.2f %s", n/p.scale, p.prefix)
		}
	}
	return fmt.Sprintf("%.0f ", n)
}

// Bytes formats a byte count with binary prefixes: "1.50 MiB".
func Bytes(n int64) string {
	f := float64(n)
	switch {
	case n >= 1<<40:
		return fmt.Sprintf("%.2f TiB", f/(1<<40))
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", f/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", f/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2f KiB", f/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
