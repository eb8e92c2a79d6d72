package cmd

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// ValidateOptions are the inputs of `wolong validate`.
type ValidateOptions struct {
	Model   ModelFlags
	HW      string
	ORT     string
	Latency string // --ort-latency: unprofiled end-to-end target
	Table   string
	Format  string
	Top     int
	Models  string // --models: where the records' model paths are relative to
	// Optimized is --optimized OUT.onnx: validate the predicted speedup of
	// OUT over MODEL against ONNX Runtime's.
	Optimized string
	Seconds   float64 // --seconds: measuring time per model
}

func newValidateCmd(env *Env) *cobra.Command {
	opts := &ValidateOptions{}
	c := &cobra.Command{
		Use:   "validate MODEL",
		Short: "Compare predicted with measured time per node, per op type and end to end",
		Long: `validate predicts MODEL's run on a hardware preset or file (one stream,
inference) and compares it with a measurement: an ONNX Runtime profile
(--ort-profile; its nodes are matched by name, input shapes recorded by
bench/ort/profile.mjs are applied) or a table (--table; rows matched by node
name when they carry one, else by op, dtype, shapes and attributes). It prints
the end-to-end error (predicted vs the profile's median run, or the sum of the
measured nodes), the error per op type and the largest nodes. Per node,
predicted is the kernel's device time, measured the runtime's node time.

--ort-latency FILE.json gives the end-to-end target as a user measures it:
ONNX Runtime unprofiled, warm, the median of many runs (bench/ort/latency.sh
writes it; its input shapes are applied). With it the end-to-end error is
against that run, not the profiled one (ORT's profiler costs several us per
node); alone, it gives the end-to-end comparison without the per-node one.

Without MODEL, --ort-latency DIR validates the hardware file on every model
recorded in the folder's latency records (bench/ort/latency.sh DIR writes
them): predicted vs measured per model, the MAPE, and how many models are
within 15% and 25% or off by more than 1.5x and 2x. This is how to state the
error of a file from wolong calibrate --host on models it did not see.

--optimized OUT.onnx validates a predicted speedup: MODEL and OUT (written
by optimize --emit-onnx, e.g. --target ort) are predicted on --hw (default
cpu-1t here) with every node run, and measured in ONNX Runtime 1.30 (one
thread, graph optimizations disabled, profiling off, the two in four
alternating passes, each model's lowest pass median; --seconds each), or read from
--ort-latency MODEL.json,OUT.json; both run once more in ORT to check their
outputs are equal (as verify --ort; exit 1 if they differ). It prints the
predicted and measured speedup and the error (--format json: predicted_ms,
predicted_optimized_ms, measured_ms, measured_optimized_ms,
predicted_speedup, measured_speedup, error_pct, outputs_equal).`,
		Example: `  wolong validate --hw local --ort-latency lat/ --models ../shared/models   # every model measured in lat/
  wolong validate mnist.onnx --hw cpu-fit.json --ort-latency lat/cnn__mnist.json --ort-profile lat/cnn__mnist.profile.json
  wolong validate mnist.onnx --hw local --ort-latency lat/cnn__mnist.json
  wolong validate model.onnx --hw h200 --table h200_ops.csv --format json
  wolong validate model.onnx --optimized model.ort.onnx                      # optimize --target ort --emit-onnx model.ort.onnx
  wolong validate model.onnx --optimized model.ort.onnx --ort-latency base.json,ort.json --format json`,
		Args:              usageArgs(cobra.MaximumNArgs(1)),
		ValidArgsFunction: completeONNX,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Optimized != "" {
				if len(args) == 0 {
					return Usagef("--optimized OUT.onnx needs MODEL, the model OUT was optimized from")
				}
				return runValidateOptimized(env, opts, args[0], c.Flags().Changed("hw"))
			}
			if len(args) == 0 {
				return runValidateFolder(env, opts)
			}
			return runValidate(env, opts, args[0])
		},
	}
	addModelFlags(env, c, &opts.Model)
	f := c.Flags()
	f.StringVar(&opts.HW, "hw", "cpu", "hardware: a preset or a hardware file `path.json` (from wolong calibrate)")
	f.StringVar(&opts.ORT, "ort-profile", "", "ONNX Runtime profile `FILE.json` (per-node times)")
	f.StringVar(&opts.Latency, "ort-latency", "", "unprofiled end-to-end latency `FILE.json` (bench/ort/latency.sh)")
	f.StringVar(&opts.Table, "table", "", "measured-op table `FILE.csv`")
	f.StringVar(&opts.Format, "format", "table", "output format: table or json")
	f.IntVar(&opts.Top, "top", 15, "nodes listed in the table output")
	f.StringVar(&opts.Optimized, "optimized", "", "validate the speedup of `OUT.onnx` (optimize --emit-onnx, e.g. with --target ort) over MODEL: predicted vs measured in ONNX Runtime, and its outputs")
	f.Float64Var(&opts.Seconds, "seconds", 3, "with --optimized and no --ort-latency: measuring time per model, seconds")
	f.StringVar(&opts.Models, "models", "", "with --ort-latency DIR: folder the records' model paths are relative to (default: as recorded, else beside the record, else $WOLONG_MODELS)")
	return c
}

func runValidate(env *Env, opts *ValidateOptions, path string) error {
	format, err := report.ParseFormat(opts.Format)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	if opts.ORT != "" && opts.Table != "" || opts.ORT == "" && opts.Table == "" && opts.Latency == "" {
		return Usagef("give --ort-profile or --table (not both), and/or --ort-latency")
	}
	if opts.Top < 0 {
		return Usagef("--top must not be negative")
	}
	h, err := hw.Resolve(opts.HW)
	if err != nil {
		return Usagef("--hw: %v", err)
	}
	var l *Loaded
	measured := map[*ir.Node]float64{} // µs
	v := &report.Validation{Model: path, Hardware: h.Name}
	var runUs float64
	noFold := false // a table measures kernels, not how the runtime folds
	var lat *calibrate.Latency
	if opts.Latency != "" {
		if lat, err = readLatency(opts.Latency); err != nil {
			return fmt.Errorf("--ort-latency: %v", err)
		}
		opts.Model = withMeasuredInputs(opts.Model, lat.Inputs, opts.Latency)
	}
	if opts.ORT == "" && opts.Table == "" {
		if l, err = opts.Model.loadModel(path); err != nil {
			return err
		}
		withInputValues(l, lat)
		l.DefaultDims()
		noFold = lat.RunsEveryNode()
	} else if opts.ORT != "" {
		pm, err := loadORTProfile(opts.ORT, path, "", opts.Model)
		if err != nil {
			return err
		}
		l = pm.Loaded
		if lat != nil {
			withInputValues(l, lat)
		}
		for _, p := range pm.Pairs {
			measured[p.Node] = p.Sample.Us
		}
		runUs = pm.Profile.RunUs
		noFold = pm.Profile.RunsEveryNode()
		if noFold {
			v.Notes = append(v.Notes, "the profile ran every node (graph optimizations disabled): predicted without load-time folding")
		}
		v.Measurement = opts.ORT
		extra := 0.0
		for _, s := range pm.Profile.Samples {
			if strings.HasPrefix(s.Name, "InsertedPrecisionFreeCast_") || strings.HasPrefix(s.Name, "_inlfunc_") {
				extra += s.Us
			}
		}
		if extra > 0 {
			v.Notes = append(v.Notes, fmt.Sprintf("ONNX Runtime ran nodes of its own (inserted casts, inlined functions): %.3f ms, in the measured run but in no model node", extra/1e3))
		}
	} else {
		p, err := readProfile(opts.Table, calibrate.ParseTable)
		if err != nil {
			return fmt.Errorf("--table: %v", err)
		}
		if l, err = opts.Model.loadModel(path); err != nil {
			return err
		}
		l.DefaultDims()
		if err := matchTable(l.Model, p, measured); err != nil {
			l.Close()
			return err
		}
		v.Measurement = opts.Table
	}
	defer l.Close()
	r, err := simulate.Run(l.Model, h, simulate.Options{Streams: 1, Infer: l.Opt, Cost: cost.Options{NoFold: noFold}})
	if err != nil {
		return err
	}
	v.Warnings = withHostWarning(append(append([]string{}, l.Warnings...), r.Warnings...), h)
	env.warn(v.Warnings)
	var sumMeasured float64
	for _, t := range r.Tasks {
		if t.Node == nil {
			continue
		}
		m, ok := measured[t.Node]
		if !ok {
			continue
		}
		sumMeasured += m
		v.Nodes = append(v.Nodes, report.ValidateNode{Name: ir.NodeLabel(t.Node), Op: t.Op, PredictedMs: nodeTimeS(t.Est, h) * 1e3, MeasuredMs: m / 1e3})
	}
	v.PredictedMs = r.TotalS * 1e3
	if lat != nil {
		runUs = lat.TargetUs()
		v.Measurement = strings.TrimPrefix(v.Measurement+", "+opts.Latency, ", ")
		v.Notes = append(v.Notes, fmt.Sprintf("end to end: %s, profiling off, %d threads, median of %d warm runs (%s)", opts.Latency, lat.Threads, lat.Runs, lat.Host.CPU))
		if c := lat.ProfilerNodeUs(); c > 0 {
			v.Notes = append(v.Notes, fmt.Sprintf("ONNX Runtime's profiler costs %.2f us per node on this model (profiled %.3f ms vs %.3f ms unprofiled)", c, lat.ProfiledMedianUs/1e3, lat.MedianUs/1e3))
		}
	}
	if runUs > 0 {
		what := "median end-to-end run"
		if lat != nil {
			what = "median unprofiled end-to-end run"
		}
		v.MeasuredMs, v.MeasuredWhat = runUs/1e3, what
	} else {
		v.MeasuredMs, v.MeasuredWhat = sumMeasured/1e3, "sum of the measured nodes"
		var dev float64
		for _, n := range v.Nodes {
			dev += n.PredictedMs
		}
		v.PredictedMs = dev
		v.Notes = append(v.Notes, "no end-to-end time in the measurement: predicted is the sum of the matched nodes' device time")
	}
	report.NewValidation(v)
	if format == report.JSON {
		return report.WriteJSON(env.Out, v)
	}
	return v.WriteText(env.Out, opts.Top)
}

// matchTable gives every kernel-launching main-graph node its table row:
// by name when rows carry names, else by signature. A node without a row is
// an error (the table was measured on another model).
func matchTable(m *ir.Model, p *calibrate.Profile, measured map[*ir.Node]float64) error {
	byName, byKey := map[string]float64{}, map[string]float64{}
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Name != "" {
			byName[s.Name] = s.Us
		}
		byKey[calibrate.Key(s)] = s.Us
	}
	ops, _ := calibrate.DistinctOps(m.Graph)
	need := map[string]bool{}
	for _, o := range ops {
		for _, n := range o.Nodes {
			need[n] = true
		}
	}
	var missing []string
	for _, n := range m.Graph.Nodes {
		if us, ok := byName[n.Name]; ok && n.Name != "" {
			measured[n] = us
			continue
		}
		s, ok := calibrate.NodeSample(n)
		if !ok {
			continue
		}
		if us, ok := byKey[calibrate.Key(&s)]; ok {
			measured[n] = us
			continue
		}
		if need[ir.NodeLabel(n)] {
			missing = append(missing, fmt.Sprintf("%s (%s %s)", ir.NodeLabel(n), n.Op, calibrate.FormatInputs(s.Inputs, s.DType)))
		}
	}
	if len(measured) == 0 || len(missing) > 0 {
		list := missing
		if len(list) > 5 {
			list = append(list[:5:5], fmt.Sprintf("and %d more", len(missing)-5))
		}
		return fmt.Errorf("validate: %s does not match the model: no row for %d node(s): %s", p.Source, len(missing), strings.Join(list, ", "))
	}
	return nil
}

// nodeTimeS is the predicted time a runtime's profile reports for one
// node: its kernels' device time; for control flow (If, Loop, Scan), whose
// measured time contains the execution of its bodies, the bodies' host
// time (dispatch of each body node) too, but not the node's own dispatch.
func nodeTimeS(e cost.Estimate, h *hw.Hardware) float64 {
	if e.Class != cost.Control {
		return e.DeviceS
	}
	return e.DeviceS + math.Max(0, e.HostS-h.DispatchUs*1e-6)
}

// runValidateFolder is validate without MODEL: --ort-latency names a
// folder of latency records.
func runValidateFolder(env *Env, opts *ValidateOptions) error {
	format, err := report.ParseFormat(opts.Format)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	if opts.Latency == "" || opts.ORT != "" || opts.Table != "" {
		return Usagef("without MODEL, give --ort-latency DIR (a folder of latency records) and no --ort-profile or --table")
	}
	if st, err := os.Stat(opts.Latency); err != nil || !st.IsDir() {
		return Usagef("without MODEL, --ort-latency must name a folder of latency records: %s is not one", opts.Latency)
	}
	h, err := hw.Resolve(opts.HW)
	if err != nil {
		return Usagef("--hw: %v", err)
	}
	return runValidateSet(env, opts, h, opts.Latency, format)
}
