package cmd

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/internal/safefile"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/calibrate"
)

// MicrobenchOptions are the inputs of `wolong microbench`.
type MicrobenchOptions struct {
	Model ModelFlags
	Out   string
}

// microbenchFile is what --out holds.
type microbenchFile struct {
	Model   string         `json:"model"`
	Format  string         `json:"format"`
	Ops     []calibrate.Op `json:"ops"`
	Skipped []string       `json:"skipped,omitempty"`
}

func newMicrobenchCmd(env *Env) *cobra.Command {
	opts := &MicrobenchOptions{}
	c := &cobra.Command{
		Use:   "microbench MODEL",
		Short: "List a model's distinct ops (op, dtype, shapes, attributes) for timing",
		Long: `microbench lists each distinct (op, dtype, input shapes, attributes) of
MODEL's main graph that launches a kernel, with how many nodes share it, in
the table format's syntax (see wolong calibrate). bench/gpu/time_ops.py times
the list with PyTorch on a CUDA GPU and writes a --table file for
wolong calibrate and wolong validate. Nodes whose shapes are not static (give
--dim / --input) or whose attributes are graphs are listed as skipped.`,
		Example: `  wolong microbench model.onnx --out ops.json
  python bench/gpu/time_ops.py ops.json --out h200_ops.csv`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeONNX,
		RunE: func(c *cobra.Command, args []string) error {
			return runMicrobench(env, opts, args[0])
		},
	}
	addModelFlags(env, c, &opts.Model)
	c.Flags().StringVar(&opts.Out, "out", "", "write the op list to `ops.json` (default: stdout)")
	return c
}

func runMicrobench(env *Env, opts *MicrobenchOptions, path string) error {
	inferOpt, err := opts.Model.inferOptions()
	if err != nil {
		return err
	}
	l, err := opts.Model.loadModel(path)
	if err != nil {
		return err
	}
	defer l.Close()
	if len(defaultSymbolicDims(l.Model.Graph, inferOpt)) > 0 {
		l.Infer = ir.InferModel(l.Model, inferOpt)
	}
	ops, skipped := calibrate.DistinctOps(l.Model.Graph)
	f := microbenchFile{Model: path, Format: "wolong-microbench-1", Ops: ops, Skipped: skipped}
	if f.Ops == nil {
		f.Ops = []calibrate.Op{}
	}
	write := func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(f)
	}
	if opts.Out == "" {
		return write(env.Out)
	}
	if err := safefile.Write(opts.Out, []string{path}, write); err != nil {
		return fmt.Errorf("--out: %v", err)
	}
	fmt.Fprintf(env.Out, "%d distinct ops (%d nodes skipped) -> %s\n", len(ops), len(skipped), opts.Out)
	return nil
}
