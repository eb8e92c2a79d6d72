package cmd

// This file declares the repeatable string flags (--dim, --input, --fill,
// --passes, ...) without pflag's StringArrayVar and StringSliceVar: theirs
// format the default through an encoding/csv writer (a 4 KiB buffer per
// flag) when the flag is declared, on every command built for every run,
// --help included. These values print and parse the same.

import (
	"bytes"
	"encoding/csv"
	"strings"

	"github.com/spf13/pflag"
)

// stringsValue is a repeatable string flag: pflag's stringArray (each use
// one element) or, with csv set, its stringSlice (each use a
// comma-separated list, CSV-quoted).
type stringsValue struct {
	p       *[]string
	csv     bool
	changed bool
}

// stringArrayVar declares a repeatable flag (pflag's StringArrayVar with
// a nil default).
func stringArrayVar(fs *pflag.FlagSet, p *[]string, name, usage string) {
	*p = nil
	fs.Var(&stringsValue{p: p}, name, usage)
}

// stringSliceVar declares a repeatable comma-separated flag (pflag's
// StringSliceVar with a nil default).
func stringSliceVar(fs *pflag.FlagSet, p *[]string, name, usage string) {
	*p = nil
	fs.Var(&stringsValue{p: p, csv: true}, name, usage)
}

func (s *stringsValue) Set(val string) error {
	v := []string{val}
	if s.csv {
		var err error
		if v, err = readCSV(val); err != nil {
			return err
		}
	}
	if !s.changed {
		*s.p = v
	} else {
		*s.p = append(*s.p, v...)
	}
	s.changed = true
	return nil
}

// Type is pflag's type name (help shows "strings" for a slice).
func (s *stringsValue) Type() string {
	if s.csv {
		return "stringSlice"
	}
	return "stringArray"
}

// String is "" when empty (so help shows no default, as for pflag's), else
// pflag's "[a,b]".
func (s *stringsValue) String() string {
	if len(*s.p) == 0 {
		return ""
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(*s.p)
	w.Flush()
	return "[" + strings.TrimSuffix(b.String(), "\n") + "]"
}

// Append, Replace and GetSlice make it a pflag.SliceValue.
func (s *stringsValue) Append(val string) error { *s.p = append(*s.p, val); return nil }
func (s *stringsValue) Replace(val []string) error {
	*s.p = append([]string(nil), val...)
	return nil
}
func (s *stringsValue) GetSlice() []string { return append([]string(nil), *s.p...) }

// readCSV splits one use of a slice flag as pflag does ("" is no element).
func readCSV(val string) ([]string, error) {
	if val == "" {
		return []string{}, nil
	}
	return csv.NewReader(strings.NewReader(val)).Read()
}
