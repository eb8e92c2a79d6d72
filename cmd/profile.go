package cmd

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// ProfileOptions are the inputs of `wolong profile`.
type ProfileOptions struct {
	Model   ModelFlags
	HW      string // preset name or hardware file
	Format  string
	By      string // node | op
	Top     int
	Trace   string // Chrome-trace output file
	Streams int
	Mode    string
	Batch   int64
	Trip    int64
	TF32    bool
	DType   string
	// ConvAlgo is the convolution algorithm: auto (the hardware's
	// conv_winograd / conv_im2col), direct or winograd.
	ConvAlgo string
	Winograd bool         // deprecated alias of --conv-algo winograd
	Cluster  ClusterFlags // --cluster, --sweep and the distributed flags
	// Level, when >= 0, runs the optimization passes of that -O level (as
	// optimize does) before simulating: the optimized model's profile.
	Level int
}

func newProfileCmd(env *Env) *cobra.Command {
	opts := &ProfileOptions{}
	c := &cobra.Command{
		Use:   "profile MODEL",
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

With --cluster NxG it simulates one step on N machines of G GPUs (--hw, plus
p100) over a network preset (--net), with a transport (--transport) and a
parallel strategy (--strategy; auto picks the highest predicted throughput):
the step split into compute, exposed communication and pipeline bubbles, the
utilization of each link, the step under every transport against grpc-tcp,
the strategies auto compared, and every assumption. --mode defaults to train
there. --sweep gpus=1,2,4,...,512 prints the scaling (throughput, speedup,
efficiency) over cluster sizes instead, and --plot writes it as an image.
'wolong hw list' shows the GPU and network presets.`,
		Example: `  wolong profile model.onnx --hw h100
  wolong profile model.onnx --hw h200 --by op --top 10
  wolong profile model.onnx --hw cpu-1t -O3
  wolong profile model.onnx --hw h200 --by op --format csv > ops.csv
  wolong profile model.onnx --hw a100 --mode train --batch 32 --trace step.json
  wolong profile model.onnx --hw my-gpu.json --format json | jq .total_ms
  wolong profile model.onnx --cluster 4x8 --net ib-hdr --mode train --batch 64
  wolong profile model.onnx --hw p100 --cluster 8x1 --net ib-edr --strategy ps --transport rdma
  wolong profile model.onnx --cluster 1x8 --net roce-25 --sweep gpus=1,2,4,8,16,32,64 --plot scaling.svg
  wolong profile model.onnx --cluster 2x4 --trace cluster.json --format json | jq .step_ms,.efficiency`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: completeONNX,
		RunE: func(c *cobra.Command, args []string) error {
			return runProfile(env, opts, args[0], c.Flags().Changed)
		},
	}
	addModelFlags(env, c, &opts.Model)
	addClusterFlags(c, &opts.Cluster)
	f := c.Flags()
	f.StringVar(&opts.HW, "hw", "h100", "hardware: a preset ("+strings.Join(hw.Names(), ", ")+"; with --cluster also "+strings.Join(cluster.GPUNames(), ", ")+") or a hardware file `path.json`")
	f.StringVar(&opts.Format, "format", "table", "output format: table, json, or csv (every node, or every op type with --by op; with --sweep, every size)")
	f.StringVar(&opts.By, "by", "node", "top-N table by `node` or by op type (op)")
	f.IntVar(&opts.Top, "top", 20, "rows in the top-N table")
	f.StringVar(&opts.Trace, "trace", "", "write a Chrome-trace / Perfetto timeline to `file.json`")
	f.IntVar(&opts.Streams, "streams", 1, "device streams: more let independent branches overlap")
	f.StringVar(&opts.Mode, "mode", "inference", "inference or train (backward + optimizer step); with --cluster the default is train")
	f.Int64Var(&opts.Batch, "batch", 0, "set dim 0 of every graph input to `N` (0: as the model gives it)")
	f.Int64Var(&opts.Trip, "trip", cost.DefaultTrip, "trip count assumed for loops whose count is not static")
	f.BoolVar(&opts.TF32, "tf32", false, "run float32 matrix ops on TF32 tensor cores")
	f.StringVar(&opts.ConvAlgo, "conv-algo", "auto", "convolution algorithm: auto (the hardware's: GPU presets run fp32 3x3 stride-1 convs as Winograd, CPUs im2col + GEMM), direct (no Winograd) or winograd")
	f.BoolVar(&opts.Winograd, "winograd", false, "same as --conv-algo winograd")
	_ = f.MarkHidden("winograd") // kept for scripts written before --conv-algo
	f.StringVar(&opts.DType, "dtype", "", "cost every float tensor as this dtype (float16, bfloat16, ...)")
	f.IntVarP(&opts.Level, "opt-level", "O", -1, "optimize at level `0..3` first, as optimize does, and profile the optimized model (default: the model as it is)")
	_ = c.RegisterFlagCompletionFunc("hw", cobra.FixedCompletions(hw.Names(), cobra.ShellCompDirectiveDefault))
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"table", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("by", cobra.FixedCompletions([]string{"node", "op"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{"inference", "train"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// runProfile runs `wolong profile`; changed says whether a flag was given
// on the command line.
func runProfile(env *Env, opts *ProfileOptions, path string, changed func(string) bool) error {
	format, err := report.ParseFormat(opts.Format, report.CSV)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	if opts.By != "node" && opts.By != "op" {
		return Usagef("--by %q: want node or op", opts.By)
	}
	mode, err := simulate.ParseMode(opts.Mode)
	if err != nil {
		return Usagef("--mode: %v", err)
	}
	if opts.Streams < 1 || opts.Streams > 1024 {
		return Usagef("--streams %d: want 1..1024", opts.Streams)
	}
	if opts.Batch < 0 || opts.Trip < 0 || opts.Top < 0 {
		return Usagef("--batch, --trip and --top must not be negative")
	}
	var dt ir.DType
	if opts.DType != "" {
		d, ok := ir.ParseDType(opts.DType)
		if !ok || !d.IsFloat() {
			return Usagef("--dtype %q: want a float type (float32, float16, bfloat16, ...)", opts.DType)
		}
		dt = d
	}
	if err := opts.Cluster.check(changed, opts.Trace); err != nil {
		return err
	}
	if format == report.CSV && opts.Cluster.active() && opts.Cluster.Sweep == "" {
		return Usagef("--format csv: with --cluster, only the --sweep table is CSV (use --format json)")
	}
	var h *hw.Hardware
	if opts.Cluster.active() {
		h, err = cluster.GPUPreset(opts.HW)
	} else {
		h, err = hw.Resolve(opts.HW)
	}
	if err != nil {
		return Usagef("--hw: %v", err)
	}
	if opts.Winograd {
		opts.ConvAlgo = "winograd"
	}
	switch opts.ConvAlgo {
	case "auto":
	case "direct":
		h.ConvWinograd = false
	case "winograd":
		h.ConvWinograd = true
	default:
		return Usagef("--conv-algo %q: want auto, direct or winograd", opts.ConvAlgo)
	}
	out := newOutputs(path)
	defer out.abort()
	if err := out.check("--trace", opts.Trace); err != nil {
		return err
	}
	if err := out.check("--plot", opts.Cluster.Plot); err != nil {
		return err
	}
	l, err := opts.Model.loadModel(path)
	if err != nil {
		return err
	}
	defer l.Close()
	defaulted := l.DefaultDims()
	inferOpt := l.Opt
	warnings := l.Warnings
	if opts.Batch > 0 {
		warnings = l.imported // simulate re-infers with the batch and reports its own
	}
	if opts.Level >= 0 {
		if opts.Level > optimize.MaxLevel {
			return Usagef("-O%d: want 0..%d", opts.Level, optimize.MaxLevel)
		}
		if _, err := optimize.Run(l.Model, optimize.Options{Level: opts.Level, OnChipBytes: onChipBytes(h),
			OnPassStart: opts.Model.progress.passHook("")}); err != nil {
			return err
		}
		opts.Model.progress.Done()
	}
	if opts.Cluster.active() {
		cr := clusterRun{path: path, model: l.Model, infer: inferOpt, warnings: warnings, mode: mode, out: out}
		if len(defaulted) > 0 {
			cr.assumptions = append(cr.assumptions, "dims not given with --dim / --input set to 1: "+strings.Join(defaulted, ", "))
		}
		if !changed("mode") {
			cr.mode = simulate.Train
			cr.assumptions = append(cr.assumptions, "--mode not given: train (one data-parallel or pipeline training step)")
		}
		return runProfileCluster(env, opts, format, h, cr)
	}
	r, err := simulate.Run(l.Model, h, simulate.Options{
		Streams: opts.Streams, Mode: mode, Batch: opts.Batch, Infer: inferOpt,
		Cost: cost.Options{TF32: opts.TF32, Trip: opts.Trip, DType: dt},
	})
	if err != nil {
		return err
	}
	if len(defaulted) > 0 {
		r.Assumptions = append(r.Assumptions, "dims not given with --dim / --input set to 1: "+strings.Join(defaulted, ", "))
	}
	if opts.Trace != "" {
		if err := out.write("--trace", opts.Trace, func(w io.Writer) error { return report.WriteTrace(w, path, r) }); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
	}
	p := report.NewProfile(path, r, withHostWarning(warnings, h))
	env.warn(p.Warnings)
	switch format {
	case report.JSON:
		return report.WriteJSON(env.Out, p)
	case report.CSV:
		return p.WriteCSV(env.Out, opts.By)
	}
	return p.WriteText(env.Out, opts.By, opts.Top)
}

// defaultSymbolicDims sets every symbolic dim of g's inputs that io does
// not give to 1, and every unnamed dynamic dim of an input to 1 (through
// an input-shape override), and returns what it set, sorted.
func defaultSymbolicDims(g *ir.Graph, io ir.InferOptions) []string {
	seen := map[string]bool{}
	var names []string
	for _, in := range g.Inputs {
		if in.Const != nil {
			continue
		}
		t := in.Type
		if in.Declared != nil {
			t = *in.Declared
		}
		given := false
		if s, ok := io.Inputs[in.Name]; ok {
			t.Shape, given = s, true
		}
		unnamed := false
		for _, d := range t.Shape.Dims {
			if d.IsUnknown() {
				unnamed = true
			}
			if d.Sym == "" || seen[d.Sym] {
				continue
			}
			seen[d.Sym] = true
			if _, ok := io.Dims[d.Sym]; !ok {
				io.Dims[d.Sym] = 1
				names = append(names, d.Sym+"=1")
			}
		}
		if unnamed && !given && t.Kind == ir.KindTensor {
			s := t.Shape.Clone()
			for i, d := range s.Dims {
				if d.IsUnknown() {
					s.Dims[i] = ir.D(1)
				}
			}
			io.Inputs[in.Name] = s
			names = append(names, fmt.Sprintf("input %s unnamed dynamic dims=1 (shape %s)", in.Name, s))
		}
	}
	sort.Strings(names)
	return names
}
