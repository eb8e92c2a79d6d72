package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/calibrate"
)

// MicrobenchOptions are the inputs of `wolong microbench`, typed.
type MicrobenchOptions struct {
	Path   string
	Model  ModelOptions
	Out    string // --out ops.json
	Format report.Format
}

// microbenchFlags are microbench's flags as given.
type microbenchFlags struct {
	model  modelFlags
	out    string
	format string
}

func (f *microbenchFlags) toOptions(env *Env, args []string) (*MicrobenchOptions, error) {
	format, err := parseFormat(f.format)
	if err != nil {
		return nil, err
	}
	mo, err := f.model.toOptions(env)
	if err != nil {
		return nil, err
	}
	return &MicrobenchOptions{Path: args[0], Model: mo, Out: f.out, Format: format}, nil
}

// microbenchFile is what --out holds (and --format json prints).
type microbenchFile struct {
	Model    string         `json:"model"`
	Format   string         `json:"format"`
	Ops      []calibrate.Op `json:"ops"`
	Skipped  []string       `json:"skipped,omitempty"`
	Warnings []string       `json:"warnings"`
}

// NewCmdMicrobench builds `wolong microbench`; runF, when not nil, gets
// the options instead of running them (tests).
func NewCmdMicrobench(env *Env, runF func(*MicrobenchOptions) error) *cobra.Command {
	f := &microbenchFlags{}
	c := &cobra.Command{
		Use:   "microbench MODEL",
		Short: "List a model's distinct ops (op, dtype, shapes, attributes) for timing",
		Long: `microbench lists each distinct (op, dtype, input shapes, attributes) of
MODEL's main graph that launches a kernel, with how many nodes share it, in
the table format's syntax (see wolong calibrate). bench/gpu/time_ops.py times
the list (--out ops.json) with PyTorch on a CUDA GPU and writes a --table
file for wolong calibrate and wolong validate. Symbolic dims are not given
values: nodes whose shapes are not static (give --dim / --input) or whose
attributes are graphs are listed as skipped.`,
		Example: `  wolong microbench model.onnx --dim N=1
  wolong microbench model.onnx --dim N=1 --out ops.json
  python bench/gpu/time_ops.py ops.json --out h200_ops.csv`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeONNX,
		RunE:              runE(env, f.toOptions, runF, microbenchRun),
	}
	addModelFlags(c, &f.model)
	c.Flags().StringVar(&f.out, "out", "", "write the op list as JSON to `ops.json` (what bench/gpu/time_ops.py reads)")
	c.Flags().StringVar(&f.format, "format", "table", "output format: table or json (the --out file's content)")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func microbenchRun(env *Env, opts *MicrobenchOptions) error {
	path := opts.Path
	out := newOutputs(path)
	defer out.abort()
	if err := out.check("--out", opts.Out); err != nil {
		return err
	}
	f, err := opts.Model.loadInferred(path, pipeline.InferOptions{})
	if err != nil {
		return err
	}
	defer f.Loaded.Close()
	ops, skipped := calibrate.DistinctOps(f.Model.Graph)
	mb := microbenchFile{Model: path, Format: "wolong-microbench-1", Ops: ops, Skipped: skipped, Warnings: f.Warnings()}
	if mb.Ops == nil {
		mb.Ops = []calibrate.Op{}
	}
	if len(skipped) > 0 {
		mb.Warnings = append(mb.Warnings, fmt.Sprintf("%d node(s) skipped: shapes not static (give --dim / --input) or graph attributes", len(skipped)))
	}
	env.warn(mb.Warnings)
	if opts.Out != "" {
		if err := out.write("--out", opts.Out, func(w io.Writer) error { return report.WriteJSON(w, mb) }); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
	}
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, mb)
	}
	if opts.Out != "" {
		_, err := fmt.Fprintf(env.Out, "%s (%s skipped) -> %s\n", report.Count(len(ops), "distinct op"), report.Count(len(skipped), "node"), opts.Out)
		return err
	}
	return report.WriteMicrobench(env.Out, ops, skipped)
}
