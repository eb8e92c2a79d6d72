package pipeline

// This file predicts every model of a folder of latency records and pairs
// each prediction with its measured end-to-end time: a hardware file's
// error on many models at once (wolong validate --ort-latency DIR).

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// LatencyFiles lists the latency records in dir (profiles beside them and
// spec.json left out), sorted.
func LatencyFiles(dir string) ([]string, error) {
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

// SetOptions say which records ValidateSet reads and how it predicts.
type SetOptions struct {
	Dir string // the folder of latency records
	// ModelsDir is the folder the records' model paths are relative to
	// ("": as recorded, else beside the record; calibrate.RecordedModel).
	ModelsDir string
	HW        *hw.Hardware
	// Predict predicts the end-to-end time, ms, of a model as its record
	// measured it (PredictLatency with the caller's load options).
	Predict func(model string, lat *Latency) (float64, error)
}

// SetRow is one record's model: measured and predicted, or the error
// that kept it from being predicted.
type SetRow struct {
	Model, Record           string
	MeasuredMs, PredictedMs float64
	Family                  string
	Development             bool // one of the shared models (calibrate.ModelFamily)
	// CacheShared: the harness's cache probe found the core's L2 shared
	// with another tenant in every pass the target pooled (the measured
	// time may be up to 2x the machine's own for a model whose weights
	// fit in the cache).
	CacheShared bool
	Err         error
}

// SetResult is what ValidateSet found.
type SetResult struct {
	// Files counts the *.json files in the folder; Rows has one per latency
	// record among them (other JSON files are skipped).
	Files int
	Rows  []SetRow
	// OtherHosts are the CPUs the records were measured on that are not
	// the one the hardware was fitted on, sorted.
	OtherHosts []string
	Notes      []string
}

// ValidateSet predicts the model of every latency record in opts.Dir. A
// model that cannot be predicted is a row with its error, not an error.
func ValidateSet(opts SetOptions) (*SetResult, error) {
	files, err := LatencyFiles(opts.Dir)
	if err != nil {
		return nil, err
	}
	res := &SetResult{Files: len(files)}
	hosts := map[string]bool{}
	for _, file := range files {
		lat, err := ReadLatency(file)
		if err != nil {
			continue // a folder may hold other JSON files: only records count
		}
		hosts[lat.Host.CPU] = true
		model := calibrate.RecordedModel(lat.Model, "", file, opts.ModelsDir)
		ms, err := opts.Predict(model, lat)
		row := SetRow{Model: lat.Model, Record: file, MeasuredMs: lat.TargetUs() / 1e3, PredictedMs: ms, Err: err,
			CacheShared: lat.CacheProbeKB > 0 && lat.FastQuietPasses == 0}
		row.Family, row.Development = calibrate.ModelFamily(lat.Model)
		res.Rows = append(res.Rows, row)
	}
	for cpu := range hosts {
		if f := opts.HW.Fitted; f != nil && cpu != "" && f.CPU != "" && !strings.EqualFold(strings.TrimSpace(cpu), strings.TrimSpace(f.CPU)) {
			res.OtherHosts = append(res.OtherHosts, cpu)
		}
	}
	sort.Strings(res.OtherHosts)
	res.Notes = []string{"measured: the records' unprofiled end-to-end medians (measured in passes: the runs of the fastest quarter of them pooled; with the harness's --cache-probe, the passes it read as quiet first); predicted: one inference, one stream, every node run (graph optimizations disabled)",
		"families: calibrate.SharedFamilies names the shared models' (the development set: their errors guided the cost model); any other model is held out, its family the folder it sits in (docs/calibration-protocol.md); a model not predicted counts as a miss (100%)"}
	return res, nil
}

// LatencyHost is the machine the latency records at path measured on (a
// record, a folder of them, or "A.json,B.json" as --optimized takes): the
// first readable record's CPU model and logical CPU count; ok false when
// no record names one. validate predicts that machine, not the one it
// runs on, when a preset has a variant fitted on each (hw.ResolveOn).
func LatencyHost(path string) (cpu hw.CPUInfo, ok bool) {
	files := strings.Split(path, ",")
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if files, err = LatencyFiles(path); err != nil {
			return cpu, false
		}
	}
	for _, f := range files {
		if l, err := ReadLatency(f); err == nil && l.Host.CPU != "" {
			return hw.CPUInfo{Model: l.Host.CPU, ID: l.Host.ID, Cores: l.Host.Cores}, true
		}
	}
	return cpu, false
}
