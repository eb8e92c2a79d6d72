package ir

// This file implements inference of the control-flow ops If, Loop and Scan
// (all opsets). Their bodies are inferred through InferSubgraph with the
// types the node feeds them; loop-carried values whose type changes between
// iterations are generalised (dims that differ become unknown) and the body
// re-inferred once more with the general type.

func registerInferControl() {
	Register(
		OpDef{Name: "If", Infer: inferIf},
		OpDef{Name: "Loop", Infer: inferLoop},
		OpDef{Name: "Scan", Infer: inferScan},
	)
}

// If(cond) with then_branch / else_branch: outputs merge the branches'
// types, or take one branch's when cond is known.
func inferIf(c *InferContext) error {
	th, el := c.Node.AttrGraph("then_branch"), c.Node.AttrGraph("else_branch")
	if th == nil || el == nil {
		return c.Errorf(CodeSubgraph, "missing then_branch or else_branch")
	}
	// a branch the known condition does not take is still typed (a pass
	// may read it), but what it warns of is no run's: its diagnostics
	// are dropped
	cond, known := smInt(c, 0)
	mark := len(c.st.res.Diagnostics)
	to := c.InferSubgraph(th, nil)
	if known && cond == 0 {
		c.st.res.Diagnostics = c.st.res.Diagnostics[:mark]
	}
	mark = len(c.st.res.Diagnostics)
	eo := c.InferSubgraph(el, nil)
	if known && cond != 0 {
		c.st.res.Diagnostics = c.st.res.Diagnostics[:mark]
	}
	if len(to) != c.NumOutputs() || len(eo) != c.NumOutputs() {
		return c.Errorf(CodeSubgraph, "branches have %d and %d outputs, node has %d", len(to), len(eo), c.NumOutputs())
	}
	for i := range to {
		switch {
		case known && cond != 0:
			c.SetOutput(i, to[i].Clone())
			if o := th.Outputs[i]; o != nil && o.Known() != nil {
				c.SetKnown(i, append([]Dim{}, o.Known()...))
			}
		case known:
			c.SetOutput(i, eo[i].Clone())
			if o := el.Outputs[i]; o != nil && o.Known() != nil {
				c.SetKnown(i, append([]Dim{}, o.Known()...))
			}
		default:
			c.SetOutput(i, smMergeType(to[i], eo[i]))
		}
	}
	return nil
}

// loopPasses is how many times a loop body may be inferred to reach a
// fixed point of its carried types: 3, or 1 when loops nest deeply below
// it, so nested re-inference cannot blow up (3^depth).
func loopPasses(body *Graph) int {
	if nestingDepth(body, 0) > 2 {
		return 1
	}
	return 3
}

// nestingDepth returns how deeply subgraphs nest inside g (0: none),
// counting no further than 8.
func nestingDepth(g *Graph, level int) int {
	if level >= 8 {
		return level
	}
	best := 0
	for _, n := range g.Nodes {
		for _, sg := range n.Subgraphs() {
			if d := 1 + nestingDepth(sg, level+1); d > best {
				best = d
			}
		}
	}
	return best
}

// typesEqual reports whether two types print the same (used to detect a
// fixed point of loop-carried types).
func typesEqual(a, b Type) bool { return a.String() == b.String() }

// Loop(M?, cond?, v_initial...) with body(iter_num, cond, v...) ->
// (cond, v..., scan...): outputs are the final carried values and the scan
// outputs stacked along a new leading dim of the trip count.
func inferLoop(c *InferContext) error {
	body := c.Node.AttrGraph("body")
	if body == nil {
		return c.Errorf(CodeSubgraph, "missing body")
	}
	nCarried := c.NumInputs() - 2
	if nCarried < 0 || len(body.Inputs) != nCarried+2 || len(body.Outputs) < nCarried+1 {
		return c.Errorf(CodeSubgraph, "body has %d inputs and %d outputs for %d loop-carried values", len(body.Inputs), len(body.Outputs), nCarried)
	}
	nScan := len(body.Outputs) - 1 - nCarried
	if c.NumOutputs() != nCarried+nScan {
		return c.Errorf(CodeSubgraph, "node has %d outputs, body gives %d", c.NumOutputs(), nCarried+nScan)
	}
	carried := make([]Type, nCarried)
	for i := range carried {
		carried[i] = c.InType(2 + i).Clone()
	}
	// A carried value the body passes through unchanged keeps its initial
	// value every iteration: the body sees the initial value's Known (a
	// trip count handed to an inner Loop this way stays static), and so
	// does the Loop's output. Any other carried value is unknown inside.
	invariant := make([]bool, nCarried)
	for i := range carried {
		bin := body.Inputs[2+i]
		if bin == nil {
			continue
		}
		invariant[i] = passesThrough(body.Outputs[1+i], bin)
		bin.SetKnown(nil)
		if x := c.Input(2 + i); invariant[i] && x != nil {
			bin.SetKnown(x.Known())
		}
	}
	var out []Type
	for pass := 0; pass < loopPasses(body); pass++ {
		in := []Type{TensorType(Int64, ShapeOf()), TensorType(Bool, ShapeOf())}
		in = append(in, carried...)
		out = c.InferSubgraph(body, in)
		changed := false
		for i := range carried {
			m := smMergeType(carried[i], out[1+i])
			if !typesEqual(m, carried[i]) {
				changed = true
			}
			carried[i] = m
		}
		if !changed {
			break
		}
	}
	for i := range carried {
		c.SetOutput(i, carried[i])
		if x := c.Input(2 + i); invariant[i] && x != nil && x.Known() != nil {
			c.SetKnown(i, append([]Dim{}, x.Known()...))
		}
	}
	trip := Unknown()
	if m, ok := smKnownDims(c, 0); ok && len(m) == 1 && (m[0].Sym != "" || m[0].Val >= 0) && loopRunsFull(c, body) {
		trip = m[0]
	}
	for k := 0; k < nScan; k++ {
		t := out[1+nCarried+k]
		if t.Kind != KindTensor {
			c.SetOutput(nCarried+k, Type{Kind: KindTensor, DType: t.DType})
			continue
		}
		s := UnknownShape()
		if t.Shape.Known {
			s = DimsShape(append([]Dim{trip}, t.Shape.Dims...)...)
		}
		c.SetTensor(nCarried+k, t.DType, s)
	}
	return nil
}

// passesThrough reports whether out is in (through Identity nodes): a
// body output that hands its input on unchanged.
func passesThrough(out, in *Value) bool {
	return throughIdentity(out, func(v *Value) bool { return v == in })
}

// throughIdentity reports whether out, or a value it is an Identity of
// (up to maxSeqChain nodes back), satisfies match.
func throughIdentity(out *Value, match func(*Value) bool) bool {
	for i := 0; out != nil && i < maxSeqChain; i++ {
		if match(out) {
			return true
		}
		if out.Producer == nil || out.Producer.Op != "Identity" || out.Producer.Domain != "" {
			return false
		}
		out = out.Producer.Input(0)
	}
	return false
}

// loopRunsFull reports whether a Loop runs exactly its trip count: the
// condition input is absent or known true, and the body's condition output
// is the body's condition input (through Identity nodes) or a known true
// value.
func loopRunsFull(c *InferContext, body *Graph) bool {
	if c.HasInput(1) {
		if v, ok := smInt(c, 1); !ok || v == 0 {
			return false
		}
	}
	return throughIdentity(body.Outputs[0], func(v *Value) bool {
		k := v.Known()
		return v == body.Inputs[1] || len(k) == 1 && k[0].Sym == "" && k[0].Val != 0
	})
}

// removeDim returns s without dim a (unknown rank stays unknown).
func removeDim(s Shape, a int) Shape {
	if !s.Known || a < 0 || a >= len(s.Dims) {
		return UnknownShape()
	}
	d := append([]Dim{}, s.Dims[:a]...)
	return DimsShape(append(d, s.Dims[a+1:]...)...)
}

// insertDim returns s with d inserted at a.
func insertDim(s Shape, a int, d Dim) Shape {
	if !s.Known || a < 0 || a > len(s.Dims) {
		return UnknownShape()
	}
	out := append([]Dim{}, s.Dims[:a]...)
	out = append(out, d)
	return DimsShape(append(out, s.Dims[a:]...)...)
}

// Scan (opset 9+): inputs are N state values then M scan inputs
// (num_scan_inputs); the body sees states and one slice of each scan input
// (the scan axis removed); outputs are final states then K scan outputs
// with the sequence length inserted at scan_output_axes. Opset 8 has a
// leading optional sequence_lens input and a batch dim on everything.
func inferScan(c *InferContext) error {
	body := c.Node.AttrGraph("body")
	if body == nil {
		return c.Errorf(CodeSubgraph, "missing body")
	}
	m := int(c.AttrInt("num_scan_inputs", 0))
	first := 0
	if c.Opset < 9 {
		first = 1
	}
	nIn := c.NumInputs() - first
	n := nIn - m
	if m <= 0 || n < 0 || len(body.Inputs) != nIn || len(body.Outputs) < n {
		return c.Errorf(CodeSubgraph, "num_scan_inputs %d does not fit %d inputs and a body of %d inputs", m, nIn, len(body.Inputs))
	}
	k := len(body.Outputs) - n
	if c.NumOutputs() != n+k {
		return c.Errorf(CodeSubgraph, "node has %d outputs, body gives %d", c.NumOutputs(), n+k)
	}
	inAxes, _ := c.AttrInts("scan_input_axes")
	outAxes, _ := c.AttrInts("scan_output_axes")
	seq := Unknown()
	batch := Unknown()
	slices := make([]Type, m)
	for j := 0; j < m; j++ {
		t := c.InType(first + n + j)
		s := t.Shape
		var sl Shape
		if c.Opset < 9 {
			// [batch, seq, ...] -> [...]
			if s.Known && len(s.Dims) >= 2 {
				if !batch.IsConcrete() {
					batch = s.Dims[0]
				}
				if !seq.IsConcrete() {
					seq = s.Dims[1]
				}
				sl = DimsShape(s.Dims[2:]...)
			}
		} else {
			a := int64(0)
			if j < len(inAxes) {
				a = inAxes[j]
			}
			if s.Known {
				ax, err := smAxis(a, len(s.Dims))
				if err != nil {
					return err
				}
				if !seq.IsConcrete() && !s.Dims[ax].IsUnknown() {
					seq = s.Dims[ax]
				}
				sl = removeDim(s, ax)
			}
		}
		slices[j] = TensorType(t.DType, sl)
	}
	states := make([]Type, n)
	for i := range states {
		t := c.InType(first + i).Clone()
		if c.Opset < 9 && t.Kind == KindTensor {
			if t.Shape.Known && len(t.Shape.Dims) >= 1 {
				if !batch.IsConcrete() {
					batch = t.Shape.Dims[0]
				}
			}
			t.Shape = removeDim(t.Shape, 0)
		}
		states[i] = t
	}
	var out []Type
	for pass := 0; pass < loopPasses(body); pass++ {
		in := append(append([]Type{}, states...), slices...)
		out = c.InferSubgraph(body, in)
		changed := false
		for i := range states {
			mt := smMergeType(states[i], out[i])
			if !typesEqual(mt, states[i]) {
				changed = true
			}
			states[i] = mt
		}
		if !changed {
			break
		}
	}
	for i, t := range states {
		if c.Opset < 9 && t.Kind == KindTensor {
			t.Shape = insertDim(t.Shape, 0, batch)
		}
		c.SetOutput(i, t)
	}
	for j := 0; j < k; j++ {
		t := out[n+j]
		s := t.Shape
		switch {
		case c.Opset < 9:
			s = insertDim(insertDim(s, 0, seq), 0, batch)
		default:
			a := int64(0)
			if j < len(outAxes) {
				a = outAxes[j]
			}
			if s.Known {
				ax, err := smAxis(a, len(s.Dims)+1)
				if err != nil {
					return err
				}
				s = insertDim(s, ax, seq)
			}
		}
		c.SetTensor(n+j, t.DType, s)
	}
	return nil
}
