package cmd

import (
	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/report"
)

// InspectOptions are the inputs of `wolong inspect`.
type InspectOptions struct {
	Model  ModelFlags
	Format string
	Nodes  bool
	IR     bool
}

func newInspectCmd(env *Env) *cobra.Command {
	opts := &InspectOptions{}
	c := &cobra.Command{
		Use:   "inspect MODEL",
		Short: "Summarize a model: inputs, outputs, ops, parameters, MACs and FLOPs",
		Long: `inspect imports an ONNX model, infers every tensor's type and shape, and
prints its inputs and outputs, the op histogram, the parameter count and size,
and the multiply-accumulate count (FLOPs = 2 x MACs). --nodes adds a per-node
table (input and output shapes, memory of the outputs, parameters, MACs and
their share of the model's); --format csv prints that table as CSV; --ir
prints wolong's IR text instead.`,
		Example: `  wolong inspect model.onnx
  wolong inspect model.onnx --dim N=1 --nodes
  wolong inspect model.onnx --format json | jq .flops
  wolong inspect model.onnx --dim N=1 --format csv > nodes.csv`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeONNX,
		RunE: func(c *cobra.Command, args []string) error {
			return runInspect(env, opts, args[0])
		},
	}
	addModelFlags(env, c, &opts.Model)
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table, json, or csv (the per-node table)")
	c.Flags().BoolVar(&opts.Nodes, "nodes", false, "add a per-node table (op, input and output shapes, memory of the outputs, params, MACs and their share, FLOPs)")
	c.Flags().BoolVar(&opts.IR, "ir", false, "print the IR in wolong's text form")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runInspect(env *Env, opts *InspectOptions, path string) error {
	format, err := report.ParseFormat(opts.Format, report.CSV)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	l, err := opts.Model.loadModel(path)
	if err != nil {
		return err
	}
	defer l.Close()
	if opts.IR {
		return ir.Fprint(report.Unfit(env.Out), l.Model)
	}
	r := report.NewInspect(path, l.Model, l.Warnings, opts.Nodes || format == report.CSV)
	env.warn(r.Warnings)
	switch format {
	case report.JSON:
		return report.WriteJSON(env.Out, r)
	case report.CSV:
		return r.WriteCSV(env.Out)
	}
	return r.WriteText(env.Out)
}
