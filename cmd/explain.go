package cmd

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/report"
)

// ExplainOptions are the inputs of `wolong explain`.
type ExplainOptions struct {
	OptimizeOptions
	Pass string // --pass: focus on one pass
	Diff bool   // --diff: unified diff of the IR text per pass
	Dot  string // --dot DIR: one DOT file per pass
	HTML string // --html FILE: the explain page
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
Graphviz DOT after each pass with fused groups drawn as clusters, --html FILE
one self-contained page (every pass's node list, the timeline, the cost tables
and the graph) to open in a browser.`,
		Example: `  wolong explain model.onnx
  wolong explain model.onnx --pass fuse --diff
  wolong explain model.onnx --html report.html
  wolong explain model.onnx --dot out/ && dot -Tsvg out/` + dotExample("fuse") + ` -o fuse.svg`,
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
	c.Flags().StringVar(&opts.HTML, "html", "", "write a self-contained HTML page (pass columns, timeline, costs, graph) to `FILE`")
	return c
}

// dotFileName names the DOT file --dot writes after the seq-th pass that
// ran (0: the input model).
func dotFileName(seq int, pass string) string {
	return fmt.Sprintf("%02d_%s.dot", seq, pass)
}

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
	if err := out.checkDir("--dot", opts.Dot); err != nil {
		return err
	}
	page, err := newHTMLExplain(out, opts.HTML)
	if err != nil {
		return err
	}
	p, err := loadPipeline(&opts.OptimizeOptions, path)
	if err != nil {
		return err
	}
	defer p.l.Close()
	diffs := map[string]string{}
	var prevText string
	seq := 0
	onPass := func(name string, m *ir.Model) error {
		focused := opts.Pass == "" || opts.Pass == name
		if opts.Diff {
			var b bytes.Buffer
			if err := ir.Fprint(&b, m); err != nil {
				return err
			}
			if name != "input" && focused {
				diffs[name] = report.UnifiedDiff(prevText, b.String(), "before "+name, "after "+name)
			}
			prevText = b.String()
		}
		if opts.Dot != "" && (focused || name == "input") {
			file := filepath.Join(opts.Dot, dotFileName(seq, name))
			if err := out.write("--dot", file, func(w io.Writer) error { return report.WriteDOT(w, m, name) }); err != nil {
				return err
			}
		}
		seq++
		return nil
	}
	res, err := p.run(&opts.OptimizeOptions, page.hook(onPass))
	if err != nil {
		return err
	}
	if err := page.write(out, path, p, res); err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	e := report.NewExplain(path, p.hw.Name, res, opts.Pass, diffs, p.warnings)
	env.warn(e.Warnings)
	if format == report.JSON {
		return report.WriteJSON(env.Out, e)
	}
	return e.WriteText(env.Out)
}
