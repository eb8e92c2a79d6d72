package pipeline

// This file is calibrate's fit from measurements (ONNX Runtime profiles,
// PyTorch traces, tables): reading the files, loading and matching each
// profile's model, the kernel-inflation correction of a profile with its
// unprofiled latency record beside it, and the choice between the direct
// fit (CPU runs with unprofiled targets) and the per-kernel fit.

import (
	"fmt"
	"os"
	"strings"

	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// maxMeasurementBytes is the largest measurement file read.
const maxMeasurementBytes = 1 << 30

// ReadMeasurement reads a measurement file, at most 1 GiB, and parses it
// with parse (calibrate.ParseORT, ParseTorch, ParseTable, ParseLatency).
func ReadMeasurement[T any](file string, parse func(src string, data []byte) (T, error)) (T, error) {
	var zero T
	st, err := os.Stat(file)
	if err != nil {
		return zero, err
	}
	if st.Size() > maxMeasurementBytes {
		return zero, fmt.Errorf("%s: %d bytes, larger than the 1 GiB allowed", file, st.Size())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return zero, err
	}
	return parse(file, data)
}

// SplitProfileArg splits calibrate's and validate's "MODEL.onnx=FILE.json"
// (model "" when the argument is a file alone).
func SplitProfileArg(arg string) (model, file string) {
	if m, f, ok := strings.Cut(arg, "="); ok && strings.HasSuffix(strings.ToLower(m), ".onnx") {
		return m, f
	}
	return "", arg
}

// LatencyBeside returns the unprofiled latency record beside a profile
// written by the harness (NAME.json beside NAME.profile.json), or nil.
func LatencyBeside(profile string) *Latency {
	if !strings.HasSuffix(profile, ".profile.json") {
		return nil
	}
	l, err := ReadLatency(strings.TrimSuffix(profile, ".profile.json") + ".json")
	if err != nil {
		return nil
	}
	return l
}

// LoadFunc loads and infers the model at path with the input shapes a
// measurement recorded added to the caller's own (the command's --input,
// --dim, limits and progress).
type LoadFunc func(path string, recorded []GivenInput, opt InferOptions) (*Inferred, error)

// ProfiledModel is an ONNX Runtime profile with its model loaded and
// matched.
type ProfiledModel struct {
	Profile  *calibrate.Profile
	Inferred *Inferred
	Path     string // the model's path
	Pairs    []calibrate.Pair
}

// ProfileLoad says how LoadORTProfile finds and loads a profile's model.
type ProfileLoad struct {
	Model     string             // the model ("": the one the argument names, else the one the profile records)
	ModelsDir string             // the folder a recorded model path is relative to
	Values    map[string][]int64 // small integer inputs' values (Latency.InputValues), or nil
	Given     []GivenInput       // the shapes the caller gives (a recorded one of the same input is left out)
	Load      LoadFunc
}

// LoadORTProfile reads the ONNX Runtime profile arg ([MODEL.onnx=]FILE.json),
// loads its model (see ProfileLoad) with the recorded input shapes, infers
// it once (symbolic dims left open set to 1, small integer inputs at
// their values, when given) and matches them. The caller closes
// Inferred.Loaded.
func LoadORTProfile(arg string, pl ProfileLoad) (*ProfiledModel, error) {
	m, file := SplitProfileArg(arg)
	if pl.Model != "" {
		m = pl.Model
	}
	p, err := ReadMeasurement(file, calibrate.ParseORT)
	if err != nil {
		return nil, err
	}
	if m == "" {
		if p.Model == "" {
			return nil, fmt.Errorf("%s records no model: give it as MODEL.onnx=%s", file, file)
		}
		m = calibrate.RecordedModel(p.Model, p.ModelPath, file, pl.ModelsDir)
	}
	f, err := pl.Load(m, RecordedInputs(p.Inputs, file, pl.Given), InferOptions{DefaultDims: true, Values: pl.Values})
	if err != nil {
		return nil, err
	}
	pairs, err := calibrate.Match(f.Model, p)
	if err != nil {
		f.Loaded.Close()
		return nil, fmt.Errorf("%v (model %s)", err, m)
	}
	return &ProfiledModel{Profile: p, Inferred: f, Path: m, Pairs: pairs}, nil
}

// MeasurementKind says which kind of file a MeasurementError is about.
type MeasurementKind int

// The kinds of measurement calibrate reads.
const (
	ORTProfile MeasurementKind = iota // an ONNX Runtime profile
	TorchTrace                        // a PyTorch profiler trace
	OpTable                           // wolong's measured-op table
)

// MeasurementError is a measurement file that could not be read, loaded or
// matched; Err names the file (or its model) already, so a caller adds
// only the flag of Kind.
type MeasurementError struct {
	Kind MeasurementKind
	Err  error
}

func (e *MeasurementError) Error() string { return e.Err.Error() }
func (e *MeasurementError) Unwrap() error { return e.Err }

// CalibrateOptions are the measurements a hardware file is fitted to.
type CalibrateOptions struct {
	ORT    []string // [MODEL.onnx=]FILE.json
	Torch  []string // PyTorch traces
	Tables []string // measured-op tables
	Base   *hw.Hardware
	Name   string       // of the fitted hardware ("": BASE-calibrated)
	Models string       // the folder a profile's recorded model path is relative to
	Joint  bool         // fit CPU runs with latency records per kernel, then jointly (default: directly)
	Given  []GivenInput // the shapes the caller gives (--input)
	Load   LoadFunc
	// Used, when set, gets each file's line as it is read (what was used
	// from it); Calibration.Lines keeps them.
	Used func(line string)
}

// Calibration is the measurements read for a fit, their models loaded.
type Calibration struct {
	opts     CalibrateOptions
	data     calibrate.FitData
	loaded   []*Inferred
	Inputs   []string // the files read: the fitted file's inputs
	Lines    []string // what was used from each file
	Warnings []string // the models' warnings, then the samples skipped
}

// ReadCalibration reads opts' measurements and loads and matches the
// profiles' models (a *MeasurementError names the file that failed). The
// caller closes the Calibration.
func ReadCalibration(opts CalibrateOptions) (*Calibration, error) {
	c := &Calibration{opts: opts}
	if err := c.read(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Calibration) used(line string, args ...any) {
	c.Lines = append(c.Lines, fmt.Sprintf(line, args...))
	if c.opts.Used != nil {
		c.opts.Used(c.Lines[len(c.Lines)-1])
	}
}

func (c *Calibration) read() error {
	base := c.opts.Base
	for _, arg := range c.opts.ORT {
		if err := c.readORT(arg); err != nil {
			return &MeasurementError{ORTProfile, err}
		}
	}
	var skipped []string
	for _, k := range []struct {
		kind  MeasurementKind
		files []string
		parse func(string, []byte) (*calibrate.Profile, error)
		unit  string
	}{{TorchTrace, c.opts.Torch, calibrate.ParseTorch, "op"}, {OpTable, c.opts.Tables, calibrate.ParseTable, "row"}} {
		for _, file := range k.files {
			p, err := ReadMeasurement(file, k.parse)
			if err != nil {
				return &MeasurementError{k.kind, err}
			}
			o, sk := calibrate.SampleObs(base, p.Samples)
			c.data.Obs, skipped = append(c.data.Obs, o...), append(skipped, sk...)
			c.Inputs = append(c.Inputs, file)
			c.used("%s: %s, %s used", file, count(len(p.Samples), k.unit), count(len(o), "kernel"))
		}
	}
	for _, s := range skipped {
		c.Warnings = append(c.Warnings, "skipped "+s)
	}
	return nil
}

// readORT reads one profile, with the latency record beside it when the
// harness wrote one (its median is the run's end-to-end target).
func (c *Calibration) readORT(arg string) error {
	_, file := SplitProfileArg(arg)
	lat := LatencyBeside(file)
	var values map[string][]int64
	if lat != nil {
		values = lat.InputValues()
	}
	pm, err := LoadORTProfile(arg, ProfileLoad{ModelsDir: c.opts.Models, Values: values, Given: c.opts.Given, Load: c.opts.Load})
	if err != nil {
		return err
	}
	c.loaded = append(c.loaded, pm.Inferred)
	for _, w := range pm.Inferred.Warnings() {
		c.Warnings = append(c.Warnings, pm.Path+": "+strings.TrimPrefix(w, "warning: "))
	}
	c.Inputs = append(c.Inputs, file, pm.Path)
	r := calibrate.ORTRun{Label: pm.Path, Model: pm.Inferred.Model, Pairs: pm.Pairs, ProfiledUs: pm.Profile.RunUs, EveryNode: pm.Profile.RunsEveryNode()}
	target := "the profiled run"
	if lat != nil {
		r.UnprofiledUs = lat.TargetUs()
		c.Inputs = append(c.Inputs, lat.Source)
		target = "unprofiled run " + lat.Source
	}
	n := c.data.AddORT(c.opts.Base, r)
	c.used("%s: %s matched in %s, %s used; end to end: %s", file, count(len(pm.Pairs), "node"), pm.Path, count(n, "kernel"), target)
	return nil
}

// Close closes the profiles' models.
func (c *Calibration) Close() {
	for _, f := range c.loaded {
		f.Loaded.Close()
	}
	c.loaded = nil
}

// Direct says the fit is direct: a CPU base, every measurement an ONNX
// Runtime profile with an unprofiled latency record, and no --fit joint.
func (c *Calibration) Direct() bool {
	o := c.opts
	return !o.Joint && o.Base.Kind == "cpu" && len(c.data.Direct) > 0 && len(c.data.Direct) == len(o.ORT) && len(o.Torch)+len(o.Tables) == 0
}

// CalibrationFit is a fitted hardware file and what its report says.
type CalibrationFit struct {
	*calibrate.Result
	Base *hw.Hardware
	// Direct is the end-to-end summary of a direct fit (nil: fitted per
	// kernel, calibrate.Fit).
	Direct *calibrate.DirectSummary
	// Coverage are a direct fit's warnings on what the runs leave
	// unfitted (calibrate.Coverage).
	Coverage []string
}

// Fit fits the base hardware to the measurements: directly to the
// unprofiled runs (calibrate.FitDirect) when Direct, else per kernel with
// the runs refining the host (calibrate.Fit).
func (c *Calibration) Fit() (*CalibrationFit, error) {
	base := c.opts.Base
	if !c.Direct() {
		r, err := calibrate.Fit(base, c.data.Obs, c.data.Runs, calibrate.Options{Name: c.opts.Name})
		if err != nil {
			return nil, err
		}
		return &CalibrationFit{Result: r, Base: base}, nil
	}
	runs := c.data.Direct
	name := c.opts.Name
	if name == "" {
		name = base.Name + "-calibrated"
	}
	r, err := calibrate.FitDirect(base, runs, calibrate.DirectOptions{Name: name})
	if err != nil {
		return nil, err
	}
	sum := calibrate.SummarizeDirect(base, r.HW, runs, 5)
	return &CalibrationFit{
		Result: &calibrate.Result{HW: r.HW, Classes: r.Classes, Ops: r.Ops, Host: r.Host, Runs: len(runs)},
		Base:   base, Direct: &sum, Coverage: calibrate.Coverage(runs),
	}, nil
}
