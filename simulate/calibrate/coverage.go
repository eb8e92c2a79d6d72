package calibrate

// This file says what a set of measured runs cannot fit: the op classes and
// host costs no run exercises keep the base file's values, and a fit to a
// few models' profiles predicts other families from them
// (docs/calibration-protocol.md: fitted on one fold of the shared models'
// families, calibrate --ort-profile is 28.9% off on the other).

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
)

// minCoverageRuns is how many runs a direct fit of the host costs needs
// before its figures can hold on other models: a few per host cost.
const minCoverageRuns = 3 * 8

// Coverage lists what runs leave unfitted, one sentence each, and a
// closing pointer to calibrate --host when anything is: op classes no run
// executes, host costs no run exercises (control-flow bodies, views,
// several graph inputs), and too few runs for the host costs at all.
func Coverage(runs []DirectRun) []string {
	classes := map[cost.Class]int{}
	var control, views, inputs bool
	nin := map[int]bool{}
	for _, r := range runs {
		nin[len(r.Model.Graph.Inputs)] = true
		walkNodes(r.Model.Graph, func(n *ir.Node) {
			c := cost.ClassOf(n.Domain, n.Op)
			switch c {
			case cost.Control:
				control = true
			case cost.Free:
				views = true
			default:
				if !n.Is(ir.OpConstant) {
					classes[c]++
				}
			}
		})
	}
	inputs = len(nin) > 1
	var out []string
	var missing []string
	for _, c := range []cost.Class{cost.MatMul, cost.Conv, cost.Depthwise, cost.Attention, cost.RNN, cost.Elementwise, cost.Reduction, cost.Normalization, cost.DataMovement} {
		if classes[c] == 0 {
			missing = append(missing, string(c))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		out = append(out, fmt.Sprintf("no run executes an op of class %s: their ops keep the base file's costs", strings.Join(missing, ", ")))
	}
	if !control {
		out = append(out, "no run has a control-flow node: subgraph_us (per Loop/Scan iteration or If) is fitted from nothing and drifts")
	}
	if !views {
		out = append(out, "no run has a view or shape node: free_node_us is fitted from nothing and drifts")
	}
	if !inputs {
		out = append(out, "every run binds the same number of graph inputs: input_us cannot be told from run_overhead_us")
	}
	if len(runs) < minCoverageRuns {
		out = append(out, fmt.Sprintf("%d runs for 8 host costs and every op's speeds: the fit follows these models and predicts other families poorly (fitted on one half of the shared models' families, validated on the other: 28.9%% MAPE, worst 5.1x)", len(runs)))
	}
	if len(out) > 0 {
		out = append(out, "profiles only share a run's time among its kernels (ONNX Runtime's profiler adds ~8 us per node); for a fit of every term on this machine use wolong calibrate --host")
	}
	return out
}

// walkNodes calls f on every node of g and of its subgraphs.
func walkNodes(g *ir.Graph, f func(*ir.Node)) {
	for _, n := range g.Nodes {
		f(n)
		for _, a := range n.Attrs {
			if a.G != nil {
				walkNodes(a.G, f)
			}
			for _, sg := range a.Graphs {
				walkNodes(sg, f)
			}
		}
	}
}
