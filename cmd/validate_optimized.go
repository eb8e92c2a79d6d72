package cmd

// This file implements validate MODEL --optimized OUT.onnx: the speedup
// wolong predicts for an optimized model against the one ONNX Runtime
// measures.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/calibrate"
)

// recordInputs reads the inputs a latency record lists, fills included.
func recordInputs(file string) ([]calibrate.GraphInput, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var r struct {
		Inputs []calibrate.GraphInput `json:"inputs"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return r.Inputs, nil
}

// validateSpeedup is validate MODEL --optimized OUT: both predicted on
// --hw with every node run (graph optimizations disabled), measured in ONNX
// Runtime (or read from --ort-latency MODEL.json,OUT.json), and their
// outputs compared in ORT when node is there.
func validateSpeedup(env *Env, opts *ValidateOptions) error {
	path, h := opts.Path, opts.HW
	var err error
	v := &report.SpeedupValidation{Model: path, Optimized: opts.Optimized, Hardware: h.Name}
	var lats [2]*calibrate.Latency
	var inputs []calibrate.GraphInput
	if opts.Latency != "" {
		files := strings.Split(opts.Latency, ",")
		if len(files) != 2 {
			return Usagef("--ort-latency with --optimized: give MODEL.json,OUT.json (the two models' latency records)")
		}
		for i, f := range files {
			if lats[i], err = readLatency(f); err != nil {
				return fmt.Errorf("--ort-latency: %v", err)
			}
		}
		if inputs, err = recordInputs(files[0]); err != nil {
			return fmt.Errorf("--ort-latency: %v", err)
		}
		v.Measurement = opts.Latency
	} else {
		if inputs, err = measuredShapes(&opts.Model, path); err != nil {
			return err
		}
		if lats, err = measurePair(env.Err, path, opts.Optimized, inputs, opts.Seconds); err != nil {
			return err
		}
		v.Measurement = fmt.Sprintf("ONNX Runtime %s, measured now", ortbench.Version)
	}
	for i, p := range []string{path, opts.Optimized} {
		ms, err := predictLatency(&opts.Model, p, h, lats[i])
		if err != nil {
			return err
		}
		if i == 0 {
			v.PredictedMs, v.MeasuredMs = ms, lats[i].TargetUs()/1e3
		} else {
			v.PredictedOptimizedMs, v.MeasuredOptimizedMs = ms, lats[i].TargetUs()/1e3
		}
	}
	l := lats[0]
	v.Notes = append(v.Notes, fmt.Sprintf("measured: ONNX Runtime %s, %d thread(s), graph optimizations %s, profiling off, %s (%s)", l.ORT, l.Threads, l.GraphOptimization, measuredHow(lats), l.Host.CPU),
		"predicted: one inference, one stream, every node run (as ONNX Runtime runs them with graph optimizations disabled)")
	eq, why := outputsEqual(env.Err, path, opts.Optimized, inputs, &opts.Model)
	v.OutputsEqual = eq
	if why != "" {
		v.Notes = append(v.Notes, why)
	}
	report.NewSpeedupValidation(v)
	if opts.Format == report.JSON {
		if err := report.WriteJSON(env.Out, v); err != nil {
			return err
		}
	} else if err := v.WriteText(env.Out); err != nil {
		return err
	}
	if eq != nil && !*eq {
		return exitErr{code: 1, msg: "validate: the optimized model's outputs differ from the model's in ONNX Runtime"}
	}
	return nil
}

// measuredHow says how the two records were measured.
func measuredHow(lats [2]*calibrate.Latency) string {
	a, b := lats[0], lats[1]
	switch {
	case a.Passes > 1 && b.Passes > 1:
		return fmt.Sprintf("in %d alternating passes over the two, each the lowest pass median (of %d and %d runs)", a.Passes, a.Runs, b.Runs)
	case a.Interleaved && b.Interleaved:
		return fmt.Sprintf("interleaved, medians of %d and %d runs", a.Runs, b.Runs)
	}
	return fmt.Sprintf("medians of %d and %d runs, measured separately", a.Runs, b.Runs)
}

// measuredShapes loads path with the model flags (symbolic dims default to
// 1) and returns its inputs' concrete shapes, for the harness.
func measuredShapes(mo *ModelOptions, path string) ([]calibrate.GraphInput, error) {
	f, err := mo.loadInferred(path, pipeline.InferOptions{DefaultDims: true})
	if err != nil {
		return nil, err
	}
	defer f.Loaded.Close()
	var out []calibrate.GraphInput
	for _, in := range f.Model.Graph.Inputs {
		if in.Const != nil {
			continue
		}
		t := in.Type
		if t.Kind != ir.KindTensor || !t.Shape.Known {
			return nil, fmt.Errorf("%s: input %q is %s: give its shape with --input", path, in.Name, t)
		}
		li := calibrate.GraphInput{Name: in.Name, DType: t.DType.String()}
		for _, d := range t.Shape.Dims {
			if !d.IsConcrete() {
				return nil, fmt.Errorf("%s: input %q has shape %s: give it with --input or --dim", path, in.Name, t.Shape)
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
func measurePair(notice io.Writer, model, optimized string, inputs []calibrate.GraphInput, seconds float64) ([2]*calibrate.Latency, error) {
	var lats [2]*calibrate.Latency
	h, err := openORT(notice)
	if err != nil {
		return lats, fmt.Errorf("validate --optimized: %v", err)
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
		return lats, fmt.Errorf("validate --optimized: %v", err)
	}
	for i, j := range jobs {
		if lats[i], err = readLatency(filepath.Join(dir, j.Out)); err != nil {
			return lats, err
		}
	}
	return lats, nil
}

// outputsEqual runs both models once in ONNX Runtime on the same inputs
// (fills as recorded, else seeded random values) and compares their
// outputs with verify's tolerances; nil, with the reason, when it cannot.
func outputsEqual(notice io.Writer, model, optimized string, inputs []calibrate.GraphInput, mo *ModelOptions) (*bool, string) {
	h, err := openORT(notice)
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
		v, err := makeInput(r, in.DType, shape, in.Fill)
		if err != nil {
			return nil, fmt.Sprintf("outputs not compared: input %s: %v", in.Name, err)
		}
		vals[in.Name] = v
	}
	var runs []ortModel
	for _, p := range []string{model, optimized} {
		l, err := mo.load(p) // the inputs' names: no inference needed
		if err != nil {
			return nil, "outputs not compared: " + err.Error()
		}
		g := l.Model.Graph
		l.Close()
		runs = append(runs, ortModel{p, g, vals})
	}
	outs, err := ortRunModels(h, runs, 1<<30)
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
