package calibrate

// This file pairs a model's nodes with the rows of a measured-op table
// and says what a runtime's profile reports as one node's time.

import (
	"fmt"
	"math"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// MatchTable gives every kernel-launching main-graph node of m its row of
// the table p (microseconds): by name when rows carry names, else by
// signature (Key). A node without a row is an error naming the first few
// (the table was measured on another model).
func MatchTable(m *ir.Model, p *Profile) (map[*ir.Node]float64, error) {
	measured := map[*ir.Node]float64{}
	byName, byKey := map[string]float64{}, map[string]float64{}
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Name != "" {
			byName[s.Name] = s.Us
		}
		byKey[Key(s)] = s.Us
	}
	ops, _ := DistinctOps(m.Graph)
	need := map[string]bool{}
	for _, o := range ops {
		for _, n := range o.Nodes {
			need[n] = true
		}
	}
	var missing []string
	for _, n := range m.Graph.Nodes {
		if us, ok := byName[n.Name]; ok && n.Name != "" {
			measured[n] = us
			continue
		}
		s, ok := NodeSample(n)
		if !ok {
			continue
		}
		if us, ok := byKey[Key(&s)]; ok {
			measured[n] = us
			continue
		}
		if need[ir.NodeLabel(n)] {
			missing = append(missing, fmt.Sprintf("%s (%s %s)", ir.NodeLabel(n), n.Op, FormatInputs(s.Inputs, s.DType)))
		}
	}
	if len(measured) == 0 || len(missing) > 0 {
		list := missing
		if len(list) > 5 {
			list = append(list[:5:5], fmt.Sprintf("and %d more", len(missing)-5))
		}
		return nil, fmt.Errorf("%s does not match the model: no row for %d node(s): %s", p.Source, len(missing), strings.Join(list, ", "))
	}
	return measured, nil
}

// NodeTimeS is the predicted time a runtime's profile reports for one
// node: its kernels' device time; for control flow (If, Loop, Scan), whose
// measured time contains the execution of its bodies, the bodies' host
// time (dispatch of each body node) too, but not the node's own dispatch.
func NodeTimeS(e cost.Estimate, h *hw.Hardware) float64 {
	if e.Class != cost.Control {
		return e.DeviceS
	}
	return e.DeviceS + math.Max(0, e.HostS-h.DispatchUs*1e-6)
}
