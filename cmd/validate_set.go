package cmd

// This file implements validate over a folder of latency records: a
// hardware file's end-to-end error on many models at once.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/cost"
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

// runValidateSet predicts every model recorded in the latency records of
// dir with h and compares each with its measured end-to-end time.
func runValidateSet(env *Env, opts *ValidateOptions, h *hw.Hardware, dir string, format report.Format) error {
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
		model := recordedModel(lat.Model, "", file, opts.Models)
		ms, err := predictLatency(opts.Model, model, h, lat)
		row := report.SetModel{Model: lat.Model, Measurement: file, MeasuredMs: lat.TargetUs() / 1e3, PredictedMs: ms}
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
	s.Notes = append(s.Notes, "measured: the records' unprofiled end-to-end medians (the lowest pass median when the harness measured in passes); predicted: one inference, one stream, every node run (graph optimizations disabled)")
	report.NewValidationSet(s)
	for _, w := range s.Warnings {
		fmt.Fprintf(env.Err, "warning: %s\n", w)
	}
	if format == report.JSON {
		return report.WriteJSON(env.Out, s)
	}
	return s.WriteText(env.Out)
}

// predictLatency predicts the end-to-end time (ms) of model as lat
// measured it: its input shapes, and no load-time folding when the
// runtime ran every node.
func predictLatency(mf ModelFlags, model string, h *hw.Hardware, lat *calibrate.Latency) (float64, error) {
	mf = withMeasuredInputs(mf, lat.Inputs, lat.Source)
	l, err := mf.loadModel(model)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	withInputValues(l, lat)
	l.DefaultDims()
	r, err := simulate.Run(l.Model, h, simulate.Options{Streams: 1, Infer: l.Opt, Cost: cost.Options{NoFold: lat.RunsEveryNode()}})
	if err != nil {
		return 0, err
	}
	return r.TotalS * 1e3, nil
}

// withInputValues gives l's small integer inputs the values the harness
// fed them (lat.InputValues: fills, or its seeded stream) and infers
// again, so trip counts and branch conditions are the ones the runtime
// took.
func withInputValues(l *Loaded, lat *calibrate.Latency) {
	if vals := lat.InputValues(); len(vals) > 0 {
		opt := l.Opt
		opt.Values = vals
		l.Reinfer(opt)
	}
}
