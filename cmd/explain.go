package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/report"
)

// ExplainOptions are the inputs of `wolong explain`.
type ExplainOptions struct {
	OptimizeOptions
	Pass string // --pass: focus on one pass
	Diff bool   // --diff: unified diff of the IR text per pass
	Dot  string // --dot DIR: one DOT file per pass
	explainDumpFlags
}

func newExplainCmd(env *Env) *cobra.Command {
	opts := &ExplainOptions{}
	c := &cobra.Command{
		Use:   "explain MODEL",
		Short: "Show what each pass changed and what it bought",
		Long: `explain runs the same pipeline as optimize and prints, pass by pass, every
rewrite on one line ("Conv_3 + Relu_4 -> fused_conv_0",
"MatMul_q || MatMul_k || MatMul_v -> batched_matmul_1, split_2"), with the node
and kernel counts and the predicted time before and after the pass. --pass
focuses on one pass, --diff adds a unified diff of the IR text, --dot DIR writes
Graphviz DOT after each pass with fused groups drawn as clusters, --dump-dir DIR
writes the IR text and DOT of the input and of every pass that changed the model
(--dump-after NAME|REGEXP: only after the passes it selects). Each pass also
shows its own running time, and "unchanged" when it left the model as it was.`,
		Example: `  wolong explain model.onnx
  wolong explain model.onnx --pass fuse --diff
  wolong explain model.onnx --dot out/ && dot -Tsvg out/` + dotExample("fuse") + ` -o fuse.svg
  wolong explain model.onnx --dump-after dce --dump-dir dumps/`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeONNX,
		RunE: func(c *cobra.Command, args []string) error {
			return runExplain(env, opts, args[0])
		},
	}
	addPipelineFlags(env, c, &opts.OptimizeOptions)
	c.Flags().StringVar(&opts.Pass, "pass", "", "show only the pass called `NAME`")
	c.Flags().BoolVar(&opts.Diff, "diff", false, "add a unified diff of the IR text for each pass")
	c.Flags().StringVar(&opts.Dot, "dot", "", "write a Graphviz DOT file per pass into `DIR`")
	addExplainDumpFlags(c, &opts.explainDumpFlags)
	return c
}

// dotFileName names the DOT file --dot writes after the seq-th pass that
// ran (0: the input model).
func dotFileName(seq int, pass string) string { return report.DumpFileName(seq, pass, "dot") }

// dotExample is the DOT file --dot writes after pass at the default
// level -O3 without --cluster, for the help text (derived from the pass
// table, so it does not go stale).
func dotExample(pass string) string {
	sel, _ := optimize.Select(optimize.MaxLevel, nil, nil)
	seq := 0
	for _, p := range sel {
		if p.NeedsPlacer {
			continue
		}
		seq++
		if p.Name == pass {
			break
		}
	}
	return dotFileName(seq, pass)
}

func runExplain(env *Env, opts *ExplainOptions, path string) error {
	format, err := report.ParseFormat(opts.Format)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	if opts.Pass != "" {
		p, ok := optimize.LookupPass(opts.Pass)
		if !ok {
			return Usagef("--pass %s: unknown pass (known: %s)", opts.Pass, strings.Join(passNameList(), ", "))
		}
		opts.Pass = p.Name
	}
	out := newOutputs(path)
	defer out.abort()
	dumps, diff, err := opts.dumps(out)
	if err != nil {
		return err
	}
	p, err := loadPipeline(&opts.OptimizeOptions, path)
	if err != nil {
		return err
	}
	defer p.l.Close()
	res, err := p.run(&opts.OptimizeOptions, dumps, true)
	if err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	var diffs map[string]string
	if diff != nil {
		diffs = diff.Diffs
	}
	e := report.NewExplain(path, p.hw.Name, res, opts.Pass, diffs, p.warnings)
	env.warn(e.Warnings)
	if format == report.JSON {
		return report.WriteJSON(env.Out, e)
	}
	return e.WriteText(env.Out)
}
