package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/report"
)

// VerifyOptions are the inputs of `wolong verify`.
type VerifyOptions struct {
	Model  ModelFlags
	Inputs string
	Seed   uint32
	RTol   float64
	ATol   float64
	Format string
}

func newVerifyCmd(env *Env) *cobra.Command {
	opts := &VerifyOptions{}
	c := &cobra.Command{
		Use:   "verify A.onnx [B.onnx]",
		Short: "Check that two models (or a model and expected outputs) compute the same thing",
		Long: `verify runs models on wolong's CPU reference evaluator and compares their
outputs element by element: |a-b| <= atol + rtol*|b|.

With two models, both run on the same inputs: the input_N.pb files of
--inputs, else deterministic random inputs of the declared types (--seed;
symbolic dims need --dim). With one model, --inputs must also hold the
expected output_N.pb files (the ONNX test-data layout).

It prints one row per output (max abs error, max rel error, ok) and exits
with status 1 when any output differs.`,
		Example: `  wolong verify model.onnx optimized.onnx --dim N=1
  wolong verify model.onnx --inputs test_data_set_0
  wolong verify a.onnx b.onnx --seed 7 --rtol 1e-3 --format json`,
		Args:              usageArgs(cobra.RangeArgs(1, 2)),
		ValidArgsFunction: completeONNX,
		RunE: func(c *cobra.Command, args []string) error {
			return runVerify(env, opts, args)
		},
	}
	addModelFlags(env, c, &opts.Model)
	addTimeoutFlag(c, &opts.Model)
	c.Flags().StringVar(&opts.Inputs, "inputs", "", "folder of input_N.pb files (and, with one model, the expected output_N.pb)")
	c.Flags().Uint32Var(&opts.Seed, "seed", 1, "seed of the random inputs (without --inputs)")
	c.Flags().Float64Var(&opts.RTol, "rtol", eval.DefaultTolerance.RTol, "relative tolerance")
	c.Flags().Float64Var(&opts.ATol, "atol", eval.DefaultTolerance.ATol, "absolute tolerance")
	c.Flags().StringVar(&opts.Format, "format", "table", "output format: table or json")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.MarkFlagDirname("inputs")
	return c
}

// modelInputs returns the inputs for l's main graph: from dir, or random.
func modelInputs(l *Loaded, dir string, seed uint32) (map[string]eval.Value, string, error) {
	if dir != "" {
		in, err := eval.ReadInputDir(l.Model.Graph, dir, l.MaxMemory)
		return in, dir, err
	}
	in, err := eval.RandomInputs(l.Model.Graph, seed, l.MaxMemory)
	return in, fmt.Sprintf("random inputs (seed %d)", seed), err
}

// evaluate runs l on inputs, keeping only those the graph declares, and
// shows node progress on pr (nil: none) with prefix before the line.
func evaluate(l *Loaded, inputs map[string]eval.Value, pr *progress, prefix string) ([]eval.Value, error) {
	mine := map[string]eval.Value{}
	for _, in := range l.Model.Graph.Inputs {
		if v, ok := inputs[in.Name]; ok {
			mine[in.Name] = v
		}
	}
	defer pr.Done()
	return eval.Run(l.Model, mine, eval.Options{MaxMemory: l.MaxMemory, OnNode: pr.nodeHook(prefix), Deadline: l.Deadline})
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

func runVerify(env *Env, opts *VerifyOptions, args []string) error {
	format, err := report.ParseFormat(opts.Format)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	if opts.RTol < 0 || opts.ATol < 0 {
		return Usagef("--rtol and --atol must be >= 0")
	}
	if len(args) == 1 && opts.Inputs == "" {
		return Usagef("with one model, give --inputs DIR holding input_N.pb and the expected output_N.pb")
	}
	a, err := opts.Model.loadModel(args[0])
	if err != nil {
		return err
	}
	defer a.Close()
	inputs, source, err := modelInputs(a, opts.Inputs, opts.Seed)
	if err != nil {
		return fmt.Errorf("%s: %v", args[0], err)
	}
	got, err := evaluate(a, inputs, opts.Model.progress, filepath.Base(args[0])+": ")
	if err != nil {
		return fmt.Errorf("%s: %v", args[0], err)
	}
	res := &report.Verify{Models: []string{args[0]}, Inputs: source, RTol: opts.RTol, ATol: opts.ATol}
	var want []eval.Value
	names := make([]string, len(a.Model.Graph.Outputs))
	for i, o := range a.Model.Graph.Outputs {
		names[i] = o.Name
	}
	if len(args) == 2 {
		b, err := opts.Model.loadModel(args[1])
		if err != nil {
			return err
		}
		defer b.Close()
		for _, in := range b.Model.Graph.Inputs {
			if _, ok := inputs[in.Name]; !ok && in.Const == nil {
				return fmt.Errorf("%s: input %q is not an input of %s", args[1], in.Name, args[0])
			}
		}
		if len(b.Model.Graph.Outputs) != len(got) {
			return fmt.Errorf("%s has %d outputs, %s has %d", args[0], len(got), args[1], len(b.Model.Graph.Outputs))
		}
		if want, err = evaluate(b, inputs, opts.Model.progress, filepath.Base(args[1])+": "); err != nil {
			return fmt.Errorf("%s: %v", args[1], err)
		}
		res.Against = args[1]
	} else {
		for i, o := range a.Model.Graph.Outputs {
			p := filepath.Join(opts.Inputs, fmt.Sprintf("output_%d.pb", i))
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("%s holds no expected output_%d.pb for output %q: give a second model or the expected outputs", opts.Inputs, i, o.Name)
			}
			v, err := eval.ReadValueFile(p, eval.KindOf(o), a.MaxMemory)
			if err != nil {
				return err
			}
			want = append(want, v)
		}
		res.Against = "expected outputs in " + opts.Inputs
	}
	tol := eval.Tolerance{RTol: opts.RTol, ATol: opts.ATol}
	res.OK = true
	for i := range got {
		d := eval.Compare(got[i], want[i], tol)
		row := report.VerifyOutput{Name: names[i], Type: typeText(want[i]), MaxAbsErr: d.MaxAbs, MaxRelErr: d.MaxRel,
			Mismatches: d.Mismatches, Elements: d.Elements, Problem: d.Problem, OK: d.OK()}
		res.OK = res.OK && row.OK
		res.Outputs = append(res.Outputs, row)
	}
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
		return exitErr{code: 1, msg: fmt.Sprintf("verify: %d of %d outputs differ", bad, len(res.Outputs))}
	}
	return nil
}
