package cmd

import (
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// ProfileOptions are the inputs of `wolong profile`, typed.
type ProfileOptions struct {
	Path   string
	Model  ModelOptions
	Format report.Format
	By     string // node | op
	Top    int
	Trace  string // Chrome-trace output file
	// Sim is the simulation: the hardware (--hw, with --conv-algo
	// applied), streams, mode and cost options (--tf32, --trip, --dtype).
	Sim   pipeline.SimOptions
	Batch int64 // --batch: dim 0 of the batch inputs (0: as the model gives it)
	// Level, when >= 0, runs the optimization passes of that -O level (as
	// optimize does) before simulating: the optimized model's profile
	// (< 0: the model as it is).
	Level int
	// Cluster is --cluster / --sweep and the distributed flags, typed (nil:
	// one device).
	Cluster *ClusterRun
	// Fill are --fill's known input values (fillValues).
	Fill []Fill
	// WhatIf is --what-if, --set and the second preset of --hw A,B.
	WhatIf WhatIfOptions
}

// profileFlags are profile's flags as given.
type profileFlags struct {
	model   modelFlags
	hw      string // preset name or hardware file
	format  string
	by      string // node | op
	top     int
	trace   string
	streams int
	mode    string
	batch   int64
	trip    int64
	// branch is --if-branch: how an If the inputs decide is costed
	branch string
	tf32   bool
	dtype  string
	// convAlgo is the convolution algorithm: auto (the hardware's
	// conv_winograd / conv_im2col), direct or winograd.
	convAlgo string
	winograd bool         // deprecated alias of --conv-algo winograd
	cluster  ClusterFlags // --cluster, --sweep and the distributed flags
	llm      LLMFlags     // the LLM planner's flags (with --cluster)
	level    int
	runtime  string // --runtime: the runtime preset
	fill     []string
	whatIf   whatIfFlags // --what-if, --set
}

// NewCmdProfile builds `wolong profile`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdProfile(env *Env, runF func(*ProfileOptions) error) *cobra.Command {
	f := &profileFlags{}
	c := &cobra.Command{
		Use:   "profile [MODEL]",
		Short: "Predict a model's run time, FLOP/s and memory on a GPU or CPU",
		Long: `profile simulates one inference (or training) step of MODEL on a hardware
preset or file: every node's FLOPs (2 x MACs), bytes moved and kernels, timed
by a roofline with per-op-class efficiencies and a small-kernel (waves) model,
issued by one host thread (launch + dispatch per kernel) onto device streams.
It prints the predicted step time, achieved TFLOP/s against the peak, kernels,
the memory peak from tensor lifetimes, the top nodes or op types, idle gaps,
and every assumption the prediction rests on. Symbolic dims not given with
--dim default to 1 (stated). -O N runs optimize's passes at level N first and
profiles the optimized model (what optimize predicts for it).

With --cluster NxG it simulates one step on N machines of G GPUs (any GPU
preset of --hw) over a network preset (--net), with a transport (--transport) and a
parallel strategy (--strategy; auto picks the highest predicted throughput):
the step split into compute, exposed communication and pipeline bubbles, the
utilization of each link, the step under every transport against grpc-tcp,
the strategies auto compared, and every assumption. --mode defaults to train
there. --sweep gpus=1,2,4,...,512 prints the scaling (throughput, speedup,
efficiency) over cluster sizes instead, and --plot writes it as an image.
'wolong hw list' shows the GPU and network presets.

With --cluster, the LLM flags plan a decoder transformer (read from MODEL's
graph, or --llm PRESET without MODEL) with the analytic planner: a training
step under --tp --pp --dp --ep --cp --vp --sp --zero --recompute
--micro-batch --global-batch --seq --framework (dp defaults to the GPUs
the other degrees leave), --strategy auto with --global-batch to search
the layouts (a degree given fixes it), or --serve with --tp --batch
--prompt --output. It prints the step, MFU and memory per GPU by part; a
layout that does not fit prints its breakdown and exits 1.`,
		Example: `  wolong profile model.onnx --hw h100
  wolong profile model.onnx --hw h200 --by op --top 10
  wolong profile model.onnx --hw cpu-1t -O3
  wolong profile model.onnx --hw h200 --by op --format csv > ops.csv
  wolong profile model.onnx --hw a100 --mode train --batch 32 --trace step.json
  wolong profile model.onnx --hw my-gpu.json --format json | jq .total_ms
  wolong profile model.onnx --cluster 4x8 --net ib-hdr --mode train --batch 64
  wolong profile model.onnx --hw p100 --cluster 8x1 --net ib-edr --strategy ps --transport rdma
  wolong profile model.onnx --cluster 1x8 --net roce-25 --sweep gpus=1,2,4,8,16,32,64 --plot scaling.svg
  wolong profile model.onnx --cluster 2x4 --trace cluster.json --format json | jq .step_ms,.efficiency
  wolong profile llama.onnx --cluster 64x8 --hw h100 --tp 8 --pp 4 --sp --zero 1 --global-batch 512
  wolong profile --llm llama3-405b --cluster 2048x8 --hw h100 --strategy auto --global-batch 2048
  wolong profile --llm llama3-70b --cluster 1x8 --hw h200 --serve --tp 8 --batch 32 --prompt 2048 --output 256`,
		Args:              usageArgs(cobra.RangeArgs(0, 1)),
		ValidArgsFunction: completeONNX,
		RunE: func(c *cobra.Command, args []string) error {
			opts, err := f.toOptions(env, args, c.Flags().Changed)
			if err != nil {
				return err
			}
			return runOr(runF, opts, func() error { return profileRun(env, opts) })
		},
	}
	addModelFlags(c, &f.model)
	addClusterFlags(c, &f.cluster)
	addLLMFlags(c, &f.llm)
	addWhatIfFlags(c, &f.whatIf)
	fs := c.Flags()
	addHWFlag(c, fs, &f.hw, "hw", "h100", hwUsage)
	fs.StringVar(&f.format, "format", "table", "output format: table, json, or csv (every node, or every op type with --by op; with --sweep, every size)")
	fs.StringVar(&f.by, "by", "node", "top-N table by `node` or by op type (op)")
	fs.IntVar(&f.top, "top", 20, "rows in the top-N table")
	fs.StringVar(&f.trace, "trace", "", "write a Chrome-trace / Perfetto timeline to `file.json`")
	fs.IntVar(&f.streams, "streams", 1, "device streams: more let independent branches overlap")
	fs.StringVar(&f.mode, "mode", "inference", "inference or train (backward + optimizer step); with --cluster the default is train")
	fs.Int64Var(&f.batch, "batch", 0, "set dim 0 of every graph input to `N` (0: as the model gives it)")
	fs.Int64Var(&f.trip, "trip", cost.DefaultTrip, "trip count assumed for loops whose count is not static")
	fs.StringVar(&f.branch, "if-branch", "auto", "how an If whose inputs decide the branch is costed: auto (a gate, whose condition comes from tensor values and one of whose branches only passes values through, by that branch, which most runs take; any other the mean), mean (the average of its two branches; a run takes one) or max (the costlier, a bound for every run); --fill decides a branch instead")
	fs.BoolVar(&f.tf32, "tf32", false, "run float32 matrix ops on TF32 tensor cores")
	fs.StringVar(&f.convAlgo, "conv-algo", "auto", "convolution algorithm: auto (the hardware's: GPU presets run fp32 3x3 stride-1 convs as Winograd, CPUs im2col + GEMM), direct (no Winograd) or winograd")
	fs.BoolVar(&f.winograd, "winograd", false, "same as --conv-algo winograd")
	_ = fs.MarkHidden("winograd") // kept for scripts written before --conv-algo
	fs.StringVar(&f.dtype, "dtype", "", "cost every float tensor as this dtype (float16, bfloat16, ...)")
	fs.IntVarP(&f.level, "opt-level", "O", -1, "optimize at level `0..3` first, as optimize does, and profile the optimized model (default: the model as it is, or as --runtime fuses it at load)")
	addRuntimeFlag(c, &f.runtime)
	stringArrayVar(c.Flags(), &f.fill, "fill", "give an input a known value: `name=value` (repeatable; a whole number or bool, e.g. --fill sr=16000): inference and costing follow the If branches it decides")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("by", cobra.FixedCompletions([]string{"node", "op"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{"inference", "train"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("if-branch", cobra.FixedCompletions([]string{"auto", "mean", "max"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func (f *profileFlags) toOptions(env *Env, args []string, changed func(string) bool) (*ProfileOptions, error) {
	format, mode, co, err := f.outputAndSim()
	if err != nil {
		return nil, err
	}
	if err := f.cluster.check(changed, f.trace); err != nil {
		return nil, err
	}
	if format == report.CSV && f.cluster.active() && f.cluster.Sweep == "" {
		return nil, Usagef("--format csv: with --cluster, only the --sweep table is CSV (use --format json)")
	}
	first, second := splitCompare(f.hw)
	h, err := resolveHW("--hw", first)
	if err != nil {
		return nil, err
	}
	h, wio, err := f.whatIf.toOptions(h, second, f.cluster.active())
	if err != nil {
		return nil, err
	}
	if err := f.convAlgoTo(h); err != nil {
		return nil, err
	}
	f.llm.Load.Runtime = f.runtime // --serve's runtime (trtllm, vllm) is the same flag
	llm, err := f.llmRun(args, co.DType, changed)
	if err != nil {
		return nil, err
	}
	h, level, err := f.runtimeLevel(h, llm, changed)
	if err != nil {
		return nil, err
	}
	cr, mode, err := f.clusterRun(h, llm, mode, changed)
	if err != nil {
		return nil, err
	}
	if cr != nil {
		if h, err = wio.applyCluster(cr); err != nil {
			return nil, err
		}
	}
	mo, err := f.model.toOptions(env)
	if err != nil {
		return nil, err
	}
	fills, err := parseFills(f.fill)
	if err != nil {
		return nil, err
	}
	path, batch := "", f.batch
	if len(args) > 0 {
		path = args[0]
	}
	if llm != nil {
		batch = 0 // --batch is the serving batch
	}
	return &ProfileOptions{Path: path, Model: mo, Format: format, By: f.by, Top: f.top, Trace: f.trace,
		Sim:   pipeline.SimOptions{HW: h, Streams: f.streams, Mode: mode, Cost: co},
		Batch: batch, Level: level, Cluster: cr, Fill: fills, WhatIf: wio}, nil
}

// outputAndSim types the output flags (--format, --by) and the
// simulation's (--mode, --streams; the cost model's --tf32, --trip,
// --dtype, --if-branch; --batch, --trip and --top not negative).
func (f *profileFlags) outputAndSim() (report.Format, simulate.Mode, cost.Options, error) {
	format, err := parseFormat(f.format, report.CSV)
	if err != nil {
		return format, "", cost.Options{}, err
	}
	if f.by != "node" && f.by != "op" {
		return format, "", cost.Options{}, Usagef("--by %q: want node or op", f.by)
	}
	mode, err := simulate.ParseMode(f.mode)
	if err != nil {
		return format, mode, cost.Options{}, Usagef("--mode: %v", err)
	}
	if f.streams < 1 || f.streams > 1024 {
		return format, mode, cost.Options{}, Usagef("--streams %d: want 1..1024", f.streams)
	}
	if f.batch < 0 || f.trip < 0 || f.top < 0 {
		return format, mode, cost.Options{}, Usagef("--batch, --trip and --top must not be negative")
	}
	branch, err := cost.ParseBranch(f.branch)
	if err != nil {
		return format, mode, cost.Options{}, Usagef("--if-branch %v", err)
	}
	dt, err := parseFloatDType(f.dtype)
	return format, mode, cost.Options{TF32: f.tf32, Trip: f.trip, DType: dt, Branch: branch, Settings: costSettings}, err
}

// convAlgoTo applies --conv-algo (or --winograd) to h, and checks -O.
func (f *profileFlags) convAlgoTo(h *hw.Hardware) error {
	algo := f.convAlgo
	if f.winograd {
		algo = "winograd"
	}
	switch algo {
	case "auto":
	case "direct":
		h.ConvWinograd = false
	case "winograd":
		h.ConvWinograd = true
	default:
		return Usagef("--conv-algo %q: want auto, direct or winograd", algo)
	}
	if f.level > optimize.MaxLevel {
		return Usagef("-O%d: want 0..%d", f.level, optimize.MaxLevel)
	}
	return nil
}

// runtimeLevel applies --runtime to h (a graph runtime; a serving one is
// llm's) and returns the optimization level: -O, else the fusions the
// runtime performs at load.
func (f *profileFlags) runtimeLevel(h *hw.Hardware, llm *LLMRun, changed func(string) bool) (*hw.Hardware, int, error) {
	graphRuntime := f.runtime
	if llm != nil && f.runtime != "" {
		if llm.Serve == nil {
			return nil, 0, Usagef("--runtime does not apply to LLM training (--%s): its framework is --framework", firstChanged(changed, llmFlags))
		}
		graphRuntime = "" // a serving runtime, typed by llmRun
	}
	level := f.level
	h, rt, err := withRuntime(h, graphRuntime)
	if err != nil {
		return nil, 0, err
	}
	if rt != nil && !changed("opt-level") {
		level = rt.OptLevel // the fusions the runtime performs at load
	}
	return h, level, nil
}

// clusterRun types the cluster flags (nil without --cluster or --sweep)
// for llm's planner or the graph-level strategies in mode (train when
// --mode is not given); it returns the mode the cluster runs in.
func (f *profileFlags) clusterRun(h *hw.Hardware, llm *LLMRun, mode simulate.Mode, changed func(string) bool) (*ClusterRun, simulate.Mode, error) {
	if llm != nil {
		cr, err := f.cluster.run(h, simulate.Train, false)
		if err != nil {
			return nil, mode, err
		}
		cr.LLM = llm
		return cr, mode, nil
	}
	if !f.cluster.active() {
		return nil, mode, nil
	}
	if !changed("mode") {
		mode = simulate.Train
	}
	cr, err := f.cluster.run(h, mode, f.trace != "")
	if err != nil {
		return nil, mode, err
	}
	if !changed("mode") {
		cr.Assumptions = append([]string{"--mode not given: train (one data-parallel or pipeline training step)"}, cr.Assumptions...)
	}
	return cr, mode, nil
}

// profileRun runs `wolong profile`.
func profileRun(env *Env, opts *ProfileOptions) error {
	out := newOutputs(opts.Path)
	defer out.abort()
	if err := out.check("--trace", opts.Trace); err != nil {
		return err
	}
	if opts.Cluster != nil && opts.Cluster.LLM != nil {
		return profileLLMRun(env, opts)
	}
	if opts.Cluster != nil {
		if err := out.check("--plot", opts.Cluster.Plot); err != nil {
			return err
		}
	}
	f, err := opts.Model.loadInferred(opts.Path, pipeline.InferOptions{DefaultDims: true, Batch: opts.Batch, InPlace: true, Values: fillValues(opts.Fill)})
	if err != nil {
		return err
	}
	defer f.Loaded.Close()
	if err := checkFillNames(f.Model.Graph, opts.Fill); err != nil {
		return err
	}
	var stage pipeline.Stage = f
	if opts.Level >= 0 {
		o, err := pipeline.Optimize(f, pipeline.OptimizeOptions{Level: opts.Level, HW: opts.Sim.HW, OnPassStart: opts.Model.progress.passHook(""), InPlace: true})
		opts.Model.progress.Done()
		if err != nil {
			return err
		}
		stage = o
	}
	defaulted := defaultedNotes(f, opts.Batch)
	if opts.Cluster != nil {
		return profileClusterRun(env, opts, stage, append(defaulted, opts.Cluster.Assumptions...), f.Warnings(), out)
	}
	r, err := pipeline.Simulate(stage, opts.Sim)
	if err != nil {
		return err
	}
	r.Assumptions = append(r.Assumptions, defaulted...)
	if opts.Trace != "" {
		if err := out.write("--trace", opts.Trace, func(w io.Writer) error { return report.WriteTrace(w, opts.Path, r.Result) }); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
	}
	p := report.NewProfile(opts.Path, r.Result, withHostWarning(f.Warnings(), opts.Sim.HW))
	env.warn(p.Warnings)
	if opts.WhatIf.Compare != nil {
		return compareRun(env, opts, stage, p, withHostWarning(f.Warnings(), opts.WhatIf.Compare))
	}
	if err := whatIfRun(opts, stage, p); err != nil {
		return err
	}
	return writeProfile(env, opts, p)
}

// defaultedNotes are the assumptions of f's shapes: the dims set to 1,
// and the nodes --batch (batch) reshaped.
func defaultedNotes(f *pipeline.Inferred, batch int64) []string {
	var notes []string
	if len(f.Defaulted) > 0 {
		notes = append(notes, "dims not given with --dim / --input set to 1: "+strings.Join(f.Defaulted, ", "))
	}
	for _, n := range f.BatchNotes() {
		notes = append(notes, "--batch "+strconv.FormatInt(batch, 10)+": node "+n)
	}
	return notes
}

// writeProfile prints p in opts' format (the text with its what-if).
func writeProfile(env *Env, opts *ProfileOptions, p *report.Profile) error {
	switch opts.Format {
	case report.JSON:
		return report.WriteJSON(env.Out, p)
	case report.CSV:
		return p.WriteCSV(env.Out, opts.By)
	}
	return env.buffered(func() error {
		if err := p.WriteText(env.Out, opts.By, opts.Top); err != nil {
			return err
		}
		return p.WriteWhatIf(env.Out)
	})
}
