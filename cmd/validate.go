package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// ValidateOptions are the inputs of `wolong validate`, typed.
type ValidateOptions struct {
	// Path is MODEL; "" validates every model recorded in the folder of
	// latency records Latency names.
	Path    string
	Model   ModelOptions
	HW      *hw.Hardware
	ORT     string // --ort-profile FILE.json
	Latency string // --ort-latency: unprofiled end-to-end target (a file, a folder, or two files with Optimized)
	Table   string // --table FILE.csv
	Format  report.Format
	Top     int
	Models  string // --models: where the records' model paths are relative to
	// Optimized is --optimized OUT.onnx: validate the predicted speedup of
	// OUT over MODEL against ONNX Runtime's.
	Optimized string
	Seconds   float64 // --seconds: measuring time per model
	// Machine is the machine the measurement is of: the latency records'
	// (pipeline.LatencyHost), else this one. HW is the variant of a
	// preset fitted on it (hw.ResolveOn), and the host warning compares
	// HW with it.
	Machine func() hw.CPUInfo
}

// validateFlags are validate's flags as given.
type validateFlags struct {
	model     modelFlags
	hw        string
	ort       string
	latency   string
	table     string
	format    string
	top       int
	models    string
	optimized string
	seconds   float64
}

func (f *validateFlags) toOptions(env *Env, args []string, changed func(string) bool) (*ValidateOptions, error) {
	format, err := parseFormat(f.format)
	if err != nil {
		return nil, err
	}
	opts := &ValidateOptions{ORT: f.ort, Latency: f.latency, Table: f.table, Format: format, Top: f.top, Models: f.models, Optimized: f.optimized, Seconds: f.seconds}
	if len(args) > 0 {
		opts.Path = args[0]
	}
	name := f.hw
	switch {
	case f.optimized != "":
		if opts.Path == "" {
			return nil, Usagef("--optimized OUT.onnx needs MODEL, the model OUT was optimized from")
		}
		if f.ort != "" || f.table != "" {
			return nil, Usagef("--optimized compares end-to-end runs: give no --ort-profile or --table")
		}
		if !changed("hw") {
			name = "cpu-1t" // ONNX Runtime measured on one thread
		}
	case opts.Path == "":
		if f.latency == "" || f.ort != "" || f.table != "" {
			return nil, Usagef("without MODEL, give --ort-latency DIR (a folder of latency records) and no --ort-profile or --table")
		}
		if st, err := os.Stat(f.latency); err != nil || !st.IsDir() {
			return nil, Usagef("without MODEL, --ort-latency must name a folder of latency records: %s is not one", f.latency)
		}
	default:
		if f.ort != "" && f.table != "" || f.ort == "" && f.table == "" && f.latency == "" {
			return nil, Usagef("give --ort-profile or --table (not both), and/or --ort-latency")
		}
		if f.top < 0 {
			return nil, Usagef("--top must not be negative")
		}
	}
	opts.Machine = hostCPU
	if f.latency != "" {
		opts.Machine = func() hw.CPUInfo {
			if c, ok := pipeline.LatencyHost(f.latency); ok {
				return c
			}
			return hostCPU()
		}
	}
	if opts.HW, err = resolveHWOn("--hw", name, opts.Machine); err != nil {
		return nil, err
	}
	if opts.Model, err = f.model.toOptions(env); err != nil {
		return nil, err
	}
	return opts, nil
}

// NewCmdValidate builds `wolong validate`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdValidate(env *Env, runF func(*ValidateOptions) error) *cobra.Command {
	f := &validateFlags{}
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
			opts, err := f.toOptions(env, args, c.Flags().Changed)
			if err != nil {
				return err
			}
			return runOr(runF, opts, func() error { return validateRun(env, opts) })
		},
	}
	addModelFlags(c, &f.model)
	fs := c.Flags()
	fs.StringVar(&f.hw, "hw", "cpu", "hardware: a preset or a hardware file `path.json` (from wolong calibrate)")
	fs.StringVar(&f.ort, "ort-profile", "", "ONNX Runtime profile `FILE.json` (per-node times)")
	fs.StringVar(&f.latency, "ort-latency", "", "unprofiled end-to-end latency `FILE.json` (bench/ort/latency.sh)")
	fs.StringVar(&f.table, "table", "", "measured-op table `FILE.csv`")
	fs.StringVar(&f.format, "format", "table", "output format: table or json")
	fs.IntVar(&f.top, "top", 15, "nodes listed in the table output")
	fs.StringVar(&f.optimized, "optimized", "", "validate the speedup of `OUT.onnx` (optimize --emit-onnx, e.g. with --target ort) over MODEL: predicted vs measured in ONNX Runtime, and its outputs")
	fs.Float64Var(&f.seconds, "seconds", 3, "with --optimized and no --ort-latency: measuring time per model, seconds")
	fs.StringVar(&f.models, "models", "", "with --ort-latency DIR: folder the records' model paths are relative to (default: as recorded, else beside the record, else $WOLONG_MODELS)")
	return c
}

// validateRun runs the validation opts asks for.
func validateRun(env *Env, opts *ValidateOptions) error {
	switch {
	case opts.Optimized != "":
		return validateSpeedup(env, opts)
	case opts.Path == "":
		return validateSetRun(env, opts)
	}
	return validateNodes(env, opts)
}

// validateNodes compares MODEL's prediction with a profile or table per
// node, and end to end with the measured run (pipeline.ValidateNodes).
func validateNodes(env *Env, opts *ValidateOptions) error {
	path, h := opts.Path, opts.HW
	no := pipeline.NodesOptions{HW: h, Measured: map[*ir.Node]float64{}, LatencyFile: opts.Latency, Cost: cost.Options{Settings: cost.Settings{Shapes: shapeFlagNames}}}
	var values map[string][]int64 // of small integer inputs, as the latency run fed them
	mo := opts.Model
	if opts.Latency != "" {
		var err error
		if no.Latency, err = pipeline.ReadLatency(opts.Latency); err != nil {
			return fmt.Errorf("--ort-latency: %v", err)
		}
		mo = mo.withRecorded(pipeline.RecordedInputs(no.Latency.Inputs, opts.Latency, mo.Load.Inputs))
		values = no.Latency.InputValues()
	}
	f, measurement, err := loadMeasured(opts, mo, values, &no)
	if err != nil {
		return err
	}
	defer f.Loaded.Close()
	r, err := pipeline.ValidateNodes(f, no)
	if err != nil {
		return err
	}
	warnings := withHostWarningOn(append(f.Warnings(), r.Simulated.Warnings...), h, opts.Machine)
	env.warn(warnings)
	latency := ""
	if no.Latency != nil {
		latency = opts.Latency
	}
	v := report.FromNodesValidation(r, path, h, measurement, latency, warnings)
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, v)
	}
	return v.WriteText(env.Out, opts.Top)
}

// loadMeasured loads MODEL for validateNodes with what it is compared
// with: the profile's nodes (--ort-profile), the table's (--table), or
// none; it fills no's measurements and returns the measurement's name.
func loadMeasured(opts *ValidateOptions, mo ModelOptions, values map[string][]int64, no *pipeline.NodesOptions) (*pipeline.Inferred, string, error) {
	switch {
	case opts.ORT == "" && opts.Table == "":
		f, err := mo.loadInferred(opts.Path, pipeline.InferOptions{DefaultDims: true, Values: values})
		return f, "", err
	case opts.ORT != "":
		pm, err := pipeline.LoadORTProfile(opts.ORT, pipeline.ProfileLoad{Model: opts.Path, Values: values, Given: mo.Load.Inputs, Load: mo.loader()})
		if err != nil {
			return nil, "", err
		}
		no.Profile = pm.Profile
		for _, p := range pm.Pairs {
			no.Measured[p.Node] = p.Sample.Us
		}
		return pm.Inferred, opts.ORT, nil
	default:
		p, err := pipeline.ReadMeasurement(opts.Table, calibrate.ParseTable)
		if err != nil {
			return nil, "", fmt.Errorf("--table: %v", err)
		}
		f, err := mo.loadInferred(opts.Path, pipeline.InferOptions{DefaultDims: true})
		if err != nil {
			return nil, "", err
		}
		if no.Measured, err = calibrate.MatchTable(f.Model, p); err != nil {
			f.Loaded.Close()
			return nil, "", fmt.Errorf("validate: %v", err)
		}
		no.Table = true
		return f, opts.Table, nil
	}
}
