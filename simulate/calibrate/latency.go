package calibrate

// This file reads end-to-end latency measurements: what a user of the
// runtime sees (profiling off, warm, median of many runs).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/internal/mulberry"
	"github.com/wolong-dev/wolong/ir"
)

// LatencyFormat is the "format" field of a latency file.
const LatencyFormat = "wolong-ort-latency"

// Host is the machine a measurement was taken on, as the harness read it.
type Host struct {
	CPU      string `json:"cpu"`
	Cores    int    `json:"cores"`
	Platform string `json:"platform,omitempty"`
	// ID is the CPU's vendor, family, model and stepping (hw.CPUInfo.ID;
	// Linux, records from 2026-12-08 on): it tells apart CPUs a
	// hypervisor gives one name.
	ID string `json:"id,omitempty"`
}

// Latency is one model's end-to-end latency measured by the ORT harness
// (internal/ortbench/js/measure.mjs): the runtime as people run it.
type Latency struct {
	Source string `json:"-"` // file name, for messages

	Format            string       `json:"format"`
	Version           int          `json:"version"`
	Model             string       `json:"model"`
	ORT               string       `json:"ort"`
	Threads           int          `json:"threads"`
	GraphOptimization string       `json:"graph_optimization"`
	Profiling         bool         `json:"profiling"`
	Inputs            []GraphInput `json:"inputs"`
	Warmup            int          `json:"warmup"`
	Runs              int          `json:"runs"`
	Seed              int          `json:"seed,omitempty"` // of the harness's input stream (0: 1)
	MedianUs          float64      `json:"median_us"`
	P10Us             float64      `json:"p10_us"`
	P90Us             float64      `json:"p90_us"`
	MinUs             float64      `json:"min_us"`
	MeanUs            float64      `json:"mean_us"`
	CPUWallRatio      float64      `json:"cpu_wall_ratio_median"`
	// SteadyMedianUs is the median over the runs the process was not
	// preempted in (CPU time >= 90% of wall time), when at least half the
	// runs were; SteadyRuns counts them. 0: not recorded.
	SteadyMedianUs float64 `json:"steady_median_us"`
	SteadyRuns     int     `json:"steady_runs"`
	Interleaved    bool    `json:"interleaved"`
	// With the harness's --passes: each pass's median; the record's figures
	// are those of the pass with the lowest.
	Passes        int       `json:"passes,omitempty"`
	PassMediansUs []float64 `json:"pass_medians_us,omitempty"`
	// CIPct is how well the target is known: the half-width of the 95%
	// interval of its median, or the gap to the next pass's median when
	// larger, % (measured with --ci-pct; 0: not stated).
	CIPct float64 `json:"ci_pct,omitempty"`
	// With the harness's cache probe (--cache-probe): the L2 size probed
	// (KiB), each pass's probe ratio (the chase over 3/4 of the L2 over
	// the one over 1/16, the larger of the two bracketing the pass: about
	// 1 with the cache to itself), how many passes were quiet and how
	// many of the pooled ones. CacheProbeKB 0: no probe.
	CacheProbeKB    int       `json:"cache_probe_kb,omitempty"`
	PassCacheProbe  []float64 `json:"pass_cache_probe,omitempty"`
	QuietPasses     int       `json:"quiet_passes,omitempty"`
	FastQuietPasses int       `json:"fast_quiet_passes,omitempty"`
	Host            Host      `json:"host"`
	Date            string    `json:"date"`
	// With the harness's --profiled: the median of a second session with
	// ORT's profiler on, run alternately with the first, and the node
	// events it recorded per run; (ProfiledMedianUs - MedianUs) /
	// ProfiledNodeEvents is the profiler's own cost per node.
	ProfiledMedianUs   float64 `json:"profiled_median_us,omitempty"`
	ProfiledNodeEvents float64 `json:"profiled_node_events,omitempty"`
}

// ParseLatency reads a latency file. src names it in messages.
func ParseLatency(src string, data []byte) (*Latency, error) {
	l := &Latency{Source: src}
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(l); err != nil {
		return nil, fmt.Errorf("%s: not a latency file: %v", src, err)
	}
	if l.Format != LatencyFormat {
		return nil, fmt.Errorf("%s: format %q, want %q (written by the ORT harness's measure.mjs)", src, l.Format, LatencyFormat)
	}
	if l.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, this wolong reads version 1", src, l.Version)
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"median_us", l.MedianUs}, {"steady_median_us", l.SteadyMedianUs}, {"profiled_median_us", l.ProfiledMedianUs}, {"profiled_node_events", l.ProfiledNodeEvents}} {
		if !(v.x >= 0) || math.IsInf(v.x, 0) {
			return nil, fmt.Errorf("%s: bad %s %v", src, v.name, v.x)
		}
	}
	if l.MedianUs <= 0 {
		return nil, fmt.Errorf("%s: no median_us", src)
	}
	if l.Profiling {
		return nil, fmt.Errorf("%s: measured with profiling on: a latency target must be an unprofiled run", src)
	}
	for _, in := range l.Inputs {
		if err := checkDims(in.Shape); err != nil {
			return nil, fmt.Errorf("%s: input %q: %v", src, in.Name, err)
		}
	}
	return l, nil
}

// maxInputValues is the most elements of an integer input whose values
// InputValues gives: trip counts, flags, sample rates, sequence lengths.
const maxInputValues = 16

// InputValues reproduces the values the harness fed to the model's small
// integer and bool inputs (at most maxInputValues elements each): its
// constant fills, else its seeded stream (mulberry32 seeded with Seed, 1
// when not recorded; one draw per element of every input in the record's
// order, a fill drawing none; integers draw % 10, bools & 1). A prediction
// given them follows the branches and trip counts the runtime took.
func (l *Latency) InputValues() map[string][]int64 {
	seed := l.Seed
	if seed == 0 {
		seed = 1
	}
	r := mulberry.New(uint32(seed))
	out := map[string][]int64{}
	for _, in := range l.Inputs {
		n := int64(1)
		for _, d := range in.Shape {
			n *= d
		}
		dt, known := ir.ParseDType(in.DType)
		small := known && (dt.IsInt() || dt == ir.Bool) && n <= maxInputValues
		var vals []int64
		for i := int64(0); i < n; i++ {
			if in.Fill != nil {
				if !small {
					break
				}
				vals = append(vals, int64(*in.Fill))
				continue
			}
			u := r.Next()
			if !small {
				continue
			}
			if dt == ir.Bool {
				vals = append(vals, int64(u&1))
			} else {
				vals = append(vals, int64(u%10))
			}
		}
		if small {
			out[in.Name] = vals
		}
	}
	return out
}

// TargetUs is the end-to-end time a prediction is compared with: the
// steady median when recorded (what the machine measures when nothing else
// runs on it), else the median.
func (l *Latency) TargetUs() float64 {
	if l.SteadyMedianUs > 0 {
		return l.SteadyMedianUs
	}
	return l.MedianUs
}

// ProfilerNodeUs is the ORT profiler's own cost per node event measured
// with the model (profiled minus unprofiled median, over the node events
// of one profiled run), µs; 0 when not measured.
func (l *Latency) ProfilerNodeUs() float64 {
	if l.ProfiledMedianUs <= 0 || l.ProfiledNodeEvents <= 0 {
		return 0
	}
	return math.Max(0, l.ProfiledMedianUs-l.MedianUs) / l.ProfiledNodeEvents
}

// RunsEveryNode reports whether the runtime executed the model's own nodes
// without folding any (graph optimizations disabled).
func (l *Latency) RunsEveryNode() bool {
	return l.GraphOptimization == "" || l.GraphOptimization == "disabled"
}
