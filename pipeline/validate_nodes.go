package pipeline

// This file compares a model's prediction with a measurement of it: per
// node (an ONNX Runtime profile or a measured-op table), and end to end
// (the profiled run, or an unprofiled latency record). It is wolong
// validate MODEL's library call.

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// NodesOptions say what ValidateNodes compares.
type NodesOptions struct {
	HW *hw.Hardware
	// Measured is the measured time, µs, by node of the model; empty when
	// only an end-to-end time was measured.
	Measured map[*ir.Node]float64
	// Profile is the ONNX Runtime profile Measured came from (nil for a
	// table or none): its run is the end-to-end time, and whether it ran
	// every node decides load-time folding.
	Profile *calibrate.Profile
	// Table says Measured comes from a measured-op table: it measures
	// kernels, not how the runtime folds, so folding is left on.
	Table bool
	// Latency is an unprofiled end-to-end record of the model (nil if
	// none), read from LatencyFile; its time is the end-to-end one.
	Latency     *Latency
	LatencyFile string
	// Cost are the cost model's options (NoFold is set from the
	// measurement).
	Cost cost.Options
}

// NodesValidation is what ValidateNodes found: times in ms.
type NodesValidation struct {
	Simulated   *Simulated
	Nodes       []NodeTime // measured nodes, in schedule order
	PredictedMs float64
	MeasuredMs  float64
	// MeasuredWhat says what MeasuredMs is ("median end-to-end run", ...).
	MeasuredWhat string
	Notes        []string
}

// ValidateNodes simulates f on one stream and pairs every measured node
// with its prediction; end to end it compares the measured run (the
// latency record's, else the profile's) with the prediction, or, with
// neither, the sums over the matched nodes.
func ValidateNodes(f *Inferred, opts NodesOptions) (*NodesValidation, error) {
	v := &NodesValidation{}
	var runUs float64
	co := opts.Cost
	switch p := opts.Profile; {
	case p != nil:
		runUs = p.RunUs
		co.NoFold = p.RunsEveryNode()
		if co.NoFold {
			v.Notes = append(v.Notes, "the profile ran every node (graph optimizations disabled): predicted without load-time folding")
		}
		if extra := runtimeOwnUs(p); extra > 0 {
			v.Notes = append(v.Notes, fmt.Sprintf("ONNX Runtime ran nodes of its own (inserted casts, inlined functions): %.3f ms, in the measured run but in no model node", extra/1e3))
		}
	case !opts.Table:
		co.NoFold = opts.Latency.RunsEveryNode()
	}
	r, err := Simulate(f, SimOptions{HW: opts.HW, Streams: 1, Cost: co})
	if err != nil {
		return nil, err
	}
	v.Simulated = r
	var sumMeasured float64
	for _, n := range CompareNodes(r, opts.Measured) {
		sumMeasured += n.MeasuredUs
		v.Nodes = append(v.Nodes, n)
	}
	v.PredictedMs = r.TotalS * 1e3
	if lat := opts.Latency; lat != nil {
		runUs = lat.TargetUs()
		v.Notes = append(v.Notes, fmt.Sprintf("end to end: %s, profiling off, %d threads, median of %d warm runs (%s)", opts.LatencyFile, lat.Threads, lat.Runs, lat.Host.CPU))
		if c := lat.ProfilerNodeUs(); c > 0 {
			v.Notes = append(v.Notes, fmt.Sprintf("ONNX Runtime's profiler costs %.2f us per node on this model (profiled %.3f ms vs %.3f ms unprofiled)", c, lat.ProfiledMedianUs/1e3, lat.MedianUs/1e3))
		}
	}
	if runUs > 0 {
		v.MeasuredMs, v.MeasuredWhat = runUs/1e3, "median end-to-end run"
		if opts.Latency != nil {
			v.MeasuredWhat = "median unprofiled end-to-end run"
		}
		return v, nil
	}
	v.MeasuredMs, v.MeasuredWhat = sumMeasured/1e3, "sum of the measured nodes"
	v.PredictedMs = 0
	for _, n := range v.Nodes {
		v.PredictedMs += n.PredictedS * 1e3
	}
	v.Notes = append(v.Notes, "no end-to-end time in the measurement: predicted is the sum of the matched nodes' device time")
	return v, nil
}

// runtimeOwnUs is the time a profile's runtime spent in nodes of its own
// (inserted casts, inlined functions' nodes), in no model node.
func runtimeOwnUs(p *calibrate.Profile) float64 {
	extra := 0.0
	for _, s := range p.Samples {
		if strings.HasPrefix(s.Name, "InsertedPrecisionFreeCast_") || strings.HasPrefix(s.Name, "_inlfunc_") {
			extra += s.Us
		}
	}
	return extra
}
