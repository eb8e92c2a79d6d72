package cmd

// This file implements validate over a folder of latency records: a
// hardware file's end-to-end error on many models at once.

import (
	"fmt"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// latencyFiles lists the latency records in dir (pipeline.LatencyFiles).
var latencyFiles = pipeline.LatencyFiles

// validateSetRun predicts every model recorded in the latency records of the
// folder --ort-latency names with --hw and compares each with its measured
// end-to-end time (pipeline.ValidateSet).
func validateSetRun(env *Env, opts *ValidateOptions) error {
	h, dir := opts.HW, opts.Latency
	res, err := pipeline.ValidateSet(pipeline.SetOptions{Dir: dir, ModelsDir: opts.Models, HW: h,
		Predict: func(model string, lat *pipeline.Latency) (float64, error) {
			return predictLatency(&opts.Model, model, h, lat)
		}})
	switch {
	case err != nil:
		return fmt.Errorf("--ort-latency: %v", err)
	case res.Files == 0:
		return Usagef("--ort-latency %s: no latency records (*.json) in the folder", dir)
	case len(res.Rows) == 0:
		return Usagef("--ort-latency %s: no latency records in the folder", dir)
	}
	s := report.FromSetValidation(res, h)
	for _, w := range s.Warnings {
		fmt.Fprintf(env.Err, "warning: %s\n", w)
	}
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, s)
	}
	return s.WriteText(env.Out)
}

// predictLatency predicts the end-to-end time (ms) of model as lat
// measured it (pipeline.PredictLatency), with the model flags' shapes.
func predictLatency(mo *ModelOptions, model string, h *hw.Hardware, lat *calibrate.Latency) (float64, error) {
	mo.process.limitHeap(mo.MaxMemory)
	defer mo.progress.Done()
	s, err := pipeline.PredictLatency(model, mo.loadOptions(), h, lat)
	if err != nil {
		return 0, shapeUsage(err)
	}
	return s * 1e3, nil
}
