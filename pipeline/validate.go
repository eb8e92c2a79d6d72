package pipeline

// This file compares predictions with measurements: per node, and end to
// end for a model as a latency record measured it.

import (
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// NodeTime is one measured node's predicted and measured time.
type NodeTime struct {
	Node       *ir.Node
	Op         string
	PredictedS float64 // what the runtime's profile would report (calibrate.NodeTimeS)
	MeasuredUs float64 // as measured
}

// CompareNodes pairs every simulated node that has a measurement
// (microseconds, by node of s's model) with its predicted time, in
// schedule order.
func CompareNodes(s *Simulated, measuredUs map[*ir.Node]float64) []NodeTime {
	var out []NodeTime
	for _, t := range s.Tasks {
		if t.Node == nil {
			continue
		}
		us, ok := measuredUs[t.Node]
		if !ok {
			continue
		}
		out = append(out, NodeTime{Node: t.Node, Op: t.Op(), PredictedS: calibrate.NodeTimeS(*t.Est, s.Hardware), MeasuredUs: us})
	}
	return out
}

// RecordedInputs are the input shapes a measurement file recorded, as
// shapes given to Load, less those of inputs the caller gave itself (by
// name; shapes other files recorded do not count).
func RecordedInputs(inputs []calibrate.GraphInput, file string, given []GivenInput) []GivenInput {
	have := map[string]bool{}
	for _, g := range given {
		if g.RecordedBy == "" {
			have[g.Name] = true
		}
	}
	var out []GivenInput
	for _, in := range inputs {
		if have[in.Name] {
			continue
		}
		dims := make([]ir.Dim, len(in.Shape))
		for i, d := range in.Shape {
			dims[i] = ir.D(d)
		}
		out = append(out, GivenInput{Name: in.Name, Shape: ir.DimsShape(dims...), Text: in.Name + "=" + ShapeText(in.Shape), RecordedBy: file})
	}
	return out
}

// PredictLatency predicts the end-to-end time (seconds) of the model at
// path as lat measured it: with lat's input shapes (besides those opt
// gives), its small integer inputs at the values the harness fed them,
// symbolic dims left open set to 1, one stream, and no load-time folding
// when the runtime ran every node.
func PredictLatency(path string, opt LoadOptions, h *hw.Hardware, lat *calibrate.Latency) (float64, error) {
	opt.Inputs = append(append([]GivenInput{}, opt.Inputs...), RecordedInputs(lat.Inputs, lat.Source, opt.Inputs)...)
	l, err := Load(path, opt)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	f, err := Infer(l, InferOptions{DefaultDims: true, Values: lat.InputValues()})
	if err != nil {
		return 0, err
	}
	s, err := Simulate(f, SimOptions{HW: h, Streams: 1, Cost: cost.Options{NoFold: lat.RunsEveryNode()}})
	if err != nil {
		return 0, err
	}
	return s.TotalS, nil
}
