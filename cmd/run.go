package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
)

// RunOptions are the inputs of `wolong run`, typed.
type RunOptions struct {
	Path   string
	Model  ModelOptions
	Inputs string // --inputs DIR
	Seed   uint32
	Out    string // -o DIR
	Save   bool   // --save-inputs
	Fill   []Fill
}

// runFlags are run's flags as given.
type runFlags struct {
	model  modelFlags
	inputs string
	seed   uint32
	out    string
	save   bool
	fill   []string
}

func (f *runFlags) toOptions(env *Env, args []string) (*RunOptions, error) {
	if f.out == "" {
		return nil, Usagef("give the output folder with -o DIR")
	}
	mo, fills, err := evalOptions(env, &f.model, f.fill)
	if err != nil {
		return nil, err
	}
	return &RunOptions{Path: args[0], Model: mo, Inputs: f.inputs, Seed: f.seed, Out: f.out, Save: f.save, Fill: fills}, nil
}

// NewCmdRun builds `wolong run`; runF, when not nil, gets the options
// instead of running them (tests).
func NewCmdRun(env *Env, runF func(*RunOptions) error) *cobra.Command {
	f := &runFlags{}
	c := &cobra.Command{
		Use:   "run MODEL",
		Short: "Evaluate a model on the CPU reference evaluator and write its outputs as .pb",
		Long: `run evaluates a model with wolong's CPU reference evaluator on the
input_N.pb files of --inputs (else deterministic random inputs: --seed, and
--dim for symbolic dims; --fill name=value for an input that must hold one
value, such as a sample rate) and writes output_N.pb files (TensorProto,
SequenceProto or OptionalProto) into the -o folder: all of them, or none
when the run fails. --save-inputs also writes the inputs used as input_N.pb.`,
		Example: `  wolong run model.onnx --inputs test_data_set_0 -o out
  wolong run model.onnx --dim N=1 --seed 3 -o out --save-inputs
  wolong run silero_vad.onnx --input input=1x512 --input state=2x1x128 --fill sr=16000 -o out`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeONNX,
		RunE:              runE(env, f.toOptions, runF, runRun),
	}
	addEvalFlags(c, &f.model, &f.inputs, &f.seed, "folder of input_N.pb files (default: random inputs)")
	c.Flags().StringVarP(&f.out, "output", "o", "", "folder to write output_N.pb into (created if missing)")
	c.Flags().BoolVar(&f.save, "save-inputs", false, "also write the inputs used as input_N.pb")
	addFillFlag(c, &f.fill)
	_ = c.MarkFlagDirname("inputs")
	_ = c.MarkFlagDirname("output")
	return c
}

func runRun(env *Env, opts *RunOptions) error {
	path := opts.Path
	out := newOutputs(path)
	defer out.abort()
	if err := out.checkDir("-o", opts.Out); err != nil {
		return err
	}
	l, err := opts.Model.loadEval(path, opts.Fill, opts.Inputs == "")
	if err != nil {
		return err
	}
	defer l.Close()
	env.warn(l.Warnings())
	inputs, source, err := modelInputs(l, opts.Inputs, opts.Seed, opts.Fill)
	if err != nil {
		return err
	}
	outs, err := evaluate(l, inputs, "")
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	// every file is staged first: all appear, or none
	write := func(f pipeline.PBFile) error {
		b, err := f.Encode()
		if err != nil {
			return err
		}
		return out.write("-o", f.Path, func(w io.Writer) error { _, err := w.Write(b); return err })
	}
	if opts.Save {
		for _, f := range pipeline.InputFiles(l.Model.Graph, inputs, opts.Out) {
			if err := write(f); err != nil {
				return err
			}
		}
	}
	files := pipeline.OutputFiles(l.Model.Graph, outs, opts.Out)
	for i, f := range files {
		if d := opts.Model.deadline; !d.IsZero() && time.Now().After(d) {
			return fmt.Errorf("%s: stopped after writing %d of %d outputs, over the time limit (--timeout)", path, i, len(files))
		}
		if err := write(f); err != nil {
			return err
		}
	}
	if err := out.commit(); err != nil {
		return err
	}
	report.WriteRunFiles(env.Out, files)
	fmt.Fprintf(env.Err, "run: %s evaluated on %s\n", path, source)
	return nil
}
