package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// OptimizeOptions are the inputs of `wolong optimize` (and the pipeline
// part of `wolong explain`).
type OptimizeOptions struct {
	Model      ModelFlags
	HW         string
	Level      int
	Passes     []string
	Disable    []string
	Format     string
	Plan       string // -o plan.json
	EmitONNX   string
	External   string // --external-data auto|always
	Batch      int64
	TF32       bool
	VerifyEach bool
	Target     string       // --target onnx|ort
	Cluster    ClusterFlags // --cluster NxG and its flags: place the optimized model
	// changed reports whether a flag was given (set with the flags).
	changed func(string) bool
}

// addPipelineFlags registers the flags optimize and explain share.
func addPipelineFlags(env *Env, c *cobra.Command, o *OptimizeOptions) {
	addModelFlags(env, c, &o.Model)
	f := c.Flags()
	f.IntVarP(&o.Level, "opt-level", "O", 3, "optimization level `0..3` (-O0 nothing, -O1 clean-up, -O2 + fusion, -O3 + batching)")
	f.StringSliceVar(&o.Passes, "passes", nil, "run only these passes, comma-separated (required passes always run)")
	f.StringSliceVar(&o.Disable, "disable-pass", nil, "skip these passes (repeatable, comma-separated)")
	f.StringVar(&o.HW, "hw", "h100", "hardware: a preset ("+strings.Join(hw.Names(), ", ")+") or a hardware file `path.json`")
	f.StringVar(&o.Format, "format", "table", "output format: table or json")
	f.Int64Var(&o.Batch, "batch", 0, "set dim 0 of every graph input to `N` before optimizing (0: as the model gives it)")
	f.BoolVar(&o.TF32, "tf32", false, "cost float32 matrix ops on TF32 tensor cores")
	f.BoolVar(&o.VerifyEach, "verify-each", false, "run the IR verifier after every pass")
	f.StringVar(&o.Target, "target", "onnx", "runtime to optimize for: onnx (standard ONNX, fused groups as model-local functions) or ort (ONNX Runtime 1.30: its fused operators where it has them, other groups inlined; predicted as ORT runs it)")
	addPipelineClusterFlags(c, o)
	_ = c.RegisterFlagCompletionFunc("hw", cobra.FixedCompletions(hw.Names(), cobra.ShellCompDirectiveDefault))
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

func newOptimizeCmd(env *Env) *cobra.Command {
	opts := &OptimizeOptions{}
	c := &cobra.Command{
		Use:   "optimize MODEL",
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
plan and the JSON output. Passes: ` + strings.Join(passNameList(), ", ") + `.`,
		Example: `  wolong optimize model.onnx --hw h100
  wolong optimize model.onnx -O2 --disable-pass gelu -o plan.json
  wolong optimize model.onnx --emit-onnx model.opt.onnx --format json | jq .speedup
  wolong optimize model.onnx --hw cpu-1t --target ort --emit-onnx model.ort.onnx`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeONNX,
		RunE: func(c *cobra.Command, args []string) error {
			return runOptimize(env, opts, args[0])
		},
	}
	addPipelineFlags(env, c, opts)
	c.Flags().StringVarP(&opts.Plan, "output", "o", "", "write the plan as JSON to `plan.json`")
	c.Flags().StringVar(&opts.EmitONNX, "emit-onnx", "", "write the optimized model as ONNX to `out.onnx`")
	c.Flags().StringVar(&opts.External, "external-data", "auto", "with --emit-onnx, weights as external data: `auto` (only when the model would pass protobuf's 2 GiB limit) or always; weights already in an external file in the output's folder are referenced there, others go into out.onnx.data")
	return c
}

// pipeline is a loaded model with the simulator wired in as predictor.
type pipeline struct {
	l        *Loaded
	hw       *hw.Hardware
	pred     *simPredictor
	warnings []string
	assume   []string
	// specialized is set when shapes were fixed for prediction (--dim,
	// --input, --batch or defaulted symbolic dims): the emitted model is
	// then optimized from a fresh, unspecialized copy.
	specialized bool
	// placer is set with --cluster: the rdma pass places the model.
	placer *clusterPlacer
	// infer is what the model was inferred with (dims given or defaulted).
	infer ir.InferOptions
}

// simPredictor predicts with the simulator (one stream, inference).
type simPredictor struct {
	h    *hw.Hardware
	opt  simulate.Options
	last *simulate.Result
}

func (p *simPredictor) Predict(m *ir.Model) (optimize.Prediction, error) {
	r, err := simulate.Run(m, p.h, p.opt)
	if err != nil {
		return optimize.Prediction{}, err
	}
	p.last = r
	return optimize.Prediction{Kernels: r.Kernels, TotalMs: r.TotalS * 1e3, PeakBytes: int64(r.PeakMemoryBytes), Unknown: r.UnknownNodes}, nil
}

// loadPipeline checks the flags, loads and infers the model (symbolic
// dims not given default to 1, --batch applied) and builds the predictor.
func loadPipeline(o *OptimizeOptions, path string) (*pipeline, error) {
	if o.Level < 0 || o.Level > optimize.MaxLevel {
		return nil, Usagef("-O%d: want 0..%d", o.Level, optimize.MaxLevel)
	}
	if _, err := optimize.Select(o.Level, o.Passes, o.Disable); err != nil {
		return nil, Usagef("%v", strings.TrimPrefix(err.Error(), "optimize: "))
	}
	if o.Batch < 0 {
		return nil, Usagef("--batch must not be negative")
	}
	if _, err := optimize.ParseTarget(o.Target); err != nil {
		return nil, Usagef("--target %v", err)
	}
	placer, err := newClusterPlacer(o)
	if err != nil {
		return nil, err
	}
	h, err := hw.Resolve(o.HW)
	if placer != nil && err != nil {
		h, err = placer.c.GPU, nil // a GPU only simulate/cluster knows (p100)
	}
	if err != nil {
		return nil, Usagef("--hw: %v", err)
	}
	l, err := o.Model.loadModel(path)
	if err != nil {
		return nil, err
	}
	p := &pipeline{l: l, hw: h, placer: placer}
	if placer != nil {
		placer.sim.Cost.TF32 = o.TF32
	}
	p.specialized = len(l.Opt.Dims) > 0 || len(l.Opt.Inputs) > 0 || o.Batch > 0
	defaulted := l.DefaultDims()
	p.specialized = p.specialized || len(defaulted) > 0
	if o.Batch > 0 {
		io := l.Opt
		io.Inputs = simulate.BatchInputs(l.Model.Graph, o.Batch, io.Inputs)
		l.Reinfer(io)
	}
	p.warnings = l.Warnings
	p.infer = l.Opt
	if len(defaulted) > 0 {
		p.assume = append(p.assume, "symbolic dims not given with --dim set to 1: "+strings.Join(defaulted, ", "))
	}
	p.pred = &simPredictor{h: h, opt: simulate.Options{Streams: 1, Mode: simulate.Inference, Cost: cost.Options{TF32: o.TF32}}}
	p.warnings = withHostWarning(p.warnings, h)
	return p, nil
}

// run optimizes the pipeline's model; the driver writes dumps and, with
// hash, records which passes left the model unchanged (explain).
func (p *pipeline) run(o *OptimizeOptions, dumps []optimize.Dump, hash bool) (*optimize.Result, error) {
	target, _ := optimize.ParseTarget(o.Target)
	opt := optimize.Options{Level: o.Level, Only: o.Passes, Disable: o.Disable,
		VerifyEach: o.VerifyEach, Predictor: p.pred, Dumps: dumps, Hash: hash, Now: passClock, OnChipBytes: onChipBytes(p.hw),
		OnPassStart: o.Model.progress.passHook(""), Target: target}
	if target == optimize.TargetORT {
		p.assume = append(p.assume, "--target ort: each fused group ONNX Runtime 1.30 has an operator for is costed as that operator, one kernel; every other group as its members, which ORT runs one by one after inlining the function (the predicted speedup is the one ORT can deliver)")
	}
	if p.placer != nil {
		opt.Placer = p.placer
	}
	res, err := optimize.Run(p.l.Model, opt)
	o.Model.progress.Done()
	if err != nil {
		return nil, err
	}
	if p.placer != nil {
		if _, applied, err := p.placer.placement(p.l.Model); err != nil {
			return nil, err
		} else if !applied {
			p.assume = append(p.assume, "--cluster: the rdma pass did not run (it is -O3), so the placement is planned on the optimized model but not applied to the IR")
		}
		p.assume = append(p.assume, "--cluster: the placement plans a training step (activation gradients and weight gradients move too)")
	}
	if p.pred.last != nil {
		p.assume = append(p.assume, p.pred.last.Assumptions...)
	}
	for _, n := range p.l.Model.Graph.Nodes {
		if info := ir.InfoOf(n); info != nil && info.Class() == ir.CostRNN {
			p.assume = append(p.assume, "recurrent ops are costed without a persistent-RNN kernel: the recurrent weights are re-read from memory every step (the cost model's choice; a persistent kernel keeping them on chip would be faster where they fit)")
			break
		}
	}
	return res, nil
}

func runOptimize(env *Env, opts *OptimizeOptions, path string) error {
	format, err := report.ParseFormat(opts.Format)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	mode, err := importer.ParseExternalMode(opts.External)
	if err != nil {
		return Usagef("--external-data: %v", err)
	}
	out := newOutputs(path)
	defer out.abort()
	if err := out.check("-o", opts.Plan); err != nil {
		return err
	}
	if err := out.check("--emit-onnx", opts.EmitONNX); err != nil {
		return err
	}
	wopt := importer.WriteOptions{External: mode, Batch: out.b}
	p, err := loadPipeline(opts, path)
	if err != nil {
		return err
	}
	defer p.l.Close()
	res, err := p.run(opts, nil, false)
	if err != nil {
		return err
	}
	if opts.Plan != "" {
		sim, err := simulate.Run(p.l.Model, p.hw, p.pred.opt)
		if err != nil {
			return err
		}
		plan := report.NewPlan(path, res, sim)
		if p.placer != nil {
			plan.Placement = p.placer.plan
		}
		if err := out.write("-o", opts.Plan, func(w io.Writer) error { return report.WriteJSON(w, plan) }); err != nil {
			return err
		}
	}
	var emitted *optimize.Prediction
	if opts.EmitONNX != "" {
		m := p.l.Model
		emitted = &res.Final
		if p.placer != nil {
			p.warnings = append(p.warnings, "--emit-onnx with --cluster: ONNX has no transfer op, so the model written is the optimized model without the placement's transfer nodes (the placement is in the -o plan and the JSON output)")
		}
		if p.specialized || p.placer != nil {
			// Shape folding and batching used the fixed dims; the model
			// written must stay valid for every value of its symbolic dims,
			// so optimize an unspecialized copy.
			fresh, err := importer.Load(path, importer.Options{})
			if err != nil {
				return err
			}
			defer fresh.Close()
			ir.InferModel(fresh, ir.InferOptions{})
			target, _ := optimize.ParseTarget(opts.Target)
			_, err = optimize.Run(fresh, optimize.Options{Level: opts.Level, Only: opts.Passes, Disable: opts.Disable, VerifyEach: opts.VerifyEach, OnChipBytes: onChipBytes(p.hw),
				OnPassStart: opts.Model.progress.passHook("--emit-onnx: "), Target: target})
			opts.Model.progress.Done()
			if err != nil {
				return err
			}
			m = fresh
			p.assume = append(p.assume, "--emit-onnx: the written model was optimized with its symbolic dims kept, so it is valid for every input size")
			if emitted, err = p.predictCopy(fresh); err != nil {
				return err
			}
		}
		if _, err := optimize.ToONNX(m); err != nil {
			return err
		}
		wr, err := importer.WriteFileWith(m, opts.EmitONNX, wopt, path)
		if err != nil {
			return fmt.Errorf("--emit-onnx: %v", err)
		}
		p.assume = append(p.assume, externalNote(wr)...)
	}
	if err := out.commit(); err != nil {
		return err
	}
	r := report.NewOptimize(path, p.hw.Name, res, dedupe(p.assume), p.warnings)
	if emitted != nil {
		e := report.Summary(*emitted)
		r.Emitted = &e
	}
	if p.placer != nil {
		r.Placement = p.placer.plan
	}
	env.warn(r.Warnings)
	if format == report.JSON {
		return report.WriteJSON(env.Out, r)
	}
	return r.WriteText(env.Out)
}

// predictCopy predicts a copy of m with the pipeline's dims and options
// (m itself keeps its symbolic dims for export).
func (p *pipeline) predictCopy(m *ir.Model) (*optimize.Prediction, error) {
	c, err := ir.CloneModel(m)
	if err != nil {
		return nil, err
	}
	ir.InferModel(c, p.infer)
	r, err := simulate.Run(c, p.hw, p.pred.opt)
	if err != nil {
		return nil, err
	}
	return &optimize.Prediction{Nodes: len(c.Graph.Nodes), Kernels: r.Kernels, TotalMs: r.TotalS * 1e3, PeakBytes: int64(r.PeakMemoryBytes), Unknown: r.UnknownNodes}, nil
}

// externalNote says where --emit-onnx put the weights when it wrote
// external data.
func externalNote(w *importer.Written) []string {
	var out []string
	if w.Copied > 0 {
		out = append(out, fmt.Sprintf("--emit-onnx: %d weight(s), %s, written as external data to %s", w.Copied, report.Bytes(w.CopiedBytes), w.DataFile))
	}
	if w.Referenced > 0 {
		out = append(out, fmt.Sprintf("--emit-onnx: %d weight(s), %s, left in %s and referenced from the written model (keep it beside the model)", w.Referenced, report.Bytes(w.ReferencedBytes), strings.Join(w.ReferencedFiles, ", ")))
	}
	return out
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

// onChipBytes is the on-chip memory the persistent-RNN pass may keep a
// recurrent weight in: the device's L2 cache (the hardware file has no
// register-file or shared-memory size), 0 for a CPU.
func onChipBytes(h *hw.Hardware) int64 {
	if h == nil || h.Kind != "gpu" {
		return 0
	}
	return int64(h.L2MB * 1e6)
}
