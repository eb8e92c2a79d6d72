package cost

// This file implements the cost of control flow: Loop, Scan and If run
// their bodies, each body node a kernel of its own.

import (
	"fmt"
	"math"
	"strconv"

	"github.com/wolong-dev/wolong/ir"
)

func registerControl() {
	Register("", loopCost, "Loop")
	Register("", scanCost, "Scan")
	Register("", ifCost, "If")
}

// maxStaticTrip bounds a trip count read from the model; larger values
// (INT64_MAX is the usual "while" marker) count as not static.
const maxStaticTrip = 1 << 30

// Loop(M?, cond?, v_initial...) runs body up to M times.
func loopCost(c *Ctx) (Cost, error) {
	body := c.Node.AttrGraph("body")
	if body == nil {
		return Cost{}, fmt.Errorf("Loop has no body")
	}
	trip := float64(c.m.Opt.Trip)
	note := fmt.Sprintf("Loop %s: trip count not static, assumed %d%s", ir.NodeLabel(c.Node), c.m.Opt.Trip, hint(c.m.Opt.Settings.Trip))
	if v := c.Input(0); v != nil {
		if t, ok := staticInt(v); ok && t >= 0 && t < maxStaticTrip {
			trip = float64(t)
			note = fmt.Sprintf("Loop %s: trip count %d from the model (an upper bound if cond exits early)", ir.NodeLabel(c.Node), t)
		}
	}
	c.m.note(note)
	e := c.m.sumBody(body, trip)
	e.HostS += c.m.subgraphS(trip)
	e.Note = note
	c.composite = e
	return Cost{Class: Control}, nil
}

// Scan runs body once per slice of its scan inputs along their scan axes.
func scanCost(c *Ctx) (Cost, error) {
	body := c.Node.AttrGraph("body")
	if body == nil {
		return Cost{}, fmt.Errorf("Scan has no body")
	}
	nScan := int(c.Node.AttrInt("num_scan_inputs", 0))
	if nScan <= 0 || nScan > len(c.Node.Inputs) {
		return Cost{}, fmt.Errorf("Scan: num_scan_inputs %d out of range", nScan)
	}
	first := len(c.Node.Inputs) - nScan
	axis := int64(0)
	opset := int64(0)
	if c.m.IR != nil {
		opset = c.m.IR.Opset("")
	}
	if opset == 8 {
		axis = 1 // opset 8: [batch, sequence, ...]
	} else if axes, ok := c.Node.AttrInts("scan_input_axes"); ok && len(axes) > 0 {
		axis = axes[0]
	}
	d, err := c.InDims(first)
	if err != nil {
		return Cost{}, fmt.Errorf("Scan trip count: %v", err)
	}
	if axis < 0 {
		axis += int64(len(d))
	}
	if axis < 0 || axis >= int64(len(d)) {
		return Cost{}, fmt.Errorf("Scan: scan axis %d out of range for rank %d", axis, len(d))
	}
	trip := float64(d[axis])
	if opset == 8 && len(d) > 0 {
		trip *= float64(d[0]) // the body runs per batch entry too
	}
	e := c.m.sumBody(body, trip)
	e.HostS += c.m.subgraphS(trip)
	e.Note = fmt.Sprintf("Scan %s: %g iterations from its scan input", ir.NodeLabel(c.Node), trip)
	c.composite = e
	return Cost{Class: Control}, nil
}

// If runs one branch: the one a constant condition selects, else (the
// inputs decide it) the mean of the two or, with BranchMax, the costlier
// one; the note gives both branches' times either way.
func ifCost(c *Ctx) (Cost, error) {
	thenG, elseG := c.Node.AttrGraph("then_branch"), c.Node.AttrGraph("else_branch")
	if thenG == nil || elseG == nil {
		return Cost{}, fmt.Errorf("If lacks a branch")
	}
	if v := c.Input(0); v != nil {
		if t, ok := staticInt(v); ok {
			g, which := elseG, "else"
			if t != 0 {
				g, which = thenG, "then"
			}
			e := c.m.sumBody(g, 1)
			e.HostS += c.m.subgraphS(1)
			e.Note = fmt.Sprintf("If %s: constant condition selects the %s branch", ir.NodeLabel(c.Node), which)
			c.composite = e
			return Cost{Class: Control}, nil
		}
	}
	te, ee := c.m.sumBody(thenG, 1), c.m.sumBody(elseG, 1)
	// concatenation, not Sprintf: this runs for every If in every
	// prediction (thousands a prediction on large control-flow graphs)
	both := "then " + usText(te.DeviceS+te.HostS) + ", else " + usText(ee.DeviceS+ee.HostS)
	// the range a run can take: the cheaper branch at its own low end,
	// the costlier at its high end (nested Ifs add theirs)
	lo := math.Min(te.DeviceS+te.HostS-te.BranchLessS, ee.DeviceS+ee.HostS-ee.BranchLessS)
	hi := math.Max(te.DeviceS+te.HostS+te.BranchMoreS, ee.DeviceS+ee.HostS+ee.BranchMoreS)
	var e Estimate
	pass, gate := gateBranch(c.Node, thenG, elseG)
	switch {
	case gate && c.m.Opt.Branch != BranchMean && c.m.Opt.Branch != BranchMax:
		e = ee
		which := "else"
		if pass == thenG {
			e, which = te, "then"
		}
		e.Note = "If " + ir.NodeLabel(c.Node) + ": a gate (its condition computed from tensor values, its " + which + " branch passes values through), costed the pass-through branch (" + both + ")"
		c.m.note("If nodes that gate a second stage (condition from tensor values, one branch passing values through) are costed by their pass-through branch, which most runs take" + hint(c.m.Opt.Settings.Branch))
	case c.m.Opt.Branch == BranchMax:
		e = te
		which := "then"
		if ee.DeviceS+ee.HostS > te.DeviceS+te.HostS {
			e, which = ee, "else"
		}
		e.Note = "If " + ir.NodeLabel(c.Node) + ": condition not static, costed the costlier (" + which + ") branch (" + both + ")"
		c.m.note("If nodes whose inputs decide the branch are costed by their costlier branch" + hint(c.m.Opt.Settings.Branch))
	default:
		e = meanEstimate(te, ee)
		e.Note = "If " + ir.NodeLabel(c.Node) + ": condition not static, costed the mean of its branches (" + both + ")"
		c.m.note("If nodes whose inputs decide the branch are costed as the mean of their two branches (a run takes one)" + hint(c.m.Opt.Settings.Branch))
	}
	e.BranchLessS = math.Max(0, e.DeviceS+e.HostS-lo)
	e.BranchMoreS = math.Max(0, hi-e.DeviceS-e.HostS)
	e.HostS += c.m.subgraphS(1)
	c.composite = e
	return Cost{Class: Control}, nil
}

// gateBranch returns the pass-through branch of an If that is a gate
// (BranchAuto): its condition is computed in the graph (not a graph
// input or initializer the caller sets) from tensor values, with no
// Shape or Size among the nodes it depends on within maxGateDepth
// producers (a shape guard's common branch is the one that computes),
// and exactly one branch holds only Identity nodes (or none).
func gateBranch(n *ir.Node, thenG, elseG *ir.Graph) (*ir.Graph, bool) {
	passes := func(g *ir.Graph) bool {
		for _, b := range g.Nodes {
			if !b.Is(ir.OpIdentity) {
				return false
			}
		}
		return true
	}
	pt, pe := passes(thenG), passes(elseG)
	if pt == pe || len(n.Inputs) == 0 || n.Inputs[0] == nil || n.Inputs[0].Producer == nil {
		return nil, false
	}
	seen := map[*ir.Node]bool{}
	var fromShape func(v *ir.Value, depth int) bool
	fromShape = func(v *ir.Value, depth int) bool {
		p := v.Producer
		if p == nil || seen[p] {
			return false
		}
		if depth > maxGateDepth {
			return true // too far to tell: not taken for a gate
		}
		seen[p] = true
		if p.Is(ir.OpShape) || p.Is(ir.OpSize) {
			return true
		}
		for _, in := range p.Inputs {
			if in != nil && fromShape(in, depth+1) {
				return true
			}
		}
		return false
	}
	if fromShape(n.Inputs[0], 0) {
		return nil, false
	}
	if pt {
		return thenG, true
	}
	return elseG, true
}

// maxGateDepth bounds the walk up an If's condition (gateBranch).
const maxGateDepth = 64

// meanEstimate is the mean of two branches' estimates: work, traffic and
// times halved sums; the bound, dtype and weights of the one that takes
// longer.
func meanEstimate(a, b Estimate) Estimate {
	e := a
	if b.DeviceS+b.HostS > a.DeviceS+a.HostS {
		e = b // bound, dtype and Unknown's reason of the longer branch
	}
	e.Unknown = a.Unknown || b.Unknown
	if e.Why == "" {
		e.Why = a.Why + b.Why
	}
	e.FLOPs = (a.FLOPs + b.FLOPs) / 2
	e.Bytes = (a.Bytes + b.Bytes) / 2
	e.Kernels = (a.Kernels + b.Kernels + 1) / 2
	e.ComputeS = (a.ComputeS + b.ComputeS) / 2
	e.MemoryS = (a.MemoryS + b.MemoryS) / 2
	e.OverheadS = (a.OverheadS + b.OverheadS) / 2
	e.DeviceS = (a.DeviceS + b.DeviceS) / 2
	e.HostS = (a.HostS + b.HostS) / 2
	return e
}

// staticInt returns the single integer value of v (Const or Known).
func staticInt(v *ir.Value) (int64, bool) {
	if len(v.Known()) == 1 && v.Known()[0].IsConcrete() {
		return v.Known()[0].Val, true
	}
	if v.Const != nil && (v.Const.DType.IsInt() || v.Const.DType == ir.Bool) {
		if vals, err := v.Const.Int64Values(1); err == nil && len(vals) == 1 {
			return vals[0], true
		}
	}
	return 0, false
}

// subgraphS is the host time of n executions of a control-flow body (hw
// subgraph_us each).
func (m *Model) subgraphS(n float64) float64 {
	return n * m.HW.SubgraphUs * 1e-6
}

// usText is s seconds in microseconds, three digits.
func usText(s float64) string {
	return strconv.FormatFloat(s*1e6, 'g', 3, 64) + " us"
}
