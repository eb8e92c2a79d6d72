package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/report"
)

// ExplainOptions are the inputs of `wolong explain`, typed.
type ExplainOptions struct {
	PipelineOptions
	Pass string // --pass: focus on one pass (its canonical name)
	Diff bool   // --diff: unified diff of the IR text per pass
	Dot  string // --dot DIR: one DOT file per pass
	HTML string // --html FILE: the explain page
	explainDumpFlags
}

// explainFlags are explain's flags as given.
type explainFlags struct {
	pipelineFlags
	pass string
	diff bool
	dot  string
	html string
	dump explainDumpFlags
}

func (f *explainFlags) toOptions(env *Env, args []string) (*ExplainOptions, error) {
	if _, err := parseFormat(f.format); err != nil {
		return nil, err
	}
	pass := f.pass
	if pass != "" {
		p, ok := optimize.LookupPass(pass)
		if !ok {
			return nil, Usagef("--pass %s: unknown pass (known: %s)", pass, strings.Join(passNameList(), ", "))
		}
		pass = p.Name
	}
	po, err := f.pipelineFlags.toOptions(env, args[0])
	if err != nil {
		return nil, err
	}
	return &ExplainOptions{PipelineOptions: po, Pass: pass, Diff: f.diff, Dot: f.dot, HTML: f.html, explainDumpFlags: f.dump}, nil
}

// NewCmdExplain builds `wolong explain`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdExplain(env *Env, runF func(*ExplainOptions) error) *cobra.Command {
	f := &explainFlags{}
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
shows its own running time, and "unchanged" when it left the model as it was.
--html FILE writes one self-contained page (every pass's node list, the
timeline, the cost tables and the graph) to open in a browser: with --pass
it opens on that pass's column, the others collapsed; with --diff each
pass's diff is on its column.`,
		Example: `  wolong explain model.onnx
  wolong explain model.onnx --pass fuse --diff
  wolong explain model.onnx --dot out/ && dot -Tsvg out/` + dotExample("fuse") + ` -o fuse.svg
  wolong explain model.onnx --dump-after dce --dump-dir dumps/
  wolong explain model.onnx --html report.html`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeONNX,
		RunE:              runE(env, f.toOptions, runF, explainRun),
	}
	addPipelineFlags(c, &f.pipelineFlags)
	c.Flags().StringVar(&f.pass, "pass", "", "show only the pass called `NAME`")
	c.Flags().BoolVar(&f.diff, "diff", false, "add a unified diff of the IR text for each pass")
	c.Flags().StringVar(&f.dot, "dot", "", "write a Graphviz DOT file per pass into `DIR`")
	c.Flags().StringVar(&f.html, "html", "", "write a self-contained HTML page (pass columns, timeline, costs, graph) to `FILE`")
	addExplainDumpFlags(c, &f.dump)
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
		if p.NeedsPlacer || p.ControlFlow { // a model without If/Loop/Scan
			continue
		}
		seq++
		if p.Name == pass {
			break
		}
	}
	return dotFileName(seq, pass)
}

func explainRun(env *Env, opts *ExplainOptions) error {
	out := newOutputs(opts.Path)
	defer out.abort()
	dumps, diff, err := opts.dumps(out)
	if err != nil {
		return err
	}
	page, err := newHTMLExplain(out, opts.HTML)
	if err != nil {
		return err
	}
	dumps = page.dump(dumps)
	// the JSON and the page show every pass's memory peak, the text none
	r, err := runPipeline(&opts.PipelineOptions, dumps, true, true, opts.Format != report.JSON && page == nil, false)
	if err != nil {
		return err
	}
	defer r.inferred.Loaded.Close()
	var diffs map[string]string
	if diff != nil {
		diffs = diff.Diffs
	}
	if err := page.write(out, opts.Path, opts.HW.Name, r.optimized, opts.Pass, diffs, r.warnings); err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	e := report.NewExplain(opts.Path, opts.HW.Name, r.optimized.Result, opts.Pass, diffs, r.warnings)
	if rt := opts.HW.RuntimeOrDefault(); rt != nil {
		e.Runtime = rt.Describe(opts.HW.Runtime != nil)
	}
	e.SetExpectedError(opts.HW)
	e.SetWhy(r.optimized.BaselineWhy, r.optimized.Why(), opts.HW)
	e.ShowMissed = opts.Missed
	env.warn(e.Warnings)
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, e)
	}
	return env.buffered(func() error { return e.WriteText(env.Out) })
}
