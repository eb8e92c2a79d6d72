package optimize

// This file implements the persistent-RNN recognition of a recurrence
// written as a Loop or Scan: what exporters write for an RNN they do not
// express as an LSTM/GRU/RNN op (a rolled cell over time steps).
//
//	Loop/Scan (T iterations)              wolong:PersistentRNN (one kernel)
//	  body: x_t, h ─► MatMul(h, R) ─┐   ⇒    body: the same Loop/Scan
//	        x_t W ──────────────────+─► gates (Sigmoid/Tanh/...) ─► h'
//
// Rolled, every iteration launches the body's kernels (after fusion: one
// or a few per step), re-reads the weights from memory and pays the
// runtime's per-iteration set-up. A persistent kernel (Diamos et al.,
// "Persistent RNNs", ICML 2016) keeps the weights on chip across the
// steps, the state in registers, and runs the sequence in one launch. The
// pass wraps such a Loop/Scan in a wolong:PersistentRNN fused node whose
// body is the Loop/Scan itself: the cost model costs a fused node as one
// kernel whose memory traffic is its external inputs and outputs (each
// weight read once), over the summed work of the iterations; the exported
// model stays standard ONNX (the fused node is a model-local function
// whose body is the Loop/Scan, which ONNX Runtime inlines and runs as
// before).
//
// A Loop/Scan is a recurrence when its body (after fusion, which runs
// inside bodies first) holds a MatMul/Gemm, alone or in a fused kernel,
// that multiplies a value computed from the carried state by a constant
// weight (the recurrent weight), and a carried output is computed from
// the state. It is wrapped when every constant its body reads fits the
// device's on-chip memory together (Options.OnChipBytes; 0, a CPU,
// disables the pass), its body holds no control flow and only ai.onnx
// ops and fused kernels, a static trip count is at least
// minPersistentSteps, and, with a Predictor, the cost model predicts the
// wrapped loop faster (a trial on a copy of the loop alone: trial.go).
// Under --target ort the pass does nothing: ONNX Runtime has no
// persistent kernel and runs the loop.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// persistentLoop is the persistent_loop pass.
func persistentLoop(c *Context) ([]Rewrite, error) {
	if c.Opt.OnChipBytes <= 0 || c.Opt.Target == TargetORT {
		return nil, nil
	}
	g := c.Graph()
	var rw []Rewrite
	trials := false
	for _, n := range nodesInOrder(g) {
		rc, ok := recurrentLoop(c, n)
		if !ok {
			continue
		}
		remark := fmt.Sprintf("%s recurrence: recurrent weight %s; %d bytes of weights kept on chip over the steps, one launch",
			n.Op, rc.weight.Name, rc.resident)
		if c.Opt.Predictor != nil {
			trials = true
			m, cn := trialLocal(c, n)
			if m == nil {
				continue
			}
			out := c.trialMemo(m, func() trialOutcome {
				r, ok1 := predictOn(c, m)
				cg := cn.Graph
				wrapLoop(cg, cn, n.Name+"_persistent")
				if ir.SortNodes(cg) != nil {
					return trialOutcome{}
				}
				p, ok2 := predictOn(c, m)
				return trialOutcome{before: r, after: p, ok: ok1 && ok2}
			})
			if !out.ok {
				continue
			}
			r, p := out.before, out.after
			after, before := p.TotalMs, r.TotalMs
			if !(after < before && p.Unknown <= r.Unknown) {
				c.Refuse(ir.RefuseNoWin, []*ir.Node{n}, fmt.Sprintf("%s left as it is: predicted %.4g ms as a persistent kernel, %.4g ms rolled (the loop alone)", ir.NodeLabel(n), after, before), Saving{})
				continue
			}
			remark += fmt.Sprintf("; predicted %.4g ms, %.4g ms rolled (the loop alone)", after, before)
		}
		f := wrapLoop(g, n, c.newName("persistent_rnn"))
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, After: []string{f.Name}, Sep: "+",
			Remark: ir.FusedDomain + ":PersistentRNN, " + remark})
	}
	if trials && len(rw) == 0 {
		predictOn(c, c.Model) // leave the predictor on the model as it is
	}
	return rw, nil
}

// recurrence is what recurrentLoop found.
type recurrence struct {
	weight   *ir.Value // a recurrent weight (the first found)
	resident int64     // bytes of the constants the body reads
}

// recurrentLoop reports whether n is a Loop/Scan the pass wraps (see the
// file comment), with its recurrent weight.
func recurrentLoop(c *Context, n *ir.Node) (recurrence, bool) {
	body := n.AttrGraph("body")
	if body == nil || !n.IsAny(ir.OpLoop, ir.OpScan) || len(body.Inputs) != len(n.Inputs) {
		return recurrence{}, false
	}
	var state, carriedOut []*ir.Value
	switch {
	case n.Is(ir.OpLoop):
		k := len(n.Inputs) - 2
		if k < 1 || len(body.Outputs) < 1+k {
			return recurrence{}, false
		}
		if t, ok := constCondInt(n.Input(0)); ok && t < minPersistentSteps {
			return recurrence{}, false
		}
		state, carriedOut = body.Inputs[2:], body.Outputs[1:1+k]
	default:
		m := int(n.AttrInt("num_scan_inputs", 0))
		k := len(n.Inputs) - m
		if c.Model.Opset("") < 9 || m <= 0 || k < 1 || len(body.Outputs) < k {
			return recurrence{}, false
		}
		if d, ok := staticDims(n.Inputs[k]); ok {
			ax := int64(0)
			if as, ok := n.AttrInts("scan_input_axes"); ok && len(as) > 0 {
				ax = as[0]
			}
			if ax >= 0 && ax < int64(len(d)) && d[ax] < minPersistentSteps {
				return recurrence{}, false
			}
		}
		state, carriedOut = body.Inputs[:k], body.Outputs[:k]
	}
	dep := map[*ir.Value]bool{}
	for _, v := range state {
		dep[v] = true
	}
	var rc recurrence
	seen := map[*ir.Value]bool{}
	for _, m := range body.Nodes {
		if !ir.IsFused(m) && (hasSubgraph(m) || !isDefault(m)) {
			return recurrence{}, false
		}
		reads := false
		for _, v := range m.Inputs {
			reads = reads || dep[v]
		}
		for i, v := range m.Inputs {
			if v == nil || v.Const == nil {
				continue
			}
			if !seen[v] {
				seen[v] = true
				rc.resident += v.Const.ByteSize()
			}
			gemmWeight := m.IsAny(ir.OpMatMul, ir.OpGemm) && i == 1 || ir.IsFused(m) && readsAsGEMMWeight(m, i)
			if reads && gemmWeight && rc.weight == nil {
				rc.weight = v
			}
		}
		if reads {
			for _, o := range m.Outputs {
				if o != nil {
					dep[o] = true
				}
			}
		}
	}
	carries := false
	for _, v := range carriedOut {
		carries = carries || dep[v] && !isStateInput(v, state)
	}
	if rc.weight == nil || !carries {
		return recurrence{}, false
	}
	if rc.resident > c.Opt.OnChipBytes {
		c.Refuse(ir.RefuseNoWin, []*ir.Node{n}, fmt.Sprintf("%s recurrence left as it is: the weights its body reads (%d bytes) do not fit on chip (%d bytes)",
			ir.NodeLabel(n), rc.resident, c.Opt.OnChipBytes), Saving{})
		return recurrence{}, false
	}
	return rc, true
}

// isStateInput reports whether v is one of the state inputs (a state
// passed through unchanged).
func isStateInput(v *ir.Value, state []*ir.Value) bool {
	for _, s := range state {
		if v == s {
			return true
		}
	}
	return false
}

// wrapLoop replaces Loop/Scan n of g by a wolong:PersistentRNN fused node
// named name whose body holds n: the body's inputs are n's inputs and the
// values n's bodies capture (rebound inside, so that the fused body reads
// nothing from outside it, as an ONNX function must not), its outputs n's
// outputs, which keep their identity as the fused node's. It returns the
// fused node, appended to g (the driver re-sorts).
func wrapLoop(g *ir.Graph, n *ir.Node, name string) *ir.Node {
	fn := &ir.Node{Name: name, Op: "PersistentRNN", Domain: ir.FusedDomain}
	body := ir.NewGraph(name + "_body")
	body.Parent, body.ParentNode = g, fn
	captured := n.CapturedValues()
	removeNode(g, n) // drops n's uses of its inputs
	sweepNodes(g)
	inner := map[*ir.Value]*ir.Value{}
	var ext []*ir.Value
	bind := func(v *ir.Value) *ir.Value {
		if w, ok := inner[v]; ok {
			return w
		}
		w := body.AddInput(v.Name, v.Type)
		w.SetKnown(v.Known())
		inner[v] = w
		ext = append(ext, v)
		return w
	}
	for i, v := range n.Inputs {
		if v != nil {
			n.Inputs[i] = bind(v)
		}
	}
	for _, v := range captured {
		w := bind(v)
		kept := v.Uses[:0]
		for _, u := range v.Uses {
			if u.Node != nil && within(u.Node.Graph, n) {
				u.Node.Inputs[u.Index] = w
				w.Uses = append(w.Uses, u)
				continue
			}
			kept = append(kept, u)
		}
		v.Uses = kept
	}
	for _, sg := range n.Subgraphs() {
		sg.Walk(func(b *ir.Graph) bool {
			for i, o := range b.Outputs {
				if w, ok := inner[o]; ok && o.Graph != b {
					b.SetOutput(i, w) // a body output that is a captured value
				}
			}
			return true
		})
	}
	outs := append([]*ir.Value(nil), n.Outputs...)
	var exposed []*ir.Value
	for i, o := range outs {
		if o == nil {
			continue
		}
		n.Outputs[i] = &ir.Value{Name: o.Name, Type: o.Type}
		n.Outputs[i].SetKnown(o.Known())
		exposed = append(exposed, o)
	}
	body.AttachNode(n)
	for _, sg := range n.Subgraphs() {
		sg.Parent = body
	}
	for _, o := range n.Outputs {
		if o != nil {
			body.Outputs = append(body.Outputs, o)
		}
	}
	fn.Inputs, fn.Outputs = ext, exposed
	fn.Attrs = []*ir.Attr{{Name: ir.FusedBodyAttr, Type: ir.AttrGraph, G: body}}
	g.AttachNode(fn)
	for _, o := range fn.Outputs {
		if o.Declared == nil && !g.IsOutput(o) {
			d := o.Type
			o.Declared = &d // re-running inference keeps the fused node's types
		}
	}
	return fn
}

// within reports whether graph b is one of n's bodies or nested in one.
func within(b *ir.Graph, n *ir.Node) bool {
	for ; b != nil; b = b.Parent {
		if b.ParentNode == n {
			return true
		}
	}
	return false
}
