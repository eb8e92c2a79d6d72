package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

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

// NewCmdCalibrate builds `wolong calibrate`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdCalibrate(env *Env, runF func(*CalibrateOptions) error) *cobra.Command {
	f := &calibrateFlags{}
	c := &cobra.Command{
		Use:   "calibrate",
		Short: "Fit a hardware file's efficiency parameters to measured kernel times",
		Long: `calibrate --host measures the machine it runs on and writes a hardware file
for it: it generates about 190 small models (GEMM and conv shapes across the
cache sizes, elementwise and reduction chains, data movement, views, a zoo of
the ops small models run at tiny sizes, attention and ONNX Runtime's fused
transformer ops, a loop, a Scan and an If, LSTM/GRU layers, small complete
CNNs and transformers), runs each in ONNX Runtime 1.30 on one thread and on
two (unprofiled for the end-to-end targets, the lowest median of two passes,
or three where the two differ by more than 10%;
profiled afterwards to share each run's kernel time among its nodes, with
the profiler's own cost measured and taken out), fits the host costs and
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

// profiledModel is an ORT profile with its model loaded and matched.
type profiledModel struct {
	Profile  *calibrate.Profile
	Inferred *pipeline.Inferred
	Path     string
	Pairs    []calibrate.Pair
}

// splitProfileArg splits "MODEL.onnx=FILE.json".
func splitProfileArg(arg string) (model, file string) {
	if m, f, ok := strings.Cut(arg, "="); ok && strings.HasSuffix(strings.ToLower(m), ".onnx") {
		return m, f
	}
	return "", arg
}

func readProfile(file string, parse func(string, []byte) (*calibrate.Profile, error)) (*calibrate.Profile, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if st.Size() > 1<<30 {
		return nil, fmt.Errorf("%s: %d bytes, larger than the 1 GiB allowed", file, st.Size())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return parse(file, data)
}

// readLatency reads a latency file (bench/ort/latency.sh, the harness's
// measure.mjs).
func readLatency(file string) (*calibrate.Latency, error) {
	var l *calibrate.Latency
	_, err := readProfile(file, func(src string, data []byte) (*calibrate.Profile, error) {
		var err error
		l, err = calibrate.ParseLatency(src, data)
		return nil, err
	})
	return l, err
}

// loadORTProfile reads an ORT profile, loads its model (model, or the one
// the profile records, relative to modelsDir) with the recorded input
// shapes plus mo's, infers it once (symbolic dims left open set to 1,
// small integer inputs at values, when given) and matches them.
func loadORTProfile(arg, model, modelsDir string, mo ModelOptions, values map[string][]int64) (*profiledModel, error) {
	m, file := splitProfileArg(arg)
	if model != "" {
		m = model
	}
	p, err := readProfile(file, calibrate.ParseORT)
	if err != nil {
		return nil, err
	}
	if m == "" {
		if p.Model == "" {
			return nil, fmt.Errorf("%s records no model: give it as MODEL.onnx=%s", file, file)
		}
		m = calibrate.RecordedModel(p.Model, p.ModelPath, file, modelsDir)
	}
	mo = mo.withRecorded(pipeline.RecordedInputs(p.Inputs, file, mo.Load.Inputs))
	f, err := mo.loadInferred(m, pipeline.InferOptions{DefaultDims: true, Values: values})
	if err != nil {
		return nil, err
	}
	pairs, err := calibrate.Match(f.Model, p)
	if err != nil {
		f.Loaded.Close()
		return nil, fmt.Errorf("%v (model %s)", err, m)
	}
	return &profiledModel{Profile: p, Inferred: f, Path: m, Pairs: pairs}, nil
}

func calibrateRun(env *Env, opts *CalibrateOptions) error {
	format := opts.Format
	// what was used from each file: printed first in a table, kept for JSON
	var lines, warnings []string
	used := func(line string, args ...any) {
		lines = append(lines, fmt.Sprintf(line, args...))
		if format == report.Table {
			fmt.Fprintln(env.Out, lines[len(lines)-1])
		}
	}
	out := newOutputs()
	defer out.abort()
	if err := out.check("-o", opts.Out); err != nil {
		return err
	}
	base := opts.Base
	var data calibrate.FitData
	var inputs []string
	var skipped []string
	for _, arg := range opts.ORT {
		_, file := splitProfileArg(arg)
		lat := latencyBeside(file)
		var values map[string][]int64
		if lat != nil {
			values = lat.InputValues()
		}
		pm, err := loadORTProfile(arg, "", opts.Models, opts.Model, values)
		if err != nil {
			var ue usageErr
			if errors.As(err, &ue) {
				return usageErr{fmt.Errorf("--ort-profile %s: %v", arg, err)}
			}
			return fmt.Errorf("--ort-profile %s: %v", arg, err)
		}
		defer pm.Inferred.Loaded.Close()
		warnings = append(warnings, prefixed(pm.Path, pm.Inferred.Warnings())...)
		inputs = append(inputs, file, pm.Path)
		r := calibrate.ORTRun{Label: pm.Path, Model: pm.Inferred.Model, Pairs: pm.Pairs, ProfiledUs: pm.Profile.RunUs, EveryNode: pm.Profile.RunsEveryNode()}
		target := "the profiled run"
		if lat != nil {
			r.UnprofiledUs = lat.TargetUs()
			inputs = append(inputs, lat.Source)
			target = "unprofiled run " + lat.Source
		}
		n := data.AddORT(base, r)
		used("%s: %s matched in %s, %s used; end to end: %s", file, report.Count(len(pm.Pairs), "node"), pm.Path, report.Count(n, "kernel"), target)
	}
	for _, file := range opts.Torch {
		p, err := readProfile(file, calibrate.ParseTorch)
		if err != nil {
			return fmt.Errorf("--torch-trace: %v", err)
		}
		o, sk := calibrate.SampleObs(base, p.Samples)
		data.Obs, skipped = append(data.Obs, o...), append(skipped, sk...)
		inputs = append(inputs, file)
		used("%s: %s, %s used", file, report.Count(len(p.Samples), "op"), report.Count(len(o), "kernel"))
	}
	for _, file := range opts.Tables {
		p, err := readProfile(file, calibrate.ParseTable)
		if err != nil {
			return fmt.Errorf("--table: %v", err)
		}
		o, sk := calibrate.SampleObs(base, p.Samples)
		data.Obs, skipped = append(data.Obs, o...), append(skipped, sk...)
		inputs = append(inputs, file)
		used("%s: %s, %s used", file, report.Count(len(p.Samples), "row"), report.Count(len(o), "kernel"))
	}
	for _, s := range skipped {
		warnings = append(warnings, "skipped "+s)
	}
	env.warn(warnings)
	if !opts.Joint && base.Kind == "cpu" && len(data.Direct) > 0 && len(data.Direct) == len(opts.ORT) && len(opts.Torch)+len(opts.Tables) == 0 {
		return calibrateDirect(env, opts, base, data.Direct, inputs, out, format, lines, warnings)
	}
	r, err := calibrate.Fit(base, data.Obs, data.Runs, calibrate.Options{Name: opts.Name})
	if err != nil {
		return err
	}
	if done, err := saveCalibration(env, opts, out, inputs, format, r, lines, warnings); done {
		return err
	}
	writeFit(env.Out, r)
	fmt.Fprintf(env.Out, "wrote %s (use it with --hw %s)\n", opts.Out, opts.Out)
	return nil
}

// saveCalibration writes r's hardware file (-o) and commits the
// command's outputs; with --format json it prints the report too. done
// says the command has nothing left to print (err, if any, is its
// result).
func saveCalibration(env *Env, opts *CalibrateOptions, out *outputs, inputs []string, format report.Format, r *calibrate.Result, lines, warnings []string) (done bool, err error) {
	if err := out.b.Write(opts.Out, inputs, func(w io.Writer) error { return r.HW.WriteJSON(w) }); err != nil {
		return true, fmt.Errorf("-o: %v", err)
	}
	if err := out.commit(); err != nil {
		return true, err
	}
	if format == report.JSON {
		return true, report.WriteJSON(env.Out, calibrate.NewReport(r, opts.Out, lines, warnings))
	}
	return false, nil
}

func writeFit(w io.Writer, r *calibrate.Result) {
	fmt.Fprintf(w, "\nfit of %s (compute / memory fraction of peak, overhead us; kernel error: mean |%%| and %% of the class's summed time)\n", r.HW.Name)
	fmt.Fprintf(w, "%-14s %6s  %-22s %-22s %16s %16s\n", "class", "kernels", "before", "after", "MAPE before>after", "sum err before>after")
	for _, c := range r.Classes {
		fmt.Fprintf(w, "%-14s %6d  %-22s %-22s %7.1f%% > %5.1f%% %+7.1f%% > %+6.1f%%\n", c.Class, c.N,
			fmt.Sprintf("%.4g / %.4g / %.3g", c.Before.Compute, c.Before.Memory, c.Before.OverheadUs),
			fmt.Sprintf("%.4g / %.4g / %.3g", c.After.Compute, c.After.Memory, c.After.OverheadUs),
			c.MAPEBefore, c.MAPEAfter, c.SumErrBefore, c.SumErrAfter)
		if c.Kept {
			fmt.Fprintf(w, "%-14s kept the base parameters: fewer than %d kernels to fit\n", "", calibrate.MinClassKernels)
		}
	}
	if r.Runs > 0 {
		var ps []string
		for _, p := range r.Host {
			ps = append(ps, fmt.Sprintf("%s %.4g > %.4g", p.Name, p.Before, p.After))
		}
		fmt.Fprintf(w, "host: %s, fitted to %d end-to-end runs (MAPE %.1f%% > %.1f%%)\n",
			strings.Join(ps, ", "), r.Runs, r.RunMAPEBefore, r.RunMAPEAfter)
	}
}

// latencyBeside returns the unprofiled latency record beside a profile
// written by the harness (NAME.json beside NAME.profile.json), or nil.
func latencyBeside(profile string) *calibrate.Latency {
	if !strings.HasSuffix(profile, ".profile.json") {
		return nil
	}
	l, err := readLatency(strings.TrimSuffix(profile, ".profile.json") + ".json")
	if err != nil {
		return nil
	}
	return l
}

// calibrateDirect fits base to CPU runs with unprofiled targets
// (calibrate.FitDirect), writes the file and prints the fit.
func calibrateDirect(env *Env, opts *CalibrateOptions, base *hw.Hardware, runs []calibrate.DirectRun, inputs []string, out *outputs, format report.Format, lines, warnings []string) error {
	name := opts.Name
	if name == "" {
		name = base.Name + "-calibrated"
	}
	r, err := calibrate.FitDirect(base, runs, calibrate.DirectOptions{Name: name})
	if err != nil {
		return err
	}
	cov := calibrate.Coverage(runs)
	env.warn(cov)
	warnings = append(warnings, cov...)
	cr := &calibrate.Result{HW: r.HW, Classes: r.Classes, Ops: r.Ops, Host: r.Host, Runs: len(runs)}
	if done, err := saveCalibration(env, opts, out, inputs, format, cr, lines, warnings); done {
		return err
	}
	sum := calibrate.SummarizeDirect(base, r.HW, runs, 5)
	fmt.Fprintf(env.Out, "\nfit of %s to %d unprofiled runs (direct): end-to-end MAPE %.1f%% with %s, %.1f%% fitted\n", r.HW.Name, len(runs), sum.MAPEBefore, base.Name, sum.MAPEAfter)
	var hp []string
	for _, p := range r.Host {
		hp = append(hp, fmt.Sprintf("%s %.4g > %.4g", p.Name, p.Before, p.After))
	}
	fmt.Fprintf(env.Out, "host: %s\n", strings.Join(hp, ", "))
	for _, e := range sum.Worst {
		fmt.Fprintf(env.Out, "  largest error: %s: measured %.4g ms, fitted %.4g ms (%+.1f%%)\n", e.Label, e.MeasuredUs/1e3, e.PredictedUs/1e3, e.Pct())
	}
	fmt.Fprintf(env.Out, "%d op types with efficiencies of their own\n", len(r.Ops))
	fmt.Fprintf(env.Out, "wrote %s (use it with --hw %s)\n", opts.Out, opts.Out)
	return nil
}
