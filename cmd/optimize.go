package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
)

// OptimizeOptions are the inputs of `wolong optimize`, typed.
type OptimizeOptions struct {
	PipelineOptions
	Plan     string // -o plan.json
	EmitONNX string // --emit-onnx out.onnx
	External importer.ExternalMode
	Pass     string // --pass: show only this pass's missed opportunities
	// LLM is --cluster with the LLM flags: plan a decoder transformer's
	// training layout instead of optimizing the graph (nil: the passes).
	LLM *ClusterRun
}

// optimizeFlags are optimize's flags as given.
type optimizeFlags struct {
	pipelineFlags
	plan     string
	emitONNX string
	external string // --external-data auto|always
	llm      LLMFlags
	dtype    string // --dtype: the LLM plan's precision
	pass     string // --pass
}

func (f *optimizeFlags) toOptions(env *Env, args []string) (*OptimizeOptions, error) {
	if _, err := parseFormat(f.format); err != nil {
		return nil, err
	}
	if o, err := f.llmOptions(env, args); o != nil || err != nil {
		return o, err
	}
	if f.changed("dtype") {
		return nil, Usagef("--dtype applies to the LLM planner (--cluster with --llm PRESET or the LLM layout flags)")
	}
	mode, err := importer.ParseExternalMode(f.external)
	if err != nil {
		return nil, Usagef("--external-data: %v", err)
	}
	po, err := f.pipelineFlags.toOptions(env, args[0])
	if err != nil {
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
	return &OptimizeOptions{PipelineOptions: po, Plan: f.plan, EmitONNX: f.emitONNX, External: mode, Pass: pass}, nil
}

// NewCmdOptimize builds `wolong optimize`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdOptimize(env *Env, runF func(*OptimizeOptions) error) *cobra.Command {
	f := &optimizeFlags{}
	c := &cobra.Command{
		Use:   "optimize [MODEL]",
		Short: "Run the optimization passes and predict the speedup",
		Long: `optimize runs wolong's pass pipeline over MODEL: clean-up (no-op removal,
constant and shape folding, CSE, dead code), kernel fusion (elementwise chains,
reductions with their producers, Conv/MatMul/Gemm epilogues, BatchNorm folded
into Conv weights, LayerNorm, GELU, SiLU, RMSNorm, attention) and operator
batching (sibling GEMMs sharing an input; independent same-signature GEMMs such
as the time steps of an unrolled RNN). It prints nodes, kernels, predicted time
on --hw and memory peak before and after, and each pass's contribution.
-o writes the plan (kernels in schedule order with their member nodes, time and
bound); --emit-onnx writes the optimized model as standard ONNX, fused groups as
model-local functions (wolong reads them back as the fused kernels they are).
--target ort optimizes for ONNX Runtime 1.30 instead: each fused group ORT has
a fused operator for is written as it (com.microsoft FusedConv, FusedGemm,
FusedMatMul, BiasGelu, FastGelu, Gelu, QuickGelu, SkipLayerNormalization;
LayerNormalization, SimplifiedLayerNormalization), every other group is
inlined into its members as ORT would inline its function, and the prediction
costs what ORT runs. --cluster NxG (with --net, --transport, --strategy as
for profile) places the optimized model on a cluster: the rdma pass (-O3) tags
every node with its device and, under pipeline, inserts RdmaWrite / RdmaRead /
Copy transfer nodes on the cut edges; the placement (devices, transfers and
their mechanism, receive buffers, registered memory, fallbacks) goes into the
plan and the JSON output.

With --cluster, the LLM flags (--llm PRESET or MODEL's decoder transformer,
--tp --pp --dp --ep --cp --vp --sp --zero --recompute --micro-batch
--global-batch --seq --framework, or --strategy auto --global-batch N)
plan a training layout with profile's LLM planner instead: the degrees,
the layers of each pipeline stage and model chunk, where each parallel
group's ranks sit, memory per GPU by part, the collectives, the predicted
step, MFU and tokens/s, and the equivalent Megatron-LM arguments. -o
writes the plan as JSON; a layout that does not fit prints its breakdown,
writes nothing and exits 1. Passes: ` + strings.Join(passNameList(), ", ") + `.`,
		Example: `  wolong optimize model.onnx --hw h100
  wolong optimize model.onnx -O2 --disable-pass gelu -o plan.json
  wolong optimize model.onnx --emit-onnx model.opt.onnx --format json | jq .speedup
  wolong optimize model.onnx --hw cpu-1t --target ort --emit-onnx model.ort.onnx
  wolong optimize --llm llama3-70b --cluster 64x8 --hw h100 --strategy auto --global-batch 1024 -o plan.json
  wolong optimize llama.onnx --cluster 16x8 --hw h200 --tp 8 --pp 2 --sp --zero 1 --global-batch 256 --format json`,
		Args:              usageArgs(cobra.RangeArgs(0, 1)),
		ValidArgsFunction: completeONNX,
		RunE:              runE(env, f.toOptions, runF, optimizeRun),
	}
	addPipelineFlags(c, &f.pipelineFlags)
	c.Flags().StringVar(&f.pass, "pass", "", "with --missed (and in JSON's missed list): only the pass called `NAME`'s refused candidates")
	addLLMTrainFlags(c, &f.llm)
	c.Flags().StringVar(&f.dtype, "dtype", "", "LLM: the plan's training precision, a float `type` (default bfloat16)")
	c.Flags().StringVarP(&f.plan, "output", "o", "", "write the plan as JSON to `plan.json`")
	c.Flags().StringVar(&f.emitONNX, "emit-onnx", "", "write the optimized model as ONNX to `out.onnx`")
	c.Flags().StringVar(&f.external, "external-data", "auto", "with --emit-onnx, weights as external data: `auto` (only when the model would pass protobuf's 2 GiB limit) or always; weights already in an external file in the output's folder are referenced there, others go into out.onnx.data")
	return c
}

func optimizeRun(env *Env, opts *OptimizeOptions) error {
	if opts.LLM != nil {
		return optimizeLLMRun(env, opts)
	}
	out := newOutputs(opts.Path)
	defer out.abort()
	if err := out.check("-o", opts.Plan); err != nil {
		return err
	}
	if err := out.check("--emit-onnx", opts.EmitONNX); err != nil {
		return err
	}
	// the report shows the memory peak before and after, not each pass's,
	// and each pass's number of rewrites (the plan, -o, lists them)
	r, err := runPipeline(&opts.PipelineOptions, nil, false, opts.EmitONNX == "", true, opts.Plan == "")
	if err != nil {
		return err
	}
	defer r.inferred.Loaded.Close()
	o := r.optimized
	predict := pipeline.SimOptions{HW: opts.HW, Streams: 1, Mode: simulate.Inference, Cost: opts.Optimize.Cost}
	if opts.Plan != "" {
		sim, err := pipeline.Simulate(o, predict)
		if err != nil {
			return err
		}
		plan := report.NewPlan(opts.Path, o.Result, sim.Result)
		plan.Placement = o.Placement
		if err := out.write("-o", opts.Plan, func(w io.Writer) error { return report.WriteJSON(w, plan) }); err != nil {
			return err
		}
	}
	var emitted *optimize.Prediction
	if opts.EmitONNX != "" {
		if emitted, err = emit(opts, r, out, predict); err != nil {
			return err
		}
	}
	if err := out.commitSaying(env.Err); err != nil {
		return err
	}
	rep := report.NewOptimize(opts.Path, opts.HW.Name, o.Result, dedupe(r.assume), r.warnings)
	rep.SetExpectedError(opts.HW)
	rep.SetWhy(o.BaselineWhy, o.Why(), opts.HW)
	rep.FilterMissed(opts.Pass)
	rep.ShowMissed = opts.Missed
	if emitted != nil {
		e := report.Summary(*emitted)
		rep.Emitted = &e
	}
	rep.Placement = o.Placement
	env.warn(rep.Warnings)
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, rep)
	}
	return rep.WriteText(env.Out)
}

// emit stages --emit-onnx (pipeline.EmitONNX) and returns the prediction
// of what it wrote at the command's shapes.
func emit(opts *OptimizeOptions, r *optimized, out *outputs, predict pipeline.SimOptions) (*optimize.Prediction, error) {
	if opts.Optimize.Cluster != nil {
		r.warnings = append(r.warnings, "--emit-onnx with --cluster: ONNX has no transfer op, so the model written is the optimized model without the placement's transfer nodes (the placement is in the -o plan and the JSON output)")
	}
	eo := opts.Optimize
	eo.OnPassStart = opts.Model.progress.passHook("--emit-onnx: ")
	e, err := pipeline.EmitONNX(r.optimized, eo, predict, opts.EmitONNX, importer.WriteOptions{External: opts.External, Batch: out.b}, opts.Model.progress.Done)
	var we *pipeline.WriteError
	if errors.As(err, &we) {
		return nil, fmt.Errorf("--emit-onnx: %v", we.Err)
	}
	if err != nil {
		return nil, err
	}
	if e.Reoptimized {
		r.assume = append(r.assume, "--emit-onnx: the written model was optimized with its symbolic dims kept, so it is valid for every input size")
	}
	r.assume = append(r.assume, report.ExternalNotes(e.Written)...)
	return e.Prediction, nil
}

// dedupe drops repeated lines, keeping the first.
func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
