package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// CalibrateOptions are the inputs of `wolong calibrate`, typed.
type CalibrateOptions struct {
	ORT    []string // --ort-profile [MODEL.onnx=]FILE.json
	Torch  []string // --torch-trace FILE.json
	Tables []string // --table FILE.csv
	Base   *hw.Hardware
	Out    string
	Name   string
	Models string       // directory a profile's recorded model path is relative to
	Model  ModelOptions // --dim, --input, --max-memory for the profiles' models
	Format report.Format
	Joint  bool // --fit joint (CPU runs with latency records; default direct)
	// Host is --host and its flags: measure this machine with generated
	// models (nil: fit the measurements given).
	Host *HostOptions
}

// HostOptions are calibrate's --host flags, typed.
type HostOptions struct {
	Threads    []int   // --threads 1,2
	Keep       string  // --keep DIR: keep the suite's models and measurements
	From       string  // --from DIR: refit a kept folder
	MaxSeconds float64 // --max-seconds per model
	NoSave     bool    // --no-save: do not save in the user's config folder
}

// calibrateFlags are calibrate's flags as given.
type calibrateFlags struct {
	ort, torch, tables       []string
	base, out, name, models  string
	model                    modelFlags
	host                     bool
	threads, keep, from, fit string
	maxSeconds               float64
	noSave                   bool
	format                   string
}

func (f *calibrateFlags) toOptions(env *Env, changed func(string) bool) (*CalibrateOptions, error) {
	if f.fit != "direct" && f.fit != "joint" {
		return nil, Usagef("--fit %q: want direct or joint", f.fit)
	}
	opts := &CalibrateOptions{ORT: f.ort, Torch: f.torch, Tables: f.tables, Out: f.out, Name: f.name, Models: f.models, Joint: f.fit == "joint"}
	if f.host {
		return f.hostOptions(opts, changed)
	}
	if f.from != "" || f.keep != "" || changed("threads") || f.noSave {
		return nil, Usagef("--from, --keep, --threads and --no-save go with --host")
	}
	if len(f.ort)+len(f.torch)+len(f.tables) == 0 {
		return nil, Usagef("give at least one --ort-profile, --torch-trace or --table")
	}
	if f.out == "" {
		return nil, Usagef("-o hw.json is required")
	}
	var err error
	if opts.Format, err = parseFormat(f.format); err != nil {
		return nil, err
	}
	if opts.Base, opts.Model, err = hwAndModel(env, "--base", f.base, &f.model); err != nil {
		return nil, err
	}
	return opts, nil
}

// hostOptions types the flags of --host into opts.Host.
func (f *calibrateFlags) hostOptions(opts *CalibrateOptions, changed func(string) bool) (*CalibrateOptions, error) {
	for _, name := range []string{"dim", "input", "force-input", "max-memory"} {
		if changed(name) {
			return nil, Usagef("--%s goes with the measurements' models (--ort-profile); --host generates its own", name)
		}
	}
	threads, err := parseThreads(f.threads)
	if err != nil {
		return nil, Usagef("--threads: %v", err)
	}
	if opts.Format, err = parseFormat(f.format); err != nil {
		return nil, err
	}
	if len(f.ort)+len(f.torch)+len(f.tables) > 0 {
		return nil, Usagef("--host measures this machine itself: it takes no --ort-profile, --torch-trace or --table")
	}
	if opts.Name == "" {
		opts.Name = "local"
	}
	if !hw.ValidName(opts.Name) {
		return nil, Usagef("--name %q: use letters, digits, '-', '_' and '.'", opts.Name)
	}
	if !f.noSave {
		if err := checkHostName(opts.Name, threads); err != nil {
			return nil, err
		}
	}
	if f.out == "" && f.noSave {
		return nil, Usagef("give -o FILE.json, or drop --no-save: the fit would go nowhere")
	}
	if f.out != "" {
		if err := checkOutputName("-o", f.out); err != nil {
			return nil, err
		}
	}
	opts.Host = &HostOptions{Threads: threads, Keep: f.keep, From: f.from, MaxSeconds: f.maxSeconds, NoSave: f.noSave}
	return opts, nil
}

// NewCmdCalibrate builds `wolong calibrate`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdCalibrate(env *Env, runF func(*CalibrateOptions) error) *cobra.Command {
	f := &calibrateFlags{}
	c := &cobra.Command{
		Use:   "calibrate",
		Short: "Fit a hardware file's efficiency parameters to measured kernel times",
		Long: `calibrate --host measures the machine it runs on and writes a hardware file
for it: it generates about 280 small models (GEMM and conv shapes across the
cache sizes, elementwise, broadcast and reduction chains, pools, GridSample,
data movement, views, a zoo of the ops small models run at tiny sizes,
attention and ONNX Runtime's fused transformer ops, a loop, a Scan and an
If, LSTM/GRU layers, small complete CNNs and transformers), runs each in
ONNX Runtime 1.30 on one thread and on two (unprofiled for the end-to-end
targets: twelve interleaved passes, the runs of the fastest quarter pooled,
more passes for a model not known to within 3%; profiled afterwards to
share each run's kernel time among its nodes, with the profiler's own cost
measured and taken out), fits the host costs and
each op's fixed time and speeds directly to the unprofiled runs (--fit), and
prints the fit's error on the models it was fitted on and on a held-back
quarter. It needs Node.js and npm only: the
harness is installed once into the user's cache folder. The file is written
with -o and saved in the user's config folder, where --hw NAME finds it
(~/.config/wolong/hw/local.json on Linux; local-2t for two threads).
Re-calibrate after a change of machine, ONNX Runtime version or CPU governor.

calibrate with measurements fits the per-op-class efficiencies (compute and memory fraction of
peak, fixed overhead) of a hardware preset to measured kernel times, and on a
CPU the host times (dispatch per node, overhead per run, time per MB of
outputs allocated, time per node without a kernel) to measured end-to-end
runs, and writes a hardware file that --hw accepts. bench/ort/profile.sh
measures ONNX Runtime on one thread: calibrate its profiles with --base
cpu-1t.

Measurements, any mix, each flag repeatable:
  --ort-profile FILE.json           ONNX Runtime profile; the model is the one
                                    recorded in the file (bench/ort/profile.mjs
                                    records it), or give MODEL.onnx=FILE.json
  --torch-trace FILE.json           PyTorch profiler Chrome trace
  --table FILE.csv                  wolong's table (op, dtype, input_shapes,
                                    attributes, measured_us; see the README)

A profile that does not match its model (unknown node names, another op type,
missing nodes) is refused. It prints the fitted parameters and each op class's
error before and after the fit.

A profile written by bench/ort/latency.sh --profiled (NAME.profile.json)
has its unprofiled latency record beside it (NAME.json): its median is the
run's end-to-end target, as a user measures it (ONNX Runtime's profiler
costs several microseconds per node), and the profiler's own cost inside
kernel timings (the base file's fitted kernel_inflation_us) is taken off
each profiled kernel. On a CPU such runs are fitted directly (--fit): the
runs set every parameter, each profile only shares its run's kernel time
among its nodes.`,
		Example: `  wolong calibrate --host -o local.json          # then: wolong profile model.onnx --hw local
  wolong calibrate --host --threads 1 --keep suite/ ; wolong calibrate --host --from suite/ -o refit.json
  wolong calibrate --ort-profile prof/cnn__mnist.json --base cpu-1t -o cpu-fit.json
  wolong calibrate --ort-profile model.onnx=ort_profile.json --table gemms.csv -o fit.json
  wolong profile model.onnx --hw cpu-fit.json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			opts, err := f.toOptions(env, c.Flags().Changed)
			if err != nil {
				return err
			}
			return runOr(runF, opts, func() error {
				if opts.Host != nil {
					return calibrateHostRun(env, opts)
				}
				return calibrateRun(env, opts)
			})
		},
	}
	addModelFlags(c, &f.model)
	fs := c.Flags()
	fs.BoolVar(&f.host, "host", false, "measure this machine with generated models (needs node and npm) and fit a hardware file for it")
	fs.StringVar(&f.threads, "threads", "1,2", "with --host: intra-op thread counts to fit, one file each (`1,2`)")
	fs.StringVar(&f.keep, "keep", "", "with --host: keep the generated models and measurements in `DIR`")
	fs.StringVar(&f.from, "from", "", "with --host: refit the measurements kept in `DIR` instead of measuring")
	fs.Float64Var(&f.maxSeconds, "max-seconds", 0.2, "with --host: measure each model for at most this long (`seconds`)")
	fs.BoolVar(&f.noSave, "no-save", false, "with --host: do not save the fit in the user's config folder (for --hw NAME)")
	fs.StringVar(&f.format, "format", "table", "output format: table or json (the fit, and the file written)")
	fs.StringVar(&f.fit, "fit", "direct", "how a CPU file is fitted to profiles with unprofiled latency records: `direct` (the runs set every parameter, profiles only split each run's kernel time) or joint (per-kernel fit, then a joint refinement)")
	stringArrayVar(fs, &f.ort, "ort-profile", "ONNX Runtime profile `[MODEL.onnx=]FILE.json` (repeatable)")
	stringArrayVar(fs, &f.torch, "torch-trace", "PyTorch profiler Chrome trace `FILE.json` (repeatable)")
	stringArrayVar(fs, &f.tables, "table", "measured-op table `FILE.csv` (repeatable)")
	fs.StringVar(&f.base, "base", "cpu", "preset or hardware file to start from")
	fs.StringVarP(&f.out, "output", "o", "", "write the fitted hardware file to `hw.json`")
	fs.StringVar(&f.name, "name", "", "name of the fitted hardware (default: BASE-calibrated; with --host: local)")
	fs.StringVar(&f.models, "models", "", "directory that model paths recorded in profiles are relative to (default: as recorded, else beside the profile, else the absolute path bench/ort/profile.mjs records, else $WOLONG_MODELS)")
	_ = c.RegisterFlagCompletionFunc("base", completeHW)
	return c
}

// loader is the pipeline.LoadFunc of these model options: a
// measurement's recorded input shapes added to --input's.
func (o ModelOptions) loader() pipeline.LoadFunc {
	return func(path string, recorded []pipeline.GivenInput, opt pipeline.InferOptions) (*pipeline.Inferred, error) {
		mo := o.withRecorded(recorded)
		return mo.loadInferred(path, opt)
	}
}

// measurementFlags are the flags of pipeline.MeasurementError's kinds.
var measurementFlags = map[pipeline.MeasurementKind]string{
	pipeline.ORTProfile: "--ort-profile", pipeline.TorchTrace: "--torch-trace", pipeline.OpTable: "--table",
}

// flagError adds the flag of a measurement that failed to err (a usage
// error stays one).
func flagError(err error) error {
	var me *pipeline.MeasurementError
	if !errors.As(err, &me) {
		return err
	}
	e := fmt.Errorf("%s: %v", measurementFlags[me.Kind], me.Err)
	var ue usageErr
	if errors.As(me.Err, &ue) {
		return usageErr{e}
	}
	return e
}

// calibrateRun is `wolong calibrate` with measurements: read them
// (pipeline.ReadCalibration), fit, write the file, print the report.
func calibrateRun(env *Env, opts *CalibrateOptions) error {
	out := newOutputs()
	defer out.abort()
	if err := out.check("-o", opts.Out); err != nil {
		return err
	}
	co := pipeline.CalibrateOptions{ORT: opts.ORT, Torch: opts.Torch, Tables: opts.Tables, Base: opts.Base, Name: opts.Name,
		Models: opts.Models, Joint: opts.Joint, Given: opts.Model.Load.Inputs, Load: opts.Model.loader()}
	if opts.Format == report.Table {
		co.Used = func(line string) { report.WriteLines(env.Out, line) }
	}
	c, err := pipeline.ReadCalibration(co)
	if err != nil {
		return flagError(err)
	}
	defer c.Close()
	env.warn(c.Warnings)
	fit, err := c.Fit()
	if err != nil {
		return err
	}
	env.warn(fit.Coverage)
	if err := out.b.Write(opts.Out, c.Inputs, func(w io.Writer) error { return fit.HW.WriteJSON(w) }); err != nil {
		return fmt.Errorf("-o: %v", err)
	}
	if err := out.commit(); err != nil {
		return err
	}
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, calibrate.NewReport(fit.Result, opts.Out, c.Lines, append(append([]string{}, c.Warnings...), fit.Coverage...)))
	}
	return (&report.Calibration{Result: fit.Result, Base: fit.Base, Direct: fit.Direct, Written: opts.Out}).WriteText(env.Out)
}
