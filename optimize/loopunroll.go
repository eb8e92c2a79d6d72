package optimize

// This file implements the unrolling of short Loops whose trip count is
// known when the model is compiled.

import (
	"fmt"
	"strconv"

	"github.com/wolong-dev/wolong/ir"
)

const (
	// maxUnrollTrip is the longest Loop unrolled: a short loop (a fixed
	// number of refinement steps, a recurrence over a few frames), where
	// the per-iteration overhead of the control-flow op weighs most.
	maxUnrollTrip = 16
	// maxUnrollNodes caps the nodes the copies of one body add.
	maxUnrollNodes = 256
)

// loopUnroll replaces a Loop whose trip count is a constant T (1 <= T <=
// maxUnrollTrip) and that cannot exit early (no condition input, or a
// constant true one, and a body whose condition output is its condition
// input or a constant true) by T copies of its body in the enclosing
// graph: copy t reads the iteration number t as a constant and the
// carried values copy t-1 computed (the Loop's initial values for t = 0);
// each scan output becomes the Concat of its T per-iteration values,
// each Unsqueezed on a new axis 0. The copies are then fused and batched
// like any straight-line code (tbatch batches the per-step projections of
// an unrolled recurrence, the persistent pass keeps its recurrent weight
// on chip). A Scan (opset 9 and later) whose scan inputs have a static
// length T along their scan axes (1 <= T <= maxUnrollTrip) and that runs
// forward is unrolled the same way, copy t reading slice t of each scan
// input (a Gather of index t along its axis). Bodies holding subgraphs are
// left alone, and so are loops whose copies would exceed maxUnrollNodes
// nodes.
//
// Unrolling removes the per-iteration cost of running a subgraph (and
// lets the copies fuse across iterations) and adds the stacking of scan
// outputs (views, and one Concat per scan output). With a Predictor the
// pass unrolls a loop its limits admit only when a trial of the passes
// that follow predicts the unrolled model faster than the rolled one
// (unrolltrial.go); without one, every loop its limits admit.
func loopUnroll(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	var rw []Rewrite
	trials := 0
	for _, n := range nodesInOrder(g) {
		var added []string
		if sc, ok := scanUnrollable(c, n); ok {
			pays, why := unrollTrial(c, n, &trials, func(tc *Context, g *ir.Graph, n *ir.Node) { unrollScan(tc, g, n, sc) })
			if !pays {
				continue
			}
			added = unrollScan(c, g, n, sc)
			rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, After: added,
				Remark: fmt.Sprintf("static scan length %d: body unrolled (%d nodes)%s", sc.trip, len(added), why)})
			continue
		}
		trip, ok := unrollable(c, n)
		if !ok {
			continue
		}
		pays, why := unrollTrial(c, n, &trials, func(tc *Context, g *ir.Graph, n *ir.Node) { unrollLoop(tc, g, n, trip) })
		if !pays {
			continue
		}
		added = unrollLoop(c, g, n, trip)
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, After: added,
			Remark: fmt.Sprintf("constant trip count %d: body unrolled (%d nodes)%s", trip, len(added), why)})
	}
	if trials > 0 && len(rw) == 0 {
		predictOn(c, c.Model) // leave the predictor on the model as it is (trial.go)
	}
	sweepNodes(g)
	return rw, nil
}

// unrollable returns the trip count of Loop n when loopUnroll applies.
func unrollable(c *Context, n *ir.Node) (int, bool) {
	body := n.AttrGraph("body")
	if !n.Is(ir.OpLoop) || body == nil || len(n.Inputs) < 2 || len(body.Inputs) != len(n.Inputs) || pinsOutput(c, n) {
		return 0, false
	}
	trip, ok := constCondInt(n.Input(0))
	if !ok || trip < 1 || trip > maxUnrollTrip || trip*int64(len(body.Nodes)) > maxUnrollNodes {
		return 0, false
	}
	if v := n.Input(1); v != nil {
		if t, ok := constCond(v); !ok || !t {
			return 0, false
		}
	}
	if len(body.Outputs) != len(n.Outputs)+1 || len(body.Outputs) < len(body.Inputs)-1 {
		return 0, false
	}
	co := body.Outputs[0]
	switch {
	case co == body.Inputs[1]:
	case co.Producer != nil && co.Producer.Graph == body && co.Producer.Is(ir.OpIdentity) && co.Producer.Input(0) == body.Inputs[1]:
	default:
		if t, ok := constCond(co); !ok || !t {
			return 0, false
		}
	}
	for _, m := range body.Nodes {
		if hasSubgraph(m) || !isDefault(m) {
			return 0, false
		}
	}
	return int(trip), true
}

// unrollLoop replaces Loop n of g by trip copies of its body and returns
// the names of the nodes it added.
func unrollLoop(c *Context, g *ir.Graph, n *ir.Node, trip int) []string {
	body := n.AttrGraph("body")
	for _, v := range append([]*ir.Value(nil), body.Initializers...) {
		moveInitializer(v, g)
	}
	carried := len(body.Inputs) - 2
	state := append([]*ir.Value(nil), n.Inputs[2:]...)
	scans := make([][]*ir.Value, len(body.Outputs)-1-carried)
	var added []string
	tru := g.AddInitializer(&ir.Tensor{Name: c.newName("unroll_true"), DType: ir.Bool, Dims: []int64{}, Raw: []byte{1}})
	for t := 0; t < trip; t++ {
		it := g.AddInitializer(&ir.Tensor{Name: c.newName("unroll_iter"), DType: ir.Int64, Dims: []int64{}, Raw: i64Tensor("", []int64{int64(t)}).Raw})
		env := map[*ir.Value]*ir.Value{body.Inputs[0]: it, body.Inputs[1]: tru}
		for i := 0; i < carried; i++ {
			env[body.Inputs[2+i]] = state[i]
		}
		val, names := copyBody(c, g, body, env, t)
		added = append(added, names...)
		for i := 0; i < carried; i++ {
			state[i] = val(body.Outputs[1+i])
		}
		for k := range scans {
			scans[k] = append(scans[k], val(body.Outputs[1+carried+k]))
		}
	}
	outs := append([]*ir.Value(nil), n.Outputs...)
	dropBodyUses(n)
	removeNode(g, n)
	for i := 0; i < carried; i++ {
		if id := c.replaceOutput(g, outs[i], state[i], "unroll_identity"); id != "" {
			added = append(added, id)
		}
	}
	for k, vs := range scans {
		if outs[carried+k] == nil {
			continue
		}
		st, names := stack(c, g, vs, 0, outs[carried+k].Type)
		added = append(added, names...)
		c.replaceOutput(g, outs[carried+k], st, "unroll_identity")
	}
	return added
}

// copyBody appends to g a copy of body's nodes reading env's values for
// body values (the body's inputs, given) and outer values as they are;
// copy t's names say the iteration. It returns the mapping of body values
// to their copies and the names of the nodes added.
func copyBody(c *Context, g *ir.Graph, body *ir.Graph, env map[*ir.Value]*ir.Value, t int) (func(*ir.Value) *ir.Value, []string) {
	val := func(v *ir.Value) *ir.Value {
		if w, ok := env[v]; ok {
			return w
		}
		return v // an outer value (or omitted)
	}
	var added []string
	for _, m := range body.Nodes {
		ins := make([]*ir.Value, len(m.Inputs))
		for i, v := range m.Inputs {
			ins[i] = val(v)
		}
		// names concatenated, not fmt.Sprintf: a name per copied node
		// and per output (a model of many small loops copies ~10^5)
		name := c.newName(ir.NodeLabel(m) + "_iter" + strconv.Itoa(t))
		outs := make([]string, len(m.Outputs))
		for i, o := range m.Outputs {
			if o != nil {
				outs[i] = name + "_out" + strconv.Itoa(i)
			}
		}
		cp := g.AddNode(m.Op, m.Domain, name, ins, outs, m.Attrs...)
		for i, o := range m.Outputs {
			if o != nil {
				cp.Outputs[i].Type = o.Type
				env[o] = cp.Outputs[i]
			}
		}
		added = append(added, name)
	}
	return val, added
}

// stack returns Concat(Unsqueeze(v, axis) for v in vs) along axis, of
// type t, and the names of the nodes it added.
func stack(c *Context, g *ir.Graph, vs []*ir.Value, axis int64, t ir.Type) (*ir.Value, []string) {
	var axes *ir.Value
	var attrs []*ir.Attr
	if c.Model.Opset("") >= 13 {
		axes = g.AddInitializer(i64Tensor(c.newName("unroll_axes"), []int64{axis}))
	} else {
		attrs = []*ir.Attr{{Name: "axes", Type: ir.AttrInts, Ints: []int64{axis}}}
	}
	var names []string
	parts := make([]*ir.Value, len(vs))
	for i, v := range vs {
		name := c.newName("unroll_unsqueeze")
		ins := []*ir.Value{v}
		if axes != nil {
			ins = append(ins, axes)
		}
		u := g.AddNode("Unsqueeze", "", name, ins, []string{name + "_out"}, attrs...)
		u.Outputs[0].Type = unsqueezed(v.Type, axis)
		parts[i] = u.Outputs[0]
		names = append(names, name)
	}
	if len(parts) == 1 {
		return parts[0], names // one iteration: nothing to concatenate
	}
	name := c.newName("unroll_concat")
	cat := g.AddNode("Concat", "", name, parts, []string{name + "_out"}, &ir.Attr{Name: "axis", Type: ir.AttrInt, I: axis})
	cat.Outputs[0].Type = t
	return cat.Outputs[0], append(names, name)
}

// unsqueezed is t with a new dim of 1 at axis (0 <= axis <= rank).
func unsqueezed(t ir.Type, axis int64) ir.Type {
	u := t.Clone()
	if u.IsTensor() && u.Shape.Known && axis <= int64(len(u.Shape.Dims)) {
		u.Shape.Dims = append(append(append([]ir.Dim(nil), u.Shape.Dims[:axis]...), ir.D(1)), u.Shape.Dims[axis:]...)
	}
	return u
}

// scanPlan is what unrolling a Scan needs: its scan length, and the axes
// of its scan inputs and outputs (normalized to non-negative).
type scanPlan struct {
	trip             int
	inAxes, outAxes  []int64
	nState, nScanIns int
}

// scanUnrollable returns the plan for unrolling Scan n when loopUnroll
// applies to it.
func scanUnrollable(c *Context, n *ir.Node) (scanPlan, bool) {
	body := n.AttrGraph("body")
	if !n.Is(ir.OpScan) || body == nil || c.Model.Opset("") < 9 || pinsOutput(c, n) {
		return scanPlan{}, false
	}
	m := int(n.AttrInt("num_scan_inputs", 0))
	p := scanPlan{nScanIns: m, nState: len(n.Inputs) - m}
	if m <= 0 || p.nState < 0 || len(body.Inputs) != len(n.Inputs) || len(body.Outputs) != len(n.Outputs) {
		return scanPlan{}, false
	}
	for _, d := range []string{"scan_input_directions", "scan_output_directions"} {
		if ds, ok := n.AttrInts(d); ok {
			for _, x := range ds {
				if x != 0 {
					return scanPlan{}, false // reverse scans not unrolled
				}
			}
		}
	}
	axes := func(attr string, k int, rank func(i int) int) ([]int64, bool) {
		as, _ := n.AttrInts(attr)
		out := make([]int64, k)
		for i := range out {
			if i < len(as) {
				out[i] = as[i]
			}
			if out[i] < 0 {
				r := rank(i)
				if r < 0 {
					return nil, false
				}
				out[i] += int64(r)
			}
		}
		return out, true
	}
	var ok bool
	if p.inAxes, ok = axes("scan_input_axes", m, func(i int) int { return rankOf(n.Inputs[p.nState+i]) }); !ok {
		return scanPlan{}, false
	}
	k := len(n.Outputs) - p.nState
	if p.outAxes, ok = axes("scan_output_axes", k, func(i int) int { return rankOf(n.Outputs[p.nState+i]) }); !ok {
		return scanPlan{}, false
	}
	p.trip = -1
	for i := 0; i < m; i++ {
		dims, ok := staticDims(n.Inputs[p.nState+i])
		if !ok || p.inAxes[i] >= int64(len(dims)) || (p.trip >= 0 && dims[p.inAxes[i]] != int64(p.trip)) {
			return scanPlan{}, false
		}
		p.trip = int(dims[p.inAxes[i]])
	}
	if p.trip < 1 || p.trip > maxUnrollTrip || p.trip*len(body.Nodes) > maxUnrollNodes {
		return scanPlan{}, false
	}
	for _, b := range body.Nodes {
		if hasSubgraph(b) || !isDefault(b) {
			return scanPlan{}, false
		}
	}
	return p, true
}

// rankOf is v's rank, or -1 when unknown.
func rankOf(v *ir.Value) int {
	if v == nil || !v.Type.IsTensor() || !v.Type.Shape.Known {
		return -1
	}
	return len(v.Type.Shape.Dims)
}

// unrollScan replaces Scan n of g by p.trip copies of its body and
// returns the names of the nodes it added.
func unrollScan(c *Context, g *ir.Graph, n *ir.Node, p scanPlan) []string {
	body := n.AttrGraph("body")
	for _, v := range append([]*ir.Value(nil), body.Initializers...) {
		moveInitializer(v, g)
	}
	state := append([]*ir.Value(nil), n.Inputs[:p.nState]...)
	scans := make([][]*ir.Value, len(n.Outputs)-p.nState)
	var added []string
	for t := 0; t < p.trip; t++ {
		it := g.AddInitializer(&ir.Tensor{Name: c.newName("unroll_iter"), DType: ir.Int64, Dims: []int64{}, Raw: i64Tensor("", []int64{int64(t)}).Raw})
		env := map[*ir.Value]*ir.Value{}
		for i := 0; i < p.nState; i++ {
			env[body.Inputs[i]] = state[i]
		}
		for j := 0; j < p.nScanIns; j++ {
			name := c.newName("unroll_slice")
			sl := g.AddNode("Gather", "", name, []*ir.Value{n.Inputs[p.nState+j], it}, []string{name + "_out"},
				&ir.Attr{Name: "axis", Type: ir.AttrInt, I: p.inAxes[j]})
			sl.Outputs[0].Type = body.Inputs[p.nState+j].Type
			env[body.Inputs[p.nState+j]] = sl.Outputs[0]
			added = append(added, name)
		}
		val, names := copyBody(c, g, body, env, t)
		added = append(added, names...)
		for i := 0; i < p.nState; i++ {
			state[i] = val(body.Outputs[i])
		}
		for k := range scans {
			scans[k] = append(scans[k], val(body.Outputs[p.nState+k]))
		}
	}
	outs := append([]*ir.Value(nil), n.Outputs...)
	dropBodyUses(n)
	removeNode(g, n)
	for i := 0; i < p.nState; i++ {
		if id := c.replaceOutput(g, outs[i], state[i], "unroll_identity"); id != "" {
			added = append(added, id)
		}
	}
	for k, vs := range scans {
		y := outs[p.nState+k]
		if y == nil {
			continue
		}
		st, names := stack(c, g, vs, p.outAxes[k], y.Type)
		added = append(added, names...)
		c.replaceOutput(g, y, st, "unroll_identity")
	}
	return added
}
