package pipeline

// This file checks a predicted speedup: a model and its optimized version
// predicted on one hardware with every node run, measured in ONNX
// Runtime (or read from the two models' latency records), and their
// outputs compared in ONNX Runtime. It is validate --optimized's library
// call.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/calibrate"
)

// SpeedupOptions say which two models ValidateSpeedup compares and how.
type SpeedupOptions struct {
	Model, Optimized string
	// Load loads a model with the caller's load options (given shapes,
	// memory bound, progress); ValidateSpeedup closes it.
	Load func(path string) (*Loaded, error)
	// Predict predicts the end-to-end time, ms, of a model as a latency
	// record measured it (PredictLatency, with the caller's hardware).
	Predict func(path string, lat *Latency) (float64, error)
	// Latencies are the two models' latency records measured before, with
	// the inputs the first records (Inputs); nil to measure both now, for
	// Seconds (0: 3 s) of alternating passes.
	Latencies *[2]*Latency
	Inputs    []calibrate.GraphInput
	Seconds   float64
	// Notice receives the harness's first-use install message.
	Notice io.Writer
}

// Latency is a latency record (calibrate.Latency).
type Latency = calibrate.Latency

// Speedup is what ValidateSpeedup found: times in ms.
type Speedup struct {
	PredictedMs, PredictedOptimizedMs float64
	MeasuredMs, MeasuredOptimizedMs   float64
	// Measured says the measurement is of now, not of records.
	Measured bool
	Notes    []string
	// OutputsEqual is whether ONNX Runtime gave both models the same
	// outputs (eval.DefaultTolerance); nil, with a note saying why, when
	// they could not be compared.
	OutputsEqual *bool
}

// ValidateSpeedup predicts both models and measures them (or reads their
// records), and compares their outputs in ONNX Runtime. A harness that
// cannot measure is a *HarnessError.
func ValidateSpeedup(opts SpeedupOptions) (*Speedup, error) {
	res := &Speedup{}
	var lats [2]*Latency
	inputs := opts.Inputs
	if opts.Latencies != nil {
		lats = *opts.Latencies
	} else {
		var err error
		if inputs, err = measuredShapes(opts.Load, opts.Model); err != nil {
			return nil, err
		}
		if lats, err = measurePair(opts.Notice, opts.Model, opts.Optimized, inputs, opts.Seconds); err != nil {
			return nil, err
		}
		res.Measured = true
	}
	for i, p := range []string{opts.Model, opts.Optimized} {
		ms, err := opts.Predict(p, lats[i])
		if err != nil {
			return nil, err
		}
		if i == 0 {
			res.PredictedMs, res.MeasuredMs = ms, lats[i].TargetUs()/1e3
		} else {
			res.PredictedOptimizedMs, res.MeasuredOptimizedMs = ms, lats[i].TargetUs()/1e3
		}
	}
	l := lats[0]
	res.Notes = append(res.Notes, fmt.Sprintf("measured: ONNX Runtime %s, %d thread(s), graph optimizations %s, profiling off, %s (%s)", l.ORT, l.Threads, l.GraphOptimization, measuredHow(lats), l.Host.CPU),
		"predicted: one inference, one stream, every node run (as ONNX Runtime runs them with graph optimizations disabled)")
	eq, why := outputsEqual(opts, inputs)
	res.OutputsEqual = eq
	if why != "" {
		res.Notes = append(res.Notes, why)
	}
	return res, nil
}

// measuredHow says how the two records were measured.
func measuredHow(lats [2]*Latency) string {
	a, b := lats[0], lats[1]
	switch {
	case a.Passes > 1 && b.Passes > 1:
		return fmt.Sprintf("in %d alternating passes over the two, each the lowest pass median (of %d and %d runs)", a.Passes, a.Runs, b.Runs)
	case a.Interleaved && b.Interleaved:
		return fmt.Sprintf("interleaved, medians of %d and %d runs", a.Runs, b.Runs)
	}
	return fmt.Sprintf("medians of %d and %d runs, measured separately", a.Runs, b.Runs)
}

// OpenInputError is an input of the model at Path with no shape to
// measure at: not a tensor of known rank (Type), or of a shape with a dim
// of no value (Shape). A command adds how to give it.
type OpenInputError struct {
	Path, Input string
	Type        string
	Shape       string
}

func (e *OpenInputError) Error() string {
	if e.Shape != "" {
		return fmt.Sprintf("%s: input %q has shape %s", e.Path, e.Input, e.Shape)
	}
	return fmt.Sprintf("%s: input %q is %s", e.Path, e.Input, e.Type)
}

// measuredShapes loads path (symbolic dims default to 1) and returns its
// inputs' concrete shapes, for the harness.
func measuredShapes(load func(string) (*Loaded, error), path string) ([]calibrate.GraphInput, error) {
	l, err := load(path)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	f, err := Infer(l, InferOptions{DefaultDims: true})
	if err != nil {
		return nil, err
	}
	var out []calibrate.GraphInput
	for _, in := range f.Model.Graph.Inputs {
		if in.Const != nil {
			continue
		}
		t := in.Type
		if t.Kind != ir.KindTensor || !t.Shape.Known {
			return nil, &OpenInputError{Path: path, Input: in.Name, Type: t.String()}
		}
		li := calibrate.GraphInput{Name: in.Name, DType: t.DType.String()}
		for _, d := range t.Shape.Dims {
			if !d.IsConcrete() {
				return nil, &OpenInputError{Path: path, Input: in.Name, Shape: t.Shape.String()}
			}
			li.Shape = append(li.Shape, d.Val)
		}
		out = append(out, li)
	}
	return out, nil
}

// measurePair measures both models in ONNX Runtime, interleaved in blocks
// (each round runs both; a slow spell of the machine falls on both alike
// and its speed factor is divided out), one thread, graph optimizations
// disabled, profiling off.
func measurePair(notice io.Writer, model, optimized string, inputs []calibrate.GraphInput, seconds float64) ([2]*Latency, error) {
	var lats [2]*Latency
	h, err := OpenORT(notice)
	if err != nil {
		return lats, &HarnessError{err}
	}
	dir, err := os.MkdirTemp("", "wolong-validate-")
	if err != nil {
		return lats, err
	}
	defer os.RemoveAll(dir)
	jobs := []ortbench.Job{{Model: absPath(model), Inputs: inputs, Seed: 1, Out: "model.json"}, {Model: absPath(optimized), Inputs: inputs, Seed: 1, Out: "optimized.json"}}
	if seconds <= 0 {
		seconds = 3
	}
	if err := h.Run(context.Background(), dir, jobs, ortbench.Measure{Threads: 1, Level: "disabled", Passes: 4, MaxSeconds: seconds}); err != nil {
		return lats, &HarnessError{err}
	}
	for i, j := range jobs {
		if lats[i], err = ReadLatency(filepath.Join(dir, j.Out)); err != nil {
			return lats, err
		}
	}
	return lats, nil
}

// ReadLatency reads a latency record (bench/ort/latency.sh, the
// harness's measure), at most 1 GiB.
func ReadLatency(file string) (*Latency, error) {
	return ReadMeasurement(file, calibrate.ParseLatency)
}

// outputsEqual runs both models once in ONNX Runtime on the same inputs
// (fills as recorded, else seeded random values) and compares their
// outputs with verify's tolerances; nil, with the reason, when it cannot.
func outputsEqual(opts SpeedupOptions, inputs []calibrate.GraphInput) (*bool, string) {
	h, err := OpenORT(opts.Notice)
	if err != nil {
		return nil, "outputs not compared: " + err.Error()
	}
	vals := map[string]eval.Value{}
	r := eval.NewRand(1)
	for _, in := range inputs {
		shape := make([]int, len(in.Shape))
		for i, d := range in.Shape {
			shape[i] = int(d)
		}
		v, err := MakeInput(r, in.DType, shape, in.Fill)
		if err != nil {
			return nil, fmt.Sprintf("outputs not compared: input %s: %v", in.Name, err)
		}
		vals[in.Name] = v
	}
	var runs []ORTModel
	for _, p := range []string{opts.Model, opts.Optimized} {
		l, err := opts.Load(p) // the inputs' names: no inference needed
		if err != nil {
			return nil, "outputs not compared: " + err.Error()
		}
		g := l.Model.Graph
		l.Close()
		runs = append(runs, ORTModel{p, g, vals})
	}
	outs, err := RunInORT(h, runs, 1<<30)
	if err != nil {
		return nil, "outputs not compared: " + err.Error()
	}
	for i, o := range outs {
		if o.Err != "" {
			return nil, fmt.Sprintf("outputs not compared: ONNX Runtime cannot run %s: %s", runs[i].Path, o.Err)
		}
	}
	eq := len(outs[0].Outputs) == len(outs[1].Outputs)
	for i := 0; eq && i < len(outs[0].Outputs); i++ {
		eq = eval.Compare(outs[1].Outputs[i], outs[0].Outputs[i], eval.DefaultTolerance).OK()
	}
	return &eq, ""
}
