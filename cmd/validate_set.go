package cmd

// This file implements validate over a folder of latency records: a
// hardware file's end-to-end error on many models at once.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// latencyFiles lists the latency records in dir (profiles beside them
// left out), sorted.
func latencyFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".profile.json") || n == "spec.json" {
			continue
		}
		files = append(files, filepath.Join(dir, n))
	}
	sort.Strings(files)
	return files, nil
}

// validateSetRun predicts every model recorded in the latency records of the
// folder --ort-latency names with --hw and compares each with its measured
// end-to-end time.
func validateSetRun(env *Env, opts *ValidateOptions) error {
	h, dir := opts.HW, opts.Latency
	files, err := latencyFiles(dir)
	if err != nil {
		return fmt.Errorf("--ort-latency: %v", err)
	}
	if len(files) == 0 {
		return Usagef("--ort-latency %s: no latency records (*.json) in the folder", dir)
	}
	s := &report.ValidationSet{Hardware: h.Name}
	if f := h.Fitted; f != nil {
		s.Fitted = f.Describe()
	}
	hosts := map[string]bool{}
	for _, file := range files {
		lat, err := readLatency(file)
		if err != nil {
			// a folder may hold other JSON files: only records count
			continue
		}
		hosts[lat.Host.CPU] = true
		model := calibrate.RecordedModel(lat.Model, "", file, opts.Models)
		ms, err := predictLatency(&opts.Model, model, h, lat)
		row := report.SetModel{Model: lat.Model, Measurement: file, MeasuredMs: lat.TargetUs() / 1e3, PredictedMs: ms}
		row.Family, row.Development = calibrate.ModelFamily(lat.Model)
		if err != nil {
			row.Error = err.Error()
		}
		s.Models = append(s.Models, row)
	}
	if len(s.Models) == 0 {
		return Usagef("--ort-latency %s: no latency records in the folder", dir)
	}
	for cpu := range hosts {
		if f := h.Fitted; f != nil && cpu != "" && f.CPU != "" && !strings.EqualFold(strings.TrimSpace(cpu), strings.TrimSpace(f.CPU)) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("measured on %s, but --hw %s was fitted on %s", cpu, h.Name, f.CPU))
		}
	}
	sort.Strings(s.Warnings)
	s.Notes = append(s.Notes, "measured: the records' unprofiled end-to-end medians (the lowest pass median when the harness measured in passes); predicted: one inference, one stream, every node run (graph optimizations disabled)",
		"families: calibrate.SharedFamilies names the shared models' (the development set: their errors guided the cost model); any other model is held out, its family the folder it sits in (docs/calibration-protocol.md); a model not predicted counts as a miss (100%)")
	report.NewValidationSet(s)
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
