package cmd

// This file wires explain's dump flags (--dump-after, --dump-dir, --dot,
// --diff) to the pass driver's dumps (optimize.Dump): the driver decides
// which stages to dump, report's dumpers write them.

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/report"
)

// passClock, set by tests only, is the clock the pass driver times passes
// with (nil: the real one), so that explain's wall times are reproducible.
var passClock func() time.Time

// explainDumpFlags are explain's flags for dumps of the IR after passes.
type explainDumpFlags struct {
	DumpAfter string // --dump-after: the passes to dump after (a name or a regexp)
	DumpDir   string // --dump-dir: where
}

func addExplainDumpFlags(c *cobra.Command, f *explainDumpFlags) {
	c.Flags().StringVar(&f.DumpAfter, "dump-after", "", "with --dump-dir: dump only after the passes `NAME|REGEXP` selects (a pass name, or a regular expression matched against the names)")
	c.Flags().StringVar(&f.DumpDir, "dump-dir", "", "write the IR text (.wir) and Graphviz DOT (.dot) of the input and of each pass that changed the model into `DIR`")
}

// dumps checks the dump flags and the folders they write into (a usage
// error for a bad pattern or a pattern without a folder) and returns the
// dumps for the driver and the diff dumper whose diffs --diff shows (nil
// without --diff).
func (o *ExplainOptions) dumps(out *outputs) ([]optimize.Dump, *report.DiffDumper, error) {
	var after *optimize.PassPattern
	if o.DumpAfter != "" {
		if o.DumpDir == "" {
			return nil, nil, Usagef("--dump-after needs --dump-dir DIR to write into")
		}
		p, err := optimize.ParsePassPattern(o.DumpAfter)
		if err != nil {
			return nil, nil, Usagef("--dump-after: %v", err)
		}
		after = p
	}
	if err := out.checkDir("--dot", o.Dot); err != nil {
		return nil, nil, err
	}
	if err := out.checkDir("--dump-dir", o.DumpDir); err != nil {
		return nil, nil, err
	}
	var focus *optimize.PassPattern
	if o.Pass != "" {
		focus, _ = optimize.ParsePassPattern(o.Pass) // a checked pass name
	}
	writeTo := func(flag string) func(string, func(io.Writer) error) error {
		return func(path string, fill func(io.Writer) error) error { return out.write(flag, path, fill) }
	}
	ds := []optimize.Dump{}
	if o.Dot != "" {
		ds = append(ds, optimize.Dump{After: focus, KeepUnchanged: true, To: &report.FileDumper{Dir: o.Dot, DOT: true, Write: writeTo("--dot")}})
	}
	if o.DumpDir != "" {
		ds = append(ds, optimize.Dump{After: after, To: &report.FileDumper{Dir: o.DumpDir, Text: true, DOT: true, Write: writeTo("--dump-dir")}})
	}
	var diff *report.DiffDumper
	if o.Diff {
		diff = &report.DiffDumper{Focus: focus}
		ds = append(ds, optimize.Dump{KeepUnchanged: true, To: diff})
	}
	return ds, diff, nil
}
