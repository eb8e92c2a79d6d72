package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/calibrate"
)

// MicrobenchOptions are the inputs of `wolong microbench`.
type MicrobenchOptions struct {
	Model  ModelFlags
	Out    string
	Format string
}

// microbenchFile is what --out holds (and --format json prints).
type microbenchFile struct {
	Model    string         `json:"model"`
	Format   string         `json:"format"`
	Ops      []calibrate.Op `json:"ops"`
	Skipped  []string       `json:"skipped,omitempty"`
	Warnings []string       `json:"warnings"`
}

func newMicrobenchCmd(env *Env) *cobra.Command {
	opts := &MicrobenchOptions{}
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
		RunE: func(c *cobra.Command, args []string) error {
			return runMicrobench(env, opts, args[0])
		},
	}
	addModelFlags(env, c, &opts.Model)
	c.Flags().StringVar(&opts.Out, "out", "", "write the op list as JSON to `ops.json` (what bench/gpu/time_ops.py reads)")
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table or json (the --out file's content)")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runMicrobench(env *Env, opts *MicrobenchOptions, path string) error {
	format, err := report.ParseFormat(opts.Format)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	out := newOutputs(path)
	defer out.abort()
	if err := out.check("--out", opts.Out); err != nil {
		return err
	}
	l, err := opts.Model.loadModel(path)
	if err != nil {
		return err
	}
	defer l.Close()
	ops, skipped := calibrate.DistinctOps(l.Model.Graph)
	f := microbenchFile{Model: path, Format: "wolong-microbench-1", Ops: ops, Skipped: skipped, Warnings: append([]string{}, l.Warnings...)}
	if f.Ops == nil {
		f.Ops = []calibrate.Op{}
	}
	if len(skipped) > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d node(s) skipped: shapes not static (give --dim / --input) or graph attributes", len(skipped)))
	}
	env.warn(f.Warnings)
	if opts.Out != "" {
		if err := out.write("--out", opts.Out, func(w io.Writer) error { return report.WriteJSON(w, f) }); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
	}
	if format == report.JSON {
		return report.WriteJSON(env.Out, f)
	}
	if opts.Out != "" {
		_, err := fmt.Fprintf(env.Out, "%s (%s skipped) -> %s\n", report.Count(len(ops), "distinct op"), report.Count(len(skipped), "node"), opts.Out)
		return err
	}
	return report.WriteMicrobench(env.Out, ops, skipped)
}
