package cmd

import (
	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
)

// InspectOptions are the inputs of `wolong inspect`, typed.
type InspectOptions struct {
	Path   string
	Model  ModelOptions
	Format report.Format
	Nodes  bool // --nodes (always with --format csv)
	IR     bool // --ir: the IR text instead
}

// inspectFlags are inspect's flags as given.
type inspectFlags struct {
	model  modelFlags
	format string
	nodes  bool
	ir     bool
}

func (f *inspectFlags) toOptions(env *Env, args []string) (*InspectOptions, error) {
	format, err := parseFormat(f.format, report.CSV)
	if err != nil {
		return nil, err
	}
	mo, err := f.model.toOptions(env)
	if err != nil {
		return nil, err
	}
	return &InspectOptions{Path: args[0], Model: mo, Format: format, Nodes: f.nodes || format == report.CSV, IR: f.ir}, nil
}

// NewCmdInspect builds `wolong inspect`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdInspect(env *Env, runF func(*InspectOptions) error) *cobra.Command {
	f := &inspectFlags{}
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
		RunE:              runE(env, f.toOptions, runF, inspectRun),
	}
	addModelFlags(c, &f.model)
	c.Flags().StringVar(&f.format, "format", "table", "output format: table, json, or csv (the per-node table)")
	c.Flags().BoolVar(&f.nodes, "nodes", false, "add a per-node table (op, input and output shapes, memory of the outputs, params, MACs and their share, FLOPs)")
	c.Flags().BoolVar(&f.ir, "ir", false, "print the IR in wolong's text form")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func inspectRun(env *Env, opts *InspectOptions) error {
	f, err := opts.Model.loadInferred(opts.Path, pipeline.InferOptions{InPlace: true})
	if err != nil {
		return err
	}
	defer f.Loaded.Close()
	if opts.IR {
		return ir.Fprint(report.Unfit(env.Out), f.Model)
	}
	r := report.NewInspect(opts.Path, f.Model, f.Warnings(), opts.Nodes)
	env.warn(r.Warnings)
	return writeTable(env.Out, opts.Format, r)
}
