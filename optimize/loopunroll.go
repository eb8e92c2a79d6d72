package optimize

// This file implements the unrolling of short Loops whose trip count is
// known when the model is compiled.

import (
	"fmt"

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
// an unrolled recurrence). Bodies holding subgraphs are left alone, and so
// are loops whose copies would exceed maxUnrollNodes nodes.
//
// Unrolling removes the per-iteration cost of running a subgraph but
// adds the stacking of scan outputs, so the pass is a trial (Pass.Trial):
// the driver keeps what it did only when the cost model predicts the
// model faster after it.
func loopUnroll(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	var rw []Rewrite
	for _, n := range nodesInOrder(g) {
		trip, ok := unrollable(c, n)
		if !ok {
			continue
		}
		added := unrollLoop(c, g, n, trip)
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, After: added,
			Remark: fmt.Sprintf("constant trip count %d: body unrolled (%d nodes)", trip, len(added))})
	}
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
	case co.Producer != nil && co.Producer.Graph == body && is(co.Producer, "Identity") && co.Producer.Input(0) == body.Inputs[1]:
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
		val := func(v *ir.Value) *ir.Value {
			if w, ok := env[v]; ok {
				return w
			}
			return v // an outer value (or omitted)
		}
		for _, m := range body.Nodes {
			ins := make([]*ir.Value, len(m.Inputs))
			for i, v := range m.Inputs {
				ins[i] = val(v)
			}
			name := c.newName(fmt.Sprintf("%s_iter%d", ir.NodeLabel(m), t))
			outs := make([]string, len(m.Outputs))
			for i, o := range m.Outputs {
				if o != nil {
					outs[i] = fmt.Sprintf("%s_out%d", name, i)
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
		for i := 0; i < carried; i++ {
			state[i] = val(body.Outputs[1+i])
		}
		for k := range scans {
			scans[k] = append(scans[k], val(body.Outputs[1+carried+k]))
		}
	}
	outs := append([]*ir.Value(nil), n.Outputs...)
	dropBodyUses(n)
	g.RemoveNode(n)
	for i := 0; i < carried; i++ {
		if id := c.replaceOutput(g, outs[i], state[i], "unroll_identity"); id != "" {
			added = append(added, id)
		}
	}
	for k, vs := range scans {
		if outs[carried+k] == nil {
			continue
		}
		st, names := stack(c, g, vs, outs[carried+k].Type)
		added = append(added, names...)
		c.replaceOutput(g, outs[carried+k], st, "unroll_identity")
	}
	return added
}

// stack returns Concat(Unsqueeze(v, 0) for v in vs) along axis 0, of type
// t, and the names of the nodes it added.
func stack(c *Context, g *ir.Graph, vs []*ir.Value, t ir.Type) (*ir.Value, []string) {
	var axes *ir.Value
	var attrs []*ir.Attr
	if c.Model.Opset("") >= 13 {
		axes = g.AddInitializer(i64Tensor(c.newName("unroll_axes"), []int64{0}))
	} else {
		attrs = []*ir.Attr{{Name: "axes", Type: ir.AttrInts, Ints: []int64{0}}}
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
		u.Outputs[0].Type = unsqueezed(v.Type)
		parts[i] = u.Outputs[0]
		names = append(names, name)
	}
	name := c.newName("unroll_concat")
	cat := g.AddNode("Concat", "", name, parts, []string{name + "_out"}, &ir.Attr{Name: "axis", Type: ir.AttrInt, I: 0})
	cat.Outputs[0].Type = t
	return cat.Outputs[0], append(names, name)
}

// unsqueezed is t with a new leading dim of 1.
func unsqueezed(t ir.Type) ir.Type {
	u := t.Clone()
	if u.IsTensor() && u.Shape.Known {
		u.Shape.Dims = append([]ir.Dim{ir.D(1)}, u.Shape.Dims...)
	}
	return u
}
