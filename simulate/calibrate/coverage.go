package calibrate

// This file says what a set of measured runs cannot fit: the op classes and
// host costs no run exercises keep the base file's values, and a fit to a
// few models' profiles predicts other families from them
// (docs/calibration-protocol.md: fitted on one fold of the shared models'
// families, calibrate --ort-profile is 22.0% off on the other).

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
)

// minClassRuns is how many runs an op class needs before its speeds are
// more than those runs' noise.
const minClassRuns = 3

// minCoverageRuns is how many runs a direct fit of the host costs needs
// before its figures can hold on other models: a few per host cost.
const minCoverageRuns = 3 * 8

// Coverage lists what runs leave unfitted, one sentence each, and a
// closing pointer to calibrate --host when anything is: op classes no run
// executes, host costs no run exercises (control-flow bodies, views,
// several graph inputs), and too few runs for the host costs at all.
func Coverage(runs []DirectRun) []string {
	classRuns := map[cost.Class]int{}
	var control, views, shapes, inputs bool
	nin := map[int]bool{}
	for _, r := range runs {
		nin[len(r.Model.Graph.Inputs)] = true
		seen := map[cost.Class]bool{}
		walkNodes(r.Model.Graph, func(n *ir.Node) {
			c := cost.ClassOf(n.Domain, n.Op)
			switch c {
			case cost.Control:
				control = true
			case cost.Free:
				views = true
				shapes = shapes || n.Domain == "" && (n.Op == "Shape" || n.Op == "Size")
			default:
				if !n.Is(ir.OpConstant) {
					seen[c] = true
				}
			}
		})
		for c := range seen {
			classRuns[c]++
		}
	}
	inputs = len(nin) > 1
	var out []string
	var missing, few []string
	for _, c := range []cost.Class{cost.MatMul, cost.Conv, cost.Depthwise, cost.Attention, cost.RNN, cost.Elementwise, cost.Reduction, cost.Normalization, cost.DataMovement} {
		switch n := classRuns[c]; {
		case n == 0:
			missing = append(missing, string(c))
		case n < minClassRuns:
			few = append(few, fmt.Sprintf("%s (%d)", c, n))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		out = append(out, fmt.Sprintf("no run executes an op of class %s: their ops keep the base file's costs", strings.Join(missing, ", ")))
	}
	if len(few) > 0 {
		out = append(out, fmt.Sprintf("op classes measured in fewer than %d runs: %s: their speeds follow those runs (and their noise), not the class", minClassRuns, strings.Join(few, ", ")))
	}
	if views && !shapes {
		out = append(out, "no run has a Shape or Size node: shape_node_us keeps the base file's value")
	}
	if p, n := profilerCost(runs); n > 0 {
		out = append(out, p)
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
		out = append(out, fmt.Sprintf("%d runs for %d host costs and every op's speeds: the fit follows these models and predicts other families poorly (fitted on one half of the shared models' families, validated on the other: 22.0%% MAPE, worst 2.3x; TestHeldOutCalibration)", len(runs), len(directHost)))
	}
	if len(out) > 0 {
		out = append(out, "profiles only share a run's time among its kernels and cannot isolate the per-run and per-node host costs; for a fit of every term on this machine (generated models that isolate each, measured to a 3% interval) use wolong calibrate --host")
	}
	return out
}

// profilerCost says what ONNX Runtime's profiler cost the runs that give
// both a profiled and an unprofiled median: per node, and how many
// profiled kernels are shorter than twice that (their share of a run is
// mostly the profiler's). n is how many runs said.
func profilerCost(runs []DirectRun) (string, int) {
	var per []float64
	var short, kernels int
	for _, r := range runs {
		if r.ProfiledUs <= 0 || len(r.Split) == 0 {
			continue
		}
		per = append(per, math.Max(0, r.ProfiledUs-r.Us)/float64(len(r.Split)))
	}
	if len(per) == 0 {
		return "", 0
	}
	p := Median(per)
	for _, r := range runs {
		if r.ProfiledUs <= 0 {
			continue
		}
		for _, us := range r.Split {
			kernels++
			if us < 2*p {
				short++
			}
		}
	}
	return fmt.Sprintf("ONNX Runtime's profiler cost %.1f us per node in these runs (profiled minus unprofiled median, per profiled node; the median of %d runs): %d of %d profiled kernels take less than twice that, and their share of a run is mostly the profiler's", p, len(per), short, kernels), len(per)
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
