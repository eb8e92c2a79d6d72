package cmd

import (
	"fmt"
	"os"
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

// modelInputs returns the inputs for m's main graph: from dir, or random,
// then those fills (--fill name=value) set. The source says which. Errors
// name the model.
func modelInputs(m *evalModel, dir string, seed uint32, fills []Fill) (map[string]eval.Value, string, error) {
	var in map[string]eval.Value
	var err error
	source := dir
	if dir != "" {
		in, err = eval.ReadInputDir(m.Model.Graph, dir, m.mo.MaxMemory)
	} else {
		in, err = eval.RandomInputs(m.Model.Graph, seed, m.mo.MaxMemory)
		source = fmt.Sprintf("random inputs (seed %d)", seed)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", m.Model.Path, evalHint(err))
	}
	if err := applyFills(m, in, fills); err != nil {
		return nil, "", err
	}
	for _, f := range fills {
		source += ", " + f.Text
	}
	return in, source, nil
}

// evaluate runs m on inputs, keeping only those the graph declares, and
// shows node progress with prefix before the line.
func evaluate(m *evalModel, inputs map[string]eval.Value, prefix string) ([]eval.Value, error) {
	mine := map[string]eval.Value{}
	for _, in := range m.Model.Graph.Inputs {
		if v, ok := inputs[in.Name]; ok {
			mine[in.Name] = v
		}
	}
	pr := m.mo.progress
	defer pr.Done()
	outs, err := eval.Run(m.Model, mine, eval.Options{MaxMemory: m.mo.MaxMemory, OnNode: pr.nodeHook(prefix), Deadline: m.mo.deadline})
	return outs, evalHint(err)
}

func typeText(v eval.Value) string {
	switch x := v.(type) {
	case *eval.Tensor:
		return x.String()
	case *eval.Sequence:
		return fmt.Sprintf("seq(%s) of %d", x.Elem, len(x.Items))
	case *eval.Optional:
		if x.Value == nil {
			return "optional (empty)"
		}
		return "optional(" + typeText(x.Value) + ")"
	}
	return "?"
}

func verifyRun(env *Env, opts *VerifyOptions) error {
	args, format := opts.Paths, opts.Format
	a, err := opts.Model.loadEval(args[0], opts.Fill, opts.Inputs == "")
	if err != nil {
		return err
	}
	defer a.Close()
	warnings := a.Warnings()
	if len(args) == 2 {
		warnings = prefixed(args[0], warnings)
	}
	env.warn(warnings) // now: evaluation may fail because of what they say
	inputs, source, err := modelInputs(a, opts.Inputs, opts.Seed, opts.Fill)
	if err != nil {
		return err
	}
	res := &report.Verify{Models: []string{args[0]}, Inputs: source, RTol: opts.Tolerance.RTol, ATol: opts.Tolerance.ATol, Warnings: warnings}
	if opts.ORT {
		return verifyORT(env, opts, args, a, inputs, res, format)
	}
	got, err := evaluate(a, inputs, filepath.Base(args[0])+": ")
	if err != nil {
		return fmt.Errorf("%s: %v", args[0], err)
	}
	var want []eval.Value
	names := make([]string, len(a.Model.Graph.Outputs))
	for i, o := range a.Model.Graph.Outputs {
		names[i] = o.Name
	}
	if len(args) == 2 {
		b, err := loadSecond(env, opts, args, a, inputs, res)
		if err != nil {
			return err
		}
		defer b.Close()
		if want, err = evaluate(b, inputs, filepath.Base(args[1])+": "); err != nil {
			return fmt.Errorf("%s: %v", args[1], err)
		}
		res.Against = args[1]
	} else {
		for i, o := range a.Model.Graph.Outputs {
			p := filepath.Join(opts.Inputs, fmt.Sprintf("output_%d.pb", i))
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("%s holds no expected output_%d.pb for output %q: give a second model or the expected outputs", opts.Inputs, i, o.Name)
			}
			v, err := eval.ReadValueFile(p, eval.KindOf(o), opts.Model.MaxMemory)
			if err != nil {
				return err
			}
			want = append(want, v)
		}
		res.Against = "expected outputs in " + opts.Inputs
	}
	compareOutputs(res, names, got, want, opts.Tolerance)
	return writeVerify(env, res, format)
}

// compareOutputs fills res with one row per output of got against want.
func compareOutputs(res *report.Verify, names []string, got, want []eval.Value, tol eval.Tolerance) {
	res.OK = true
	for i := range got {
		d := eval.Compare(got[i], want[i], tol)
		row := report.VerifyOutput{Name: names[i], Type: typeText(want[i]), MaxAbsErr: d.MaxAbs, MaxRelErr: d.MaxRel,
			Mismatches: d.Mismatches, Elements: d.Elements, Problem: d.Problem, OK: d.OK()}
		res.OK = res.OK && row.OK
		res.Outputs = append(res.Outputs, row)
	}
}

// writeVerify prints res and turns a mismatch into exit status 1.
func writeVerify(env *Env, res *report.Verify, format report.Format) error {
	if err := report.WriteVerify(env.Out, res, format); err != nil {
		return err
	}
	if !res.OK {
		bad := 0
		for _, o := range res.Outputs {
			if !o.OK {
				bad++
			}
		}
		return exitErr{code: 1, msg: "verify: " + report.Verdict(bad, len(res.Outputs), "output")}
	}
	return nil
}

// verifyORT is verify --ort: both models run in ONNX Runtime on inputs.
func verifyORT(env *Env, opts *VerifyOptions, args []string, a *evalModel, inputs map[string]eval.Value, res *report.Verify, format report.Format) error {
	b, err := loadSecond(env, opts, args, a, inputs, res)
	if err != nil {
		return err
	}
	defer b.Close()
	h, err := openORT(env.Err)
	if err != nil {
		return fmt.Errorf("verify --ort: %v", err)
	}
	outs, err := ortRunModels(h, []ortModel{{args[0], a.Model.Graph, inputs}, {args[1], b.Model.Graph, inputs}}, opts.Model.MaxMemory)
	if err != nil {
		return fmt.Errorf("verify --ort: %v", err)
	}
	for i, o := range outs {
		if o.Err != "" {
			return fmt.Errorf("verify --ort: ONNX Runtime cannot run %s: %s", args[i], o.Err)
		}
		if len(o.Outputs) != len(a.Model.Graph.Outputs) {
			return fmt.Errorf("verify --ort: ONNX Runtime gave %d outputs for %s, want %d", len(o.Outputs), args[i], len(a.Model.Graph.Outputs))
		}
	}
	names := make([]string, len(a.Model.Graph.Outputs))
	for i, o := range a.Model.Graph.Outputs {
		names[i] = o.Name
	}
	res.Against, res.Runtime = args[1], ortRuntime
	compareOutputs(res, names, outs[0].Outputs, outs[1].Outputs, opts.Tolerance)
	return writeVerify(env, res, format)
}

// loadSecond loads B (args[1]) and checks it reads only inputs A has and
// has as many outputs.
func loadSecond(env *Env, opts *VerifyOptions, args []string, a *evalModel, inputs map[string]eval.Value, res *report.Verify) (*evalModel, error) {
	b, err := opts.Model.loadEval(args[1], opts.Fill, opts.Inputs == "")
	if err != nil {
		return nil, err
	}
	bw := prefixed(args[1], b.Warnings())
	env.warn(bw)
	res.Warnings = append(res.Warnings, bw...)
	for _, in := range b.Model.Graph.Inputs {
		if _, ok := inputs[in.Name]; !ok && in.Const == nil {
			b.Close()
			return nil, fmt.Errorf("%s: input %q is not an input of %s", args[1], in.Name, args[0])
		}
	}
	if len(b.Model.Graph.Outputs) != len(a.Model.Graph.Outputs) {
		b.Close()
		return nil, fmt.Errorf("%s has %s, %s has %d", args[0], report.Count(len(a.Model.Graph.Outputs), "output"), args[1], len(b.Model.Graph.Outputs))
	}
	return b, nil
}
