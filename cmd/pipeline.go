package cmd

// This file holds what optimize and explain share: their flags, the one
// step that turns them into typed options (pipeline.OptimizeOptions among
// them), and the run of the pipeline with the assumptions it states.

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// pipelineFlags are the flags optimize and explain share, as given.
type pipelineFlags struct {
	model      modelFlags
	hw         string
	level      int
	passes     []string
	disable    []string
	format     string
	batch      int64
	tf32       bool
	verifyEach bool
	target     string       // --target onnx|ort
	runtime    string       // --runtime: the runtime preset's host costs
	cluster    ClusterFlags // --cluster NxG and its flags: place the optimized model
	missed     bool         // --missed: list the refused candidates
	changed    func(string) bool
}

// PipelineOptions are what optimize and explain share, typed.
type PipelineOptions struct {
	Path   string
	Model  ModelOptions
	HW     *hw.Hardware
	Format report.Format
	Batch  int64 // --batch: dim 0 of the batch inputs (0: as the model gives it)
	// Optimize is the one set of pass options: the level, pass selection,
	// target, hardware, predictions on it, and the cluster placement.
	Optimize pipeline.OptimizeOptions
	// Missed lists every candidate the fusion and batching passes refused
	// (--missed) instead of one line.
	Missed bool
}

// addPipelineFlags registers the flags optimize and explain share.
func addPipelineFlags(c *cobra.Command, f *pipelineFlags) {
	addModelFlags(c, &f.model)
	fs := c.Flags()
	fs.IntVarP(&f.level, "opt-level", "O", 3, "optimization level `0..3` (-O0 nothing, -O1 clean-up, -O2 + fusion, -O3 + batching)")
	stringSliceVar(fs, &f.passes, "passes", "run only these passes, comma-separated (required passes always run)")
	stringSliceVar(fs, &f.disable, "disable-pass", "skip these passes (repeatable, comma-separated)")
	addHWFlag(c, fs, &f.hw, "hw", "h100", hwUsage)
	fs.StringVar(&f.format, "format", "table", "output format: table or json")
	fs.Int64Var(&f.batch, "batch", 0, "set dim 0 of every graph input to `N` before optimizing (0: as the model gives it)")
	fs.BoolVar(&f.tf32, "tf32", false, "cost float32 matrix ops on TF32 tensor cores")
	fs.BoolVar(&f.verifyEach, "verify-each", false, "run the IR verifier after every pass")
	fs.BoolVar(&f.missed, "missed", false, "list every candidate the fusion and batching passes refused, with the guard and the predicted gain (largest first)")
	fs.StringVar(&f.target, "target", "onnx", "runtime to optimize for: onnx (standard ONNX, fused groups as model-local functions) or ort (ONNX Runtime 1.30: its fused operators where it has them, other groups inlined; predicted as ORT runs it)")
	addPipelineClusterFlags(c, &f.cluster)
	addRuntimeFlag(c, &f.runtime)
	f.changed = func(name string) bool { return c.Flags().Changed(name) }
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("passes", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return passNameList(), cobra.ShellCompDirectiveNoFileComp
	})
}

func passNameList() []string {
	var out []string
	for _, p := range optimize.Passes() {
		out = append(out, p.Name)
	}
	return out
}

// toOptions checks the shared flags and types them.
func (f *pipelineFlags) toOptions(env *Env, path string) (PipelineOptions, error) {
	var o PipelineOptions
	format, err := parseFormat(f.format)
	if err != nil {
		return o, err
	}
	if f.level < 0 || f.level > optimize.MaxLevel {
		return o, Usagef("-O%d: want 0..%d", f.level, optimize.MaxLevel)
	}
	if _, err := optimize.Select(f.level, f.passes, f.disable); err != nil {
		return o, usageErr{err}
	}
	if f.batch < 0 {
		return o, Usagef("--batch must not be negative")
	}
	target, err := optimize.ParseTarget(f.target)
	if err != nil {
		return o, Usagef("--target %v", err)
	}
	cl, err := f.cluster.placement(f.changed, f.hw)
	if err != nil {
		return o, err
	}
	h, err := resolveHW("--hw", f.hw)
	if err != nil {
		return o, err
	}
	if h, _, err = withRuntime(h, f.runtime); err != nil {
		return o, err
	}
	mo, err := f.model.toOptions(env)
	if err != nil {
		return o, err
	}
	return PipelineOptions{Path: path, Model: mo, HW: h, Format: format, Batch: f.batch, Missed: f.missed,
		Optimize: pipeline.OptimizeOptions{Level: f.level, Only: f.passes, Disable: f.disable, VerifyEach: f.verifyEach,
			Target: target, HW: h, Predict: true, Cost: cost.Options{TF32: f.tf32, Settings: pipelineCostSettings}, Cluster: cl}}, nil
}

// optimized is a pipeline run of optimize or explain: the stages, and
// what the prediction assumes and warns of, in the order they print.
type optimized struct {
	inferred  *pipeline.Inferred
	optimized *pipeline.Optimized
	assume    []string
	warnings  []string
}

// runPipeline loads and infers the model (symbolic dims not given default
// to 1, --batch applied) and optimizes it; the pass driver writes dumps
// before the first pass and after each and, with hash, records which
// passes left the model unchanged (explain). The caller closes
// r.inferred.Loaded. The passes rewrite the inferred model itself (no
// caller reads it again); with inPlace (a caller that does not read the
// loaded model again: no --emit-onnx) inference rewrites the loaded model
// instead of a copy of it. With countRewrites (a caller that shows only
// how many rewrites each pass made) the result keeps no rewrite.
func runPipeline(o *PipelineOptions, dumps []optimize.Dump, hash, inPlace, finalPeakOnly, countRewrites bool) (*optimized, error) {
	f, err := o.Model.loadInferred(o.Path, pipeline.InferOptions{DefaultDims: true, Batch: o.Batch, InPlace: inPlace})
	if err != nil {
		return nil, err
	}
	r := &optimized{inferred: f, warnings: withHostWarning(f.Warnings(), o.HW)}
	if len(f.Defaulted) > 0 {
		r.assume = append(r.assume, "symbolic dims not given with --dim set to 1: "+strings.Join(f.Defaulted, ", "))
	}
	for _, n := range f.BatchNotes() {
		r.assume = append(r.assume, "--batch: node "+n)
	}
	if o.Optimize.Target == optimize.TargetORT {
		r.assume = append(r.assume, "--target ort: each fused group ONNX Runtime 1.30 has an operator for is costed as that operator, one kernel; every other group as its members, which ORT runs one by one after inlining the function (the predicted speedup is the one ORT can deliver)")
	}
	opt := o.Optimize
	opt.Dumps, opt.Hash, opt.Now, opt.OnPassStart = dumps, hash, passClock, o.Model.progress.passHook("")
	opt.InPlace = true
	opt.Refusals = true // the missed opportunities optimize and explain list
	opt.FinalPeakOnly = finalPeakOnly
	opt.CountRewrites = countRewrites
	r.optimized, err = pipeline.Optimize(f, opt)
	o.Model.progress.Done()
	if err != nil {
		f.Loaded.Close()
		return nil, err
	}
	if opt.Cluster != nil {
		if !r.optimized.PlacementApplied {
			r.assume = append(r.assume, "--cluster: the rdma pass did not run (it is -O3), so the placement is planned on the optimized model but not applied to the IR")
		}
		r.assume = append(r.assume, "--cluster: the placement plans a training step (activation gradients and weight gradients move too); the kernel times and the predicted time above are one inference (forward) pass of the optimized model on one GPU, as without --cluster ('wolong profile --cluster' predicts the training step)")
	}
	r.assume = append(r.assume, r.optimized.Assumptions()...)
	return r, nil
}
