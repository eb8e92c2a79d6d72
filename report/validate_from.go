package report

// This file builds validate's reports from pipeline's results, so that
// the command makes one call for each: the per-node validation, the set
// of latency records and the speedup of an optimized model.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// FromNodesValidation is validate MODEL's report of r: model predicted on
// h and compared with measurement (the profile or table, "" for neither)
// and latency (the latency record, "" for none); warnings are the
// model's and the simulation's.
func FromNodesValidation(r *pipeline.NodesValidation, model string, h *hw.Hardware, measurement, latency string, warnings []string) *Validation {
	v := &Validation{Model: model, Hardware: h.Name, Measurement: measurement}
	v.Warnings = warnings
	for _, n := range r.Nodes {
		v.Nodes = append(v.Nodes, ValidateNode{Name: ir.NodeLabel(n.Node), Op: n.Op, PredictedMs: n.PredictedS * 1e3, MeasuredMs: n.MeasuredUs / 1e3})
	}
	if latency != "" {
		v.Measurement = strings.TrimPrefix(v.Measurement+", "+latency, ", ")
	}
	v.PredictedMs, v.MeasuredMs, v.MeasuredWhat, v.Notes = r.PredictedMs, r.MeasuredMs, r.MeasuredWhat, r.Notes
	return NewValidation(v)
}

// FromSetValidation is validate --ort-latency DIR's report of res,
// predicted on h: a warning for each record measured on another CPU than
// h was fitted on.
func FromSetValidation(res *pipeline.SetResult, h *hw.Hardware) *ValidationSet {
	s := &ValidationSet{Hardware: h.Name}
	s.Notes = res.Notes
	if f := h.Fitted; f != nil {
		s.Fitted = f.Describe()
	}
	for _, r := range res.Rows {
		row := SetModel{Model: r.Model, Measurement: r.Record, MeasuredMs: r.MeasuredMs, PredictedMs: r.PredictedMs, Family: r.Family, Development: r.Development, CacheShared: r.CacheShared}
		if r.Err != nil {
			row.Error = r.Err.Error()
		}
		s.Models = append(s.Models, row)
	}
	if n := countShared(s.Models); n > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d of %d records were measured only in passes the harness's cache probe read as sharing the core's L2 (cache_shared in the JSON; the probe is experimental: on the Intel VM it read quiet passes so too, docs/calibration-protocol.md)", n, len(s.Models)))
	}
	for _, cpu := range res.OtherHosts {
		s.Warnings = append(s.Warnings, fmt.Sprintf("measured on %s, but --hw %s was fitted on %s", cpu, h.Name, h.Fitted.CPU))
	}
	sort.Strings(s.Warnings)
	return NewValidationSet(s)
}

// FromSpeedup is validate MODEL --optimized OUT's report of s, predicted
// on h; latency names the records read ("" when s was measured now).
func FromSpeedup(s *pipeline.Speedup, model, optimized string, h *hw.Hardware, latency string) *SpeedupValidation {
	v := &SpeedupValidation{Model: model, Optimized: optimized, Hardware: h.Name, Measurement: latency,
		PredictedMs: s.PredictedMs, MeasuredMs: s.MeasuredMs, PredictedOptimizedMs: s.PredictedOptimizedMs, MeasuredOptimizedMs: s.MeasuredOptimizedMs,
		OutputsEqual: s.OutputsEqual, Notes: s.Notes}
	if s.Measured {
		v.Measurement = fmt.Sprintf("ONNX Runtime %s, measured now", ortbench.Version)
	}
	NewSpeedupValidation(v)
	return v
}

// countShared counts the rows measured only with the cache shared.
func countShared(ms []SetModel) int {
	n := 0
	for _, m := range ms {
		if m.CacheShared {
			n++
		}
	}
	return n
}
