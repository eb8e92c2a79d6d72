package cmd

// This file implements validate MODEL --optimized OUT.onnx: the speedup
// wolong predicts for an optimized model against the one ONNX Runtime
// measures (pipeline.ValidateSpeedup).

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

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

// speedupOptions are validate --optimized's options for
// pipeline.ValidateSpeedup: the records of --ort-latency MODEL.json,OUT.json
// read, or none to measure now.
func speedupOptions(env *Env, opts *ValidateOptions) (pipeline.SpeedupOptions, error) {
	mo := &opts.Model
	so := pipeline.SpeedupOptions{Model: opts.Path, Optimized: opts.Optimized, Seconds: opts.Seconds, Notice: env.Err,
		Load: func(path string) (*pipeline.Loaded, error) {
			defer mo.progress.Done()
			return mo.load(path)
		},
		Predict: func(path string, lat *pipeline.Latency) (float64, error) {
			return predictLatency(mo, path, opts.HW, lat)
		},
	}
	if opts.Latency == "" {
		return so, nil
	}
	files := strings.Split(opts.Latency, ",")
	if len(files) != 2 {
		return so, Usagef("--ort-latency with --optimized: give MODEL.json,OUT.json (the two models' latency records)")
	}
	so.Latencies = &[2]*pipeline.Latency{}
	var err error
	for i, f := range files {
		if so.Latencies[i], err = pipeline.ReadLatency(f); err != nil {
			return so, fmt.Errorf("--ort-latency: %v", err)
		}
	}
	if so.Inputs, err = recordInputs(files[0]); err != nil {
		return so, fmt.Errorf("--ort-latency: %v", err)
	}
	return so, nil
}

// validateSpeedup is validate MODEL --optimized OUT: both predicted on
// --hw with every node run (graph optimizations disabled), measured in ONNX
// Runtime (or read from --ort-latency MODEL.json,OUT.json), and their
// outputs compared in ONNX Runtime when node is there.
func validateSpeedup(env *Env, opts *ValidateOptions) error {
	so, err := speedupOptions(env, opts)
	if err != nil {
		return err
	}
	s, err := pipeline.ValidateSpeedup(so)
	var he *pipeline.HarnessError
	if errors.As(err, &he) {
		return fmt.Errorf("validate --optimized: %v", err)
	}
	var oe *pipeline.OpenInputError
	if errors.As(err, &oe) {
		if oe.Shape != "" {
			return fmt.Errorf("%v: give it with --input or --dim", err)
		}
		return fmt.Errorf("%v: give its shape with --input", err)
	}
	if err != nil {
		return shapeUsage(err)
	}
	v := report.FromSpeedup(s, opts.Path, opts.Optimized, opts.HW, opts.Latency)
	if opts.Format == report.JSON {
		if err := report.WriteJSON(env.Out, v); err != nil {
			return err
		}
	} else if err := v.WriteText(env.Out); err != nil {
		return err
	}
	if s.OutputsEqual != nil && !*s.OutputsEqual {
		return exitErr{code: 1, msg: "validate: the optimized model's outputs differ from the model's in ONNX Runtime"}
	}
	return nil
}
