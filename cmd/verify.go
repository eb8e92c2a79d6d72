package cmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
)

// VerifyOptions are the inputs of `wolong verify`, typed.
type VerifyOptions struct {
	Paths     []string // A.onnx [B.onnx]
	Model     ModelOptions
	Inputs    string // --inputs DIR
	Seed      uint32
	Tolerance eval.Tolerance // --rtol, --atol
	Format    report.Format
	ORT       bool // run both models in ONNX Runtime instead of the evaluator
	Fill      []Fill
}

// verifyFlags are verify's flags as given.
type verifyFlags struct {
	model      modelFlags
	inputs     string
	seed       uint32
	rtol, atol float64
	format     string
	ort        bool
	fill       []string
}

func (f *verifyFlags) toOptions(env *Env, args []string) (*VerifyOptions, error) {
	format, err := parseFormat(f.format)
	if err != nil {
		return nil, err
	}
	if f.rtol < 0 || f.atol < 0 {
		return nil, Usagef("--rtol and --atol must be >= 0")
	}
	if len(args) == 1 && f.inputs == "" {
		return nil, Usagef("with one model, give --inputs DIR holding input_N.pb and the expected output_N.pb")
	}
	if f.ort && len(args) != 2 {
		return nil, Usagef("--ort compares two models: give A.onnx B.onnx")
	}
	mo, fills, err := evalOptions(env, &f.model, f.fill)
	if err != nil {
		return nil, err
	}
	return &VerifyOptions{Paths: args, Model: mo, Inputs: f.inputs, Seed: f.seed, Tolerance: eval.Tolerance{RTol: f.rtol, ATol: f.atol},
		Format: format, ORT: f.ort, Fill: fills}, nil
}

// NewCmdVerify builds `wolong verify`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdVerify(env *Env, runF func(*VerifyOptions) error) *cobra.Command {
	f := &verifyFlags{}
	c := &cobra.Command{
		Use:   "verify A.onnx [B.onnx]",
		Short: "Check that two models (or a model and expected outputs) compute the same thing",
		Long: `verify runs models on wolong's CPU reference evaluator and compares their
outputs element by element: |a-b| <= atol + rtol*|b|.

With two models, both run on the same inputs: the input_N.pb files of
--inputs, else deterministic random inputs of the declared types (--seed;
symbolic dims need --dim); --fill name=value sets an input to one value
(a sample rate, a flag). With one model, --inputs must also hold the
expected output_N.pb files (the ONNX test-data layout).

With --ort, both models run in ONNX Runtime 1.30 (CPU, graph optimizations
disabled, one thread) on the same inputs instead, through the harness wolong
keeps in the user's cache (it needs Node.js; onnxruntime-node is installed
with npm on first use), and their outputs are compared the same way: does
the runtime compute the same with the optimized model? A model ONNX Runtime
cannot load or run is an error naming the model and ORT's reason.

It prints one row per output (max abs error, max rel error, ok) and exits
with status 1 when any output differs.`,
		Example: `  wolong verify model.onnx optimized.onnx --dim N=1
  wolong verify model.onnx --inputs test_data_set_0
  wolong verify a.onnx b.onnx --seed 7 --rtol 1e-3 --format json
  wolong verify model.onnx optimized.onnx --dim N=1 --ort`,
		Args:              usageArgs(cobra.RangeArgs(1, 2)),
		ValidArgsFunction: completeONNX,
		RunE:              runE(env, f.toOptions, runF, verifyRun),
	}
	addEvalFlags(c, &f.model, &f.inputs, &f.seed, "folder of input_N.pb files (and, with one model, the expected output_N.pb)")
	c.Flags().Float64Var(&f.rtol, "rtol", eval.DefaultTolerance.RTol, "relative tolerance")
	c.Flags().Float64Var(&f.atol, "atol", eval.DefaultTolerance.ATol, "absolute tolerance")
	c.Flags().StringVar(&f.format, "format", "table", "output format: table or json")
	c.Flags().BoolVar(&f.ort, "ort", false, "run both models in ONNX Runtime "+ortbench.Version+" (node + onnxruntime-node) instead of wolong's evaluator")
	addFillFlag(c, &f.fill)
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.MarkFlagDirname("inputs")
	return c
}

// evalModel is a model loaded for evaluation: inferred once (shapes as
// given), with the command's memory bound and time limit.
type evalModel struct {
	*pipeline.Inferred
	mo *ModelOptions
}

// loadEval loads path for evaluation; the whole-number fills are known
// values to inference (fillValues). With defaults (random inputs: no
// --inputs folder), the symbolic dims --dim and --input leave open are 1,
// as profile sets them, and the model's Warnings say so first.
func (o *ModelOptions) loadEval(path string, fills []Fill, defaults bool) (*evalModel, error) {
	f, err := o.loadInferred(path, pipeline.InferOptions{Values: fillValues(fills), DefaultDims: defaults})
	if err != nil {
		return nil, err
	}
	return &evalModel{Inferred: f, mo: o}, nil
}

// Warnings are the model's import and inference warnings, after the
// statement of the dims set to 1 (the rule every command shares).
func (m *evalModel) Warnings() []string {
	w := m.Inferred.Warnings()
	if len(m.Defaulted) > 0 {
		w = append([]string{"dims not given with --dim / --input set to 1 (as profile sets them): " + strings.Join(m.Defaulted, ", ")}, w...)
	}
	return w
}

// Close releases the model.
func (m *evalModel) Close() { m.Loaded.Close() }

// modelInputs returns the inputs for m's main graph (pipeline.ModelInputs)
// with the command's hints on its errors.
func modelInputs(m *evalModel, dir string, seed uint32, fills []Fill) (map[string]eval.Value, string, error) {
	in, source, err := pipeline.ModelInputs(m.Inferred, dir, seed, fills, m.mo.MaxMemory)
	return in, source, evalErr(err)
}

// evalErr adds the flags that change what an evaluation ran into
// (evalHint) to an error of pipeline's Verify or ModelInputs, and makes a
// fill the model cannot take a usage error naming --fill.
func evalErr(err error) error {
	var fe *pipeline.FillError
	var me *pipeline.ModelError
	switch {
	case errors.As(err, &fe):
		return fillUsage(fe)
	case errors.As(err, &me):
		return fmt.Errorf("%s: %v", me.Path, evalHint(me.Err))
	}
	return err
}

// fillUsage is a fill the model cannot take as a usage error, with the
// flags that give what it lacks.
func fillUsage(fe *pipeline.FillError) error {
	name := fe.Fill.Name
	switch {
	case fe.Err != nil:
		return Usagef("--fill %s: %v", fe.Fill.Text, evalHint(fe.Err))
	case fe.Unknown:
		return Usagef("--fill %s: the shape of %s is unknown: give it with --input %s=...", fe.Fill.Text, name, name)
	case fe.Dim != "":
		return Usagef("--fill %s: %s is %s: give dim %s a value with --dim or --input", fe.Fill.Text, name, fe.Type, fe.Dim)
	}
	return Usagef("--fill %s: %v", fe.Fill.Text, fe)
}

// evaluate runs m on inputs (runEval) with the flags that change what
// it ran into named (evalHint).
func evaluate(m *evalModel, inputs map[string]eval.Value, prefix string) ([]eval.Value, error) {
	outs, err := runEval(m, inputs, prefix)
	return outs, evalHint(err)
}

// runEval runs m on inputs, keeping only those the graph declares, with
// the command's memory bound and time limit, and shows node progress
// with prefix before the line.
func runEval(m *evalModel, inputs map[string]eval.Value, prefix string) ([]eval.Value, error) {
	mine := map[string]eval.Value{}
	for _, in := range m.Model.Graph.Inputs {
		if v, ok := inputs[in.Name]; ok {
			mine[in.Name] = v
		}
	}
	pr := m.mo.progress
	defer pr.Done()
	return eval.Run(m.Model, mine, eval.Options{MaxMemory: m.mo.MaxMemory, OnNode: pr.nodeHook(prefix), Deadline: m.mo.deadline})
}

func verifyRun(env *Env, opts *VerifyOptions) error {
	res, err := pipeline.Verify(pipeline.VerifyOptions{
		Paths: opts.Paths,
		Load: func(path string) (*pipeline.Inferred, []string, error) {
			m, err := opts.Model.loadEval(path, opts.Fill, opts.Inputs == "")
			if err != nil {
				return nil, nil, err
			}
			return m.Inferred, m.Warnings(), nil
		},
		Warn: env.warn,
		Run: func(f *pipeline.Inferred, in map[string]eval.Value) ([]eval.Value, error) {
			return runEval(&evalModel{f, &opts.Model}, in, filepath.Base(f.Model.Path)+": ")
		},
		InputDir: opts.Inputs, Seed: opts.Seed, Fills: opts.Fill, MaxMemory: opts.Model.MaxMemory,
		Tolerance: opts.Tolerance, ORT: opts.ORT, Notice: env.Err,
	})
	var he *pipeline.HarnessError
	if errors.As(err, &he) {
		return fmt.Errorf("verify --ort: %v", err)
	}
	if err != nil {
		return evalErr(err)
	}
	return writeVerify(env, report.FromVerification(res), opts.Format)
}

// writeVerify prints res and turns a mismatch into exit status 1.
func writeVerify(env *Env, res *report.Verify, format report.Format) error {
	if err := report.WriteVerify(env.Out, res, format); err != nil {
		return err
	}
	if !res.OK {
		return exitErr{code: 1, msg: "verify: " + res.Verdict()}
	}
	return nil
}
