package cmd

// This file wires `wolong profile --cluster / --sweep` (issue 6): the
// distributed flags, their checks, and the run that hands a single-GPU
// training profile to simulate/cluster and its result to report.

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// ClusterFlags are profile's distributed flags.
type ClusterFlags struct {
	Cluster      string  // NxG: machines x GPUs per machine
	Net          string  // network preset
	Transport    string  // grpc-tcp, grpc-rdma, rdma
	Strategy     string  // ps, allreduce, pipeline, auto
	Sweep        string  // gpus=1,2,4,...
	Plot         string  // scaling.png|svg|pdf
	NICs         int     // NICs per machine
	BucketMB     float64 // all-reduce bucket (tensor fusion), MiB; 0: one per tensor
	AllReduce    string  // auto, ring, hierarchical
	Schedule     string  // 1f1b, gpipe
	MicroBatches int
	Stages       int
	TraceGPUs    int
}

// defaultSweepPerMachine is the machine size --sweep fills when --cluster
// is not given.
const defaultSweepPerMachine = 8

func addClusterFlags(c *cobra.Command, o *ClusterFlags) {
	f := c.Flags()
	f.StringVar(&o.Cluster, "cluster", "", "simulate a cluster of `NxG` (N machines x G GPUs of the --hw preset); --mode defaults to train")
	f.StringVar(&o.Net, "net", "", "network between machines: "+networksMark+" (default: the --hw GPU's node preset's, see 'wolong hw show GPU'; else "+cluster.DefaultNetwork("")+")")
	f.StringVar(&o.Transport, "transport", "rdma", "how tensors cross machines: "+joinTransports("|"))
	f.StringVar(&o.Strategy, "strategy", "auto", "parallel strategy: ps|allreduce|pipeline|auto (the highest predicted throughput)")
	f.StringVar(&o.Sweep, "sweep", "", "scaling table over cluster sizes, `gpus=1,2,4,...,512` (machines of G GPUs from --cluster, else 8)")
	f.StringVar(&o.Plot, "plot", "", "with --sweep: write the scaling plot to `scaling.png|svg|pdf`")
	f.IntVar(&o.NICs, "nics", 0, "NICs per machine (with --cluster; default: the --hw GPU's node preset's, one per GPU on DGX / HGX machines, else 1)")
	f.Float64Var(&o.BucketMB, "bucket-mb", cluster.DefaultBucketBytes/(1<<20), "all-reduce gradient bucket (tensor fusion) in MiB; 0: one all-reduce per tensor")
	f.StringVar(&o.AllReduce, "allreduce", "auto", "all-reduce algorithm: auto (hierarchical across machines of several GPUs), ring or hierarchical")
	f.StringVar(&o.Schedule, "schedule", "1f1b", "pipeline schedule: 1f1b or gpipe")
	f.IntVar(&o.MicroBatches, "micro-batches", 0, "pipeline micro-batches per step (0: 4 x stages, at most the batch)")
	f.IntVar(&o.Stages, "stages", 0, "pipeline stages (0: every GPU; fewer gives data-parallel pipeline replicas)")
	f.IntVar(&o.TraceGPUs, "trace-gpus", cluster.DefaultTraceGPUs, "with --cluster --trace: GPUs drawn (and their machines' NICs)")
	comp := func(vals ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = c.RegisterFlagCompletionFunc("net", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return cluster.NetworkNames(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.RegisterFlagCompletionFunc("transport", comp(transportNames()...))
	_ = c.RegisterFlagCompletionFunc("strategy", comp("auto", "allreduce", "ps", "pipeline"))
	_ = c.RegisterFlagCompletionFunc("allreduce", comp("auto", "ring", "hierarchical"))
	_ = c.RegisterFlagCompletionFunc("schedule", comp("1f1b", "gpipe"))
}

func transportNames() []string {
	var out []string
	for _, t := range cluster.Transports() {
		out = append(out, string(t))
	}
	return out
}

func joinTransports(sep string) string { return strings.Join(transportNames(), sep) }

// clusterOnlyFlags need --cluster or --sweep.
var clusterOnlyFlags = []string{"net", "transport", "strategy", "nics", "bucket-mb", "allreduce", "schedule", "micro-batches", "stages", "trace-gpus", "plot"}

// active says whether profile runs the cluster simulation.
func (o *ClusterFlags) active() bool { return o.Cluster != "" || o.Sweep != "" }

// check rejects flag combinations that do not make sense (usage errors).
func (o *ClusterFlags) check(changed func(string) bool, trace string) error {
	if !o.active() {
		for _, name := range clusterOnlyFlags {
			if changed(name) {
				return Usagef("--%s needs --cluster NxG (or --sweep)", name)
			}
		}
		return nil
	}
	if o.Plot != "" && o.Sweep == "" {
		return Usagef("--plot draws the scaling of --sweep: add --sweep gpus=1,2,4,...")
	}
	if o.Plot != "" {
		ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(o.Plot), "."))
		ok := false
		for _, f := range report.PlotFormats() {
			ok = ok || ext == f
		}
		if !ok {
			return Usagef("--plot %q: want a .png, .svg or .pdf file", o.Plot)
		}
	}
	if o.Sweep != "" && trace != "" {
		return Usagef("--trace draws one cluster step: give --cluster NxG without --sweep")
	}
	if o.Sweep != "" && changed("trace-gpus") {
		return Usagef("--trace-gpus needs --trace (and no --sweep)")
	}
	if o.NICs < 0 || o.NICs > maxNICs || (o.NICs == 0 && changed("nics")) {
		return Usagef("--nics %d: want 1..%d", o.NICs, maxNICs)
	}
	if o.BucketMB < 0 || o.BucketMB > 1<<20 {
		return Usagef("--bucket-mb %g: want 0 (no fusion) up to 1048576", o.BucketMB)
	}
	if o.MicroBatches < 0 || o.Stages < 0 || o.TraceGPUs < 1 || o.TraceGPUs > 4096 {
		return Usagef("--micro-batches and --stages must not be negative; --trace-gpus wants 1..4096")
	}
	return nil
}

// options converts the flags into cluster.Options.
func (o *ClusterFlags) options(mode simulate.Mode, timeline bool) (cluster.Options, error) {
	st, err := cluster.ParseStrategy(o.Strategy)
	if err != nil {
		return cluster.Options{}, Usagef("--strategy: %v", err)
	}
	tr, err := cluster.ParseTransport(o.Transport)
	if err != nil {
		return cluster.Options{}, Usagef("--transport: %v", err)
	}
	var algo cluster.Algorithm
	switch strings.ToLower(o.AllReduce) {
	case "", "auto":
	case "ring":
		algo = cluster.AlgoRing
	case "hierarchical":
		algo = cluster.AlgoHierarchical
	default:
		return cluster.Options{}, Usagef("--allreduce %q: want auto, ring or hierarchical", o.AllReduce)
	}
	var sched cluster.Schedule
	switch strings.ToLower(o.Schedule) {
	case "", "1f1b":
		sched = cluster.OneFOneB
	case "gpipe":
		sched = cluster.GPipe
	default:
		return cluster.Options{}, Usagef("--schedule %q: want 1f1b or gpipe", o.Schedule)
	}
	bucket := o.BucketMB * (1 << 20)
	if o.BucketMB == 0 {
		bucket = -1 // one all-reduce per tensor
	}
	return cluster.Options{Strategy: st, Transport: tr, Mode: mode, Algorithm: algo, BucketBytes: bucket,
		Stages: o.Stages, MicroBatches: o.MicroBatches, Schedule: sched, Timeline: timeline, TraceGPUs: o.TraceGPUs}, nil
}

// ClusterRun is profile's --cluster / --sweep, typed.
type ClusterRun struct {
	Cluster *cluster.Cluster // the machines (the first size of a sweep's)
	Network *cluster.Network
	Options cluster.Options
	Sweep   []int  // --sweep sizes (nil: one cluster step)
	Plot    string // --plot file (with --sweep)
	// Assumptions are the defaults the flags left to the command
	// ("--mode not given: train", machines of 8 GPUs for --sweep alone).
	Assumptions []string
	// LLM is the LLM planner's run (nil: the graph-level strategies).
	LLM *LLMRun
}

// maxNICs bounds --nics (a GB200 NVL72 rack has 72).
const maxNICs = 1024

// network resolves --net: the one given, or the GPU's node preset's (the
// assumption saying so is returned).
func (o *ClusterFlags) network(gpu string) (*cluster.Network, []string, error) {
	name, assume := o.Net, []string(nil)
	if name == "" {
		name = cluster.DefaultNetwork(gpu)
		why := "no node preset for " + gpu
		if n := hw.NodePreset(gpu); n != nil {
			why = "the " + gpu + " node preset's: " + n.Description
		}
		assume = append(assume, fmt.Sprintf("--net not given: %s (%s)", name, why))
	}
	net, err := cluster.NetworkPreset(name)
	if err != nil {
		return nil, nil, Usagef("--net: %v", err)
	}
	return net, assume, nil
}

// setNICs applies --nics to c, or states the node preset's default.
func (o *ClusterFlags) setNICs(c *cluster.Cluster) []string {
	if o.NICs > 0 {
		c.NICsPerMachine = o.NICs
		return nil
	}
	if n := hw.NodePreset(c.GPU.Name); n != nil {
		return []string{fmt.Sprintf("--nics not given: %d per machine of %d GPUs (%g per GPU, the %s node preset's)", c.NICsPerMachine, c.GPUsPerMachine, n.NICsPerGPU, c.GPU.Name)}
	}
	return []string{fmt.Sprintf("--nics not given: %d per machine (no node preset for %s)", c.NICsPerMachine, c.GPU.Name)}
}

// run types the distributed flags for a cluster of gpu in mode; timeline
// says whether --trace draws the step.
func (o *ClusterFlags) run(gpu *hw.Hardware, mode simulate.Mode, timeline bool) (*ClusterRun, error) {
	net, netNote, err := o.network(gpu.Name)
	if err != nil {
		return nil, err
	}
	copt, err := o.options(mode, timeline)
	if err != nil {
		return nil, err
	}
	cr := &ClusterRun{Network: net, Options: copt, Plot: o.Plot, Assumptions: netNote}
	spec := o.Cluster
	if spec == "" {
		spec = fmt.Sprintf("1x%d", defaultSweepPerMachine)
		cr.Assumptions = append(cr.Assumptions, fmt.Sprintf("--sweep without --cluster: machines of %d GPUs", defaultSweepPerMachine))
	}
	c, err := cluster.Parse(spec, gpu, net)
	if err != nil {
		return nil, Usagef("--cluster: %v", err)
	}
	cr.Assumptions = append(cr.Assumptions, o.setNICs(c)...)
	cr.Cluster = c
	if o.Sweep != "" {
		if cr.Sweep, err = cluster.ParseGPUList(o.Sweep); err != nil {
			return nil, Usagef("--sweep: %v", err)
		}
		for _, n := range cr.Sweep {
			if n > c.GPUsPerMachine && n%c.GPUsPerMachine != 0 {
				return nil, Usagef("--sweep: %d GPUs is not a whole number of machines of %d GPUs (--cluster %s)", n, c.GPUsPerMachine, spec)
			}
		}
	}
	return cr, nil
}

// profileClusterRun simulates the model on a cluster (or a sweep of
// cluster sizes) and prints the report; assumptions are the command's
// defaults, warnings import's and inference's.
func profileClusterRun(env *Env, opts *ProfileOptions, stage pipeline.Stage, assumptions, warnings []string, out *outputs) error {
	cr := opts.Cluster
	c, net, copt := cr.Cluster, cr.Network, cr.Options
	prof, err := pipeline.ClusterProfile(stage, opts.Sim)
	if err != nil {
		return err
	}
	warnings = append(append([]string{}, warnings...), prof.Warnings...)

	if cr.Sweep != nil {
		pts, err := cluster.Sweep(prof, c, cr.Sweep, copt)
		if err != nil {
			return err
		}
		s := report.NewScaling(opts.Path, opts.Batch, c, net, copt, prof, pts, assumptions, warnings)
		if cr.Plot != "" {
			ext := strings.TrimPrefix(filepath.Ext(cr.Plot), ".")
			if err := out.write("--plot", cr.Plot, func(w io.Writer) error { return report.WriteScalingPlot(w, s, ext) }); err != nil {
				return err
			}
			if err := out.commit(); err != nil {
				return err
			}
		}
		env.warn(s.Warnings)
		return writeTable(env.Out, opts.Format, s)
	}

	r, err := cluster.Simulate(prof, c, copt)
	if err != nil {
		var de *cluster.DeclineError
		if errors.As(err, &de) {
			return fmt.Errorf("%v (try --strategy auto, which skips it)", err)
		}
		return err
	}
	if opts.Trace != "" {
		if err := out.write("--trace", opts.Trace, func(w io.Writer) error { return report.WriteClusterTrace(w, opts.Path, r) }); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
		assumptions = append(assumptions, fmt.Sprintf("--trace draws the first %d GPU(s) and their machines' NICs", min(r.GPUs, copt.TraceGPUs)))
	}
	p := report.NewClusterProfile(opts.Path, c, r, assumptions, warnings)
	env.warn(p.Warnings)
	if opts.WhatIf.active() {
		return clusterWhatIf(env, opts, stage, prof, r, p, assumptions, warnings)
	}
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, p)
	}
	return p.WriteText(env.Out)
}
