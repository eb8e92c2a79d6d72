package calibrate

// This file defines the measurement types and the ONNX Runtime profile
// parser.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/ir"
)

// Format names a measurement file format.
type Format string

// Formats.
const (
	ORT   Format = "ort"   // ONNX Runtime profiling JSON
	Torch Format = "torch" // PyTorch profiler Chrome trace
	Table Format = "table" // wolong's CSV table
)

// Limits on untrusted input.
const (
	maxEvents  = 5_000_000
	maxRank    = 16
	maxValues  = 4096
	maxSamples = 1_000_000
)

// Input is one input of a measured op.
type Input struct {
	Absent bool     // an omitted optional input
	DType  ir.DType // element type
	Dims   []int64  // shape (empty: a scalar)
	Values []float64
	// HasValues says Values is the input's constant content.
	HasValues bool
}

// Sample is one measured op: what ran and how long it took.
type Sample struct {
	Name   string // model node name; "" when the format has none
	Op     string // ONNX op type
	Domain string // "" for ai.onnx
	DType  ir.DType
	Inputs []Input
	Attrs  []*ir.Attr // table rows only
	Us     float64    // measured time of one execution, µs (median over runs)
	Runs   int        // executions the median is over
}

// GraphInput is a model input's shape as measured: the record the
// measuring harness (internal/ortbench) writes under "inputs".
type GraphInput = ortbench.Input

// Profile is one measurement file.
type Profile struct {
	Source string // file name, for messages
	Format Format
	Model  string // model path the profile names ("" if none)
	// ModelPath is the model's absolute path when the profile was taken
	// (bench/ort/profile.mjs records it), for finding the model from any
	// working folder; "" if not recorded.
	ModelPath string
	Inputs    []GraphInput // input shapes the profile names (nil if none)
	RunUs     float64      // median end-to-end run time, µs (0: unknown)
	Samples   []Sample
	// GraphOptimization is the runtime's graph optimization level the
	// profile records ("" if it records none; bench/ort/profile.mjs writes
	// "disabled").
	GraphOptimization string
}

// RunsEveryNode reports whether the measured runtime executed the model's
// own nodes without folding any (an ONNX Runtime profile taken with graph
// optimizations disabled, or one that does not say: with optimizations on,
// fused node names would not match the model anyway).
func (p *Profile) RunsEveryNode() bool {
	return p.Format == ORT && (p.GraphOptimization == "" || p.GraphOptimization == "disabled")
}

// ortEvent is one Chrome-trace event as ORT writes it.
type ortEvent struct {
	Cat  string          `json:"cat"`
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Args json.RawMessage `json:"args"`
}

type ortArgs struct {
	OpName     string                       `json:"op_name"`
	InputShape []map[string]json.RawMessage `json:"input_type_shape"`
	// metadata (bench/ort/profile.mjs)
	Model             string       `json:"model"`
	ModelPath         string       `json:"model_path"`
	Inputs            []GraphInput `json:"inputs"`
	GraphOptimization string       `json:"graph_optimization"`
}

// decodeEvents reads a Chrome trace: a JSON array of events or an object
// with a traceEvents array.
func decodeEvents(src string, data []byte) ([]json.RawMessage, error) {
	data = bytes.TrimSpace(data)
	var raw []json.RawMessage
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("%s: not a Chrome-trace JSON array: %v", src, err)
		}
	case len(data) > 0 && data[0] == '{':
		var obj struct {
			TraceEvents []json.RawMessage `json:"traceEvents"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("%s: not Chrome-trace JSON: %v", src, err)
		}
		raw = obj.TraceEvents
	default:
		return nil, fmt.Errorf("%s: not Chrome-trace JSON (want an array of events or {\"traceEvents\": [...]})", src)
	}
	if len(raw) > maxEvents {
		return nil, fmt.Errorf("%s: %d events, more than the %d allowed", src, len(raw), maxEvents)
	}
	return raw, nil
}

// ParseORT reads an ONNX Runtime profile (the JSON file written with
// profiling enabled, or bench/ort/profile.mjs's reduced form). src names the
// file in messages.
func ParseORT(src string, data []byte) (*Profile, error) {
	raw, err := decodeEvents(src, data)
	if err != nil {
		return nil, err
	}
	p := &Profile{Source: src, Format: ORT}
	type acc struct {
		first int
		s     Sample
		durs  []float64
	}
	nodes := map[string]*acc{}
	var runs []float64
	for i, r := range raw {
		var e ortEvent
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, fmt.Errorf("%s: event %d: %v", src, i, err)
		}
		if !(e.Dur >= 0) || math.IsInf(e.Dur, 0) {
			return nil, fmt.Errorf("%s: event %d (%s): bad duration %v", src, i, e.Name, e.Dur)
		}
		switch {
		case e.Cat == "wolong" && e.Name == "wolong_profile":
			var a ortArgs
			if err := json.Unmarshal(e.Args, &a); err != nil {
				return nil, fmt.Errorf("%s: wolong_profile metadata: %v", src, err)
			}
			p.Model, p.ModelPath, p.Inputs, p.GraphOptimization = a.Model, a.ModelPath, a.Inputs, a.GraphOptimization
		case e.Cat == "Session" && e.Name == "model_run":
			runs = append(runs, e.Dur)
		case e.Cat == "Node" && strings.HasSuffix(e.Name, "_kernel_time"):
			name := strings.TrimSuffix(e.Name, "_kernel_time")
			a := nodes[name]
			if a == nil {
				var args ortArgs
				if len(e.Args) > 0 {
					if err := json.Unmarshal(e.Args, &args); err != nil {
						return nil, fmt.Errorf("%s: node %q: args: %v", src, name, err)
					}
				}
				if args.OpName == "" {
					return nil, fmt.Errorf("%s: node %q: no args.op_name (not an ONNX Runtime node event)", src, name)
				}
				s := Sample{Name: name, Op: args.OpName}
				for j, m := range args.InputShape {
					in, err := ortShape(m)
					if err != nil {
						return nil, fmt.Errorf("%s: node %q input %d: %v", src, name, j, err)
					}
					s.Inputs = append(s.Inputs, in)
					if s.DType == ir.Undefined && in.DType.IsFloat() {
						s.DType = in.DType
					}
				}
				if s.DType == ir.Undefined && len(s.Inputs) > 0 {
					s.DType = s.Inputs[0].DType
				}
				a = &acc{first: len(nodes), s: s}
				nodes[name] = a
			}
			a.durs = append(a.durs, e.Dur)
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%s: no ONNX Runtime node events (\"<node>_kernel_time\", cat \"Node\"): is profiling on, and is this an ORT profile?", src)
	}
	if len(nodes) > maxSamples {
		return nil, fmt.Errorf("%s: more than %d nodes", src, maxSamples)
	}
	list := make([]*acc, 0, len(nodes))
	for _, a := range nodes {
		list = append(list, a)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].first < list[j].first })
	for _, a := range list {
		a.s.Us = Median(a.durs)
		a.s.Runs = len(a.durs)
		p.Samples = append(p.Samples, a.s)
	}
	if len(runs) > 0 {
		p.RunUs = Median(runs)
	}
	return p, nil
}

// ortShape reads one input_type_shape entry: {"float": [1, 3, 224, 224]}.
func ortShape(m map[string]json.RawMessage) (Input, error) {
	if len(m) != 1 {
		return Input{}, fmt.Errorf("want one {type: dims} entry, got %d", len(m))
	}
	for k, v := range m {
		dt, ok := ortDType(k)
		if !ok {
			return Input{}, fmt.Errorf("unknown element type %q", k)
		}
		var dims []int64
		if err := json.Unmarshal(v, &dims); err != nil {
			return Input{}, fmt.Errorf("dims: %v", err)
		}
		if err := checkDims(dims); err != nil {
			return Input{}, err
		}
		return Input{DType: dt, Dims: dims}, nil
	}
	return Input{}, nil
}

func ortDType(s string) (ir.DType, bool) {
	switch s {
	case "float":
		return ir.Float32, true
	case "double":
		return ir.Float64, true
	case "MLFloat16", "float16":
		return ir.Float16, true
	case "BFloat16", "bfloat16":
		return ir.BFloat16, true
	case "std::string", "string":
		return ir.String, true
	}
	return ir.ParseDType(s)
}

func checkDims(dims []int64) error {
	if len(dims) > maxRank {
		return fmt.Errorf("rank %d exceeds %d", len(dims), maxRank)
	}
	for _, d := range dims {
		if d < 0 || d > 1<<40 {
			return fmt.Errorf("bad dim %d in %v", d, dims)
		}
	}
	return nil
}
