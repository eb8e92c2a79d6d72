package cmd

// This file holds what every command's flags-to-options step shares: the
// run-function hook and the conversions of strings every command takes.

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// runOr hands opts to runF when a test set it, else runs the command.
func runOr[T any](runF func(*T) error, opts *T, run func() error) error {
	if runF != nil {
		return runF(opts)
	}
	return run()
}

// runE is a command's RunE: its flags become options in one step (a usage
// error stops there), then runF gets them (tests) or run runs them.
func runE[T any](env *Env, toOptions func(*Env, []string) (*T, error), runF func(*T) error, run func(*Env, *T) error) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		opts, err := toOptions(env, args)
		if err != nil {
			return err
		}
		return runOr(runF, opts, func() error { return run(env, opts) })
	}
}

// parseFormat reads --format: table and json, and the extra formats the
// command prints (a usage error otherwise).
func parseFormat(s string, extra ...report.Format) (report.Format, error) {
	f, err := report.ParseFormat(s, extra...)
	if err != nil {
		return f, Usagef("--format: %v", err)
	}
	return f, nil
}

// hwAndModel resolves a hardware flag (flag, its value name) and the
// model flags: the last step of the flags-to-options of a command that
// takes both (calibrate, validate).
func hwAndModel(env *Env, flag, name string, mf *modelFlags) (*hw.Hardware, ModelOptions, error) {
	h, err := resolveHW(flag, name)
	if err != nil {
		return nil, ModelOptions{}, err
	}
	m, err := mf.toOptions(env)
	return h, m, err
}

// costSettings names profile's flags in the cost model's assumptions
// ("loops without a static trip count run 10 times (--trip)"); optimize
// and explain, which have no --trip or --dtype, name them too, so that
// their assumptions read as profile's.
var costSettings = cost.Settings{TF32: "--tf32", Trip: "--trip", DType: "--dtype", Branch: "--if-branch", Shapes: shapeFlagNames}

// pipelineCostSettings are optimize's and explain's: they have --tf32 but
// no --trip or --dtype, so their assumptions name neither.
var pipelineCostSettings = cost.Settings{TF32: "--tf32", Shapes: shapeFlagNames}

// shapeFlagNames are the flags that give input shapes, as assumptions name
// them.
const shapeFlagNames = "--dim / --input"

// tableReport is a report with a text and a CSV form besides JSON.
type tableReport interface {
	WriteText(io.Writer) error
	WriteCSV(io.Writer) error
}

// writeTable prints r in format: JSON, CSV or text.
func writeTable(w io.Writer, format report.Format, r tableReport) error {
	switch format {
	case report.JSON:
		return report.WriteJSON(w, r)
	case report.CSV:
		return r.WriteCSV(w)
	}
	return r.WriteText(w)
}
