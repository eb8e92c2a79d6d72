package ir

// This file implements inference of the sequence ops: SequenceConstruct,
// SequenceEmpty, SequenceAt, SequenceInsert, SequenceErase,
// SequenceLength, SplitToSequence, ConcatFromSequence and SequenceMap. A
// sequence type records one element type, the merge of all elements'
// (dims that differ between elements are unknown).

func registerInferSequence() {
	Register(
		OpDef{Name: "SequenceConstruct", Infer: inferSequenceConstruct},
		OpDef{Name: "SequenceEmpty", Infer: inferSequenceEmpty},
		OpDef{Name: "SequenceAt", Infer: inferSequenceAt},
		OpDef{Name: "SequenceInsert", Infer: inferSequenceInsert},
		OpDef{Name: "SequenceErase", Infer: inferSequenceErase},
		OpDef{Name: "SequenceLength", Infer: inferSequenceLength},
		OpDef{Name: "SplitToSequence", Infer: inferSplitToSequence},
		OpDef{Name: "ConcatFromSequence", Infer: inferConcatFromSequence},
		OpDef{Name: "SequenceMap", Infer: inferSequenceMap},
	)
}

// SequenceConstruct(inputs...) -> seq of the merged input types.
func inferSequenceConstruct(c *InferContext) error {
	var e Type
	for i := 0; i < c.NumInputs(); i++ {
		if i == 0 {
			e = c.InType(i).Clone()
			continue
		}
		e = smMergeType(e, c.InType(i))
	}
	c.SetOutput(0, smSeq(e))
	return nil
}

// SequenceEmpty(dtype=float32) -> seq(tensor of dtype, unknown shape).
func inferSequenceEmpty(c *InferContext) error {
	dt, err := smDTypeAttr(c, "dtype", Float32)
	c.SetOutput(0, smSeq(TensorType(dt, UnknownShape())))
	return err
}

// maxSeqChain bounds the producer chain seqElems follows.
const maxSeqChain = 256

// seqElems recovers the element types of sequence v, in order, by
// following its producers (SequenceEmpty, SequenceConstruct,
// SequenceInsert, SequenceErase, SplitToSequence, Identity). A sequence
// from a graph input, a loop or anything else is not known.
func seqElems(c *InferContext, v *Value, depth int) ([]Type, bool) {
	if v == nil || v.Producer == nil || depth > maxSeqChain {
		return nil, false
	}
	p := v.Producer
	if p.Domain != "" {
		return nil, false
	}
	pos := func(i, n int, insert bool) (int, bool) {
		in := p.Input(i)
		if in == nil {
			if insert {
				return n, true
			}
			return n - 1, n > 0
		}
		k := in.Known()
		ok := k != nil
		if !ok || len(k) != 1 || k[0].Sym != "" {
			return 0, false
		}
		x := k[0].Val
		if x < 0 {
			x += int64(n)
		}
		hi := int64(n)
		if !insert {
			hi--
		}
		return int(x), x >= 0 && x <= hi
	}
	switch p.Op {
	case "SequenceEmpty":
		return []Type{}, true
	case "SequenceConstruct":
		out := make([]Type, len(p.Inputs))
		for i, in := range p.Inputs {
			if in == nil {
				return nil, false
			}
			out[i] = in.Type.Clone()
		}
		return out, true
	case "Identity":
		return seqElems(c, p.Input(0), depth+1)
	case "SequenceInsert":
		base, ok := seqElems(c, p.Input(0), depth+1)
		t := p.Input(1)
		if !ok || t == nil {
			return nil, false
		}
		at, ok := pos(2, len(base), true)
		if !ok {
			return nil, false
		}
		out := append(append(append([]Type{}, base[:at]...), t.Type.Clone()), base[at:]...)
		return out, true
	case "SequenceErase":
		base, ok := seqElems(c, p.Input(0), depth+1)
		if !ok {
			return nil, false
		}
		at, ok := pos(1, len(base), false)
		if !ok {
			return nil, false
		}
		return append(append([]Type{}, base[:at]...), base[at+1:]...), true
	case "SplitToSequence":
		return splitToSeqElems(p, v)
	}
	return nil, false
}

// splitToSeqElems lists the pieces SplitToSequence makes when the split
// dim and the split sizes are known.
func splitToSeqElems(p *Node, v *Value) ([]Type, bool) {
	x := p.Input(0)
	if x == nil || !x.Type.Shape.Known || v.Type.Elem == nil {
		return nil, false
	}
	s := x.Type.Shape
	ax := p.AttrInt("axis", 0)
	a, err := smAxis(ax, len(s.Dims))
	if err != nil || !s.Dims[a].IsConcrete() {
		return nil, false
	}
	d := s.Dims[a].Val
	var sizes []int64
	sp := p.Input(1)
	switch {
	case sp == nil:
		if d > maxSeqChain {
			return nil, false
		}
		keep := p.AttrInt("keepdims", 1) != 0
		out := make([]Type, d)
		for i := range out {
			e := TensorType(x.Type.DType, s.Clone())
			if keep {
				e.Shape.Dims[a] = D(1)
			} else {
				e.Shape = removeDim(s, a)
			}
			out[i] = e
		}
		return out, true
	case sp.Known() != nil && sp.Type.Shape.Rank() == 0 && len(sp.Known()) == 1 && sp.Known()[0].IsConcrete() && sp.Known()[0].Val > 0:
		k := sp.Known()[0].Val
		if (d+k-1)/k > maxSeqChain {
			return nil, false
		}
		for r := d; r > 0; r -= k {
			sizes = append(sizes, min(k, r))
		}
	case sp.Known() != nil && sp.Type.Shape.Rank() == 1:
		for _, k := range sp.Known() {
			if !k.IsConcrete() {
				return nil, false
			}
			sizes = append(sizes, k.Val)
		}
	default:
		return nil, false
	}
	out := make([]Type, len(sizes))
	for i, n := range sizes {
		e := TensorType(x.Type.DType, s.Clone())
		e.Shape.Dims[a] = D(n)
		out[i] = e
	}
	return out, true
}

// splitCount returns the element count of a sequence made by
// SplitToSequence without split sizes (through Identity): the split dim,
// which may be symbolic.
func splitCount(v *Value) (Dim, bool) {
	for i := 0; v != nil && v.Producer != nil && i < maxSeqChain; i++ {
		p := v.Producer
		switch {
		case p.Domain != "":
			return Dim{}, false
		case p.Op == "Identity":
			v = p.Input(0)
			continue
		case p.Op != "SplitToSequence" || p.Input(1) != nil:
			return Dim{}, false
		}
		x := p.Input(0)
		if x == nil || !x.Type.Shape.Known {
			return Dim{}, false
		}
		a, err := smAxis(p.AttrInt("axis", 0), len(x.Type.Shape.Dims))
		if err != nil || x.Type.Shape.Dims[a].IsUnknown() {
			return Dim{}, false
		}
		return x.Type.Shape.Dims[a], true
	}
	return Dim{}, false
}

// SequenceAt(seq, position) -> the element type (exact when the sequence's
// elements and the position are known).
func inferSequenceAt(c *InferContext) error {
	if elems, ok := seqElems(c, c.Input(0), 0); ok {
		if p, ok := smInt(c, 1); ok {
			n := int64(len(elems))
			if p < 0 {
				p += n
			}
			if p < 0 || p >= n {
				c.SetOutput(0, smElem(c.InType(0)))
				return c.Errorf(CodeValue, "position %d out of range for %d elements", p, n)
			}
			c.SetOutput(0, elems[p].Clone())
			return nil
		}
	}
	c.SetOutput(0, smElem(c.InType(0)))
	return nil
}

// seqElemAfterAdd returns the element type of a sequence after adding a
// tensor: the merge, except that an empty sequence (shape never observed)
// of the same dtype takes the tensor's type.
func seqElemAfterAdd(c *InferContext, seq Type, t Type) Type {
	if v := c.Input(0); v != nil && v.Producer != nil && v.Producer.Op == "SequenceEmpty" {
		return t.Clone()
	}
	if seq.Elem == nil {
		return t.Clone()
	}
	return smMergeType(*seq.Elem, t)
}

// SequenceInsert(seq, tensor, position?).
func inferSequenceInsert(c *InferContext) error {
	c.SetOutput(0, smSeq(seqElemAfterAdd(c, c.InType(0), c.InType(1))))
	return nil
}

// SequenceErase(seq, position?): same type.
func inferSequenceErase(c *InferContext) error {
	c.SetOutput(0, c.InType(0).Clone())
	return nil
}

// SequenceLength(seq) -> int64 scalar.
func inferSequenceLength(c *InferContext) error {
	c.SetTensor(0, Int64, ShapeOf())
	if elems, ok := seqElems(c, c.Input(0), 0); ok {
		c.SetKnown(0, []Dim{D(int64(len(elems)))})
	}
	return nil
}

// SplitToSequence(input, split?, axis=0, keepdims=1).
func inferSplitToSequence(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	if !in.Known {
		c.SetOutput(0, smSeq(TensorType(dt, UnknownShape())))
		return nil
	}
	axis, err := smAxis(c.AttrInt("axis", 0), len(in.Dims))
	if err != nil {
		c.SetOutput(0, smSeq(TensorType(dt, UnknownShape())))
		return err
	}
	s := in.Clone()
	if !c.HasInput(1) {
		if c.AttrInt("keepdims", 1) == 0 {
			s = removeDim(s, axis)
		} else {
			s.Dims[axis] = D(1)
		}
		c.SetOutput(0, smSeq(TensorType(dt, s)))
		return nil
	}
	d := Unknown()
	if v, ok := smInts(c, 1); ok && c.InShape(1).Rank() == 0 && len(v) == 1 {
		// Scalar split: chunks of v, the last one possibly smaller.
		if dd := in.Dims[axis]; dd.IsConcrete() && v[0] > 0 && dd.Val%v[0] == 0 {
			d = D(v[0])
		}
	} else if ok && len(v) > 0 {
		d = D(v[0])
		for _, x := range v[1:] {
			if x != v[0] {
				d = Unknown()
			}
		}
	}
	s.Dims[axis] = d
	c.SetOutput(0, smSeq(TensorType(dt, s)))
	return nil
}

// ConcatFromSequence(seq, axis, new_axis=0): the element count is not
// tracked, so the concatenated dim is unknown.
func inferConcatFromSequence(c *InferContext) error {
	e := smElem(c.InType(0))
	if e.Kind != KindTensor || !e.Shape.Known {
		c.SetTensor(0, e.DType, UnknownShape())
		return nil
	}
	r := len(e.Shape.Dims)
	newAxis := c.AttrInt("new_axis", 0) != 0
	if newAxis {
		r++
	}
	axis, err := smAxis(c.AttrInt("axis", 0), r)
	if err != nil {
		c.SetTensor(0, e.DType, UnknownShape())
		return err
	}
	// The concatenated (or stacked) dim: known when the elements are.
	cat := Unknown()
	if elems, ok := seqElems(c, c.Input(0), 0); ok && len(elems) > 0 {
		cat = D(0)
		if newAxis {
			cat = D(int64(len(elems)))
		}
		for _, el := range elems {
			if el.Kind != KindTensor || el.Shape.Rank() != len(e.Shape.Dims) {
				cat = Unknown()
				break
			}
			if !newAxis {
				cat = DimAdd(cat, el.Shape.Dims[axis])
			}
		}
	}
	if count, ok := splitCount(c.Input(0)); ok && cat.IsUnknown() {
		// n identical pieces of a SplitToSequence without split sizes.
		if newAxis {
			cat = count
		} else {
			cat = smMulDims([]Dim{count, e.Shape.Dims[axis]})
		}
	}
	var s Shape
	if newAxis {
		s = insertDim(e.Shape, axis, cat)
	} else {
		s = e.Shape.Clone()
		s.Dims[axis] = cat
	}
	c.SetTensor(0, e.DType, s)
	return nil
}

// SequenceMap(input_sequence, additional_inputs...) with body: each output
// is a sequence of the body's corresponding output type.
func inferSequenceMap(c *InferContext) error {
	body := c.Node.AttrGraph("body")
	if body == nil {
		return c.Errorf(CodeSubgraph, "missing body")
	}
	in := make([]Type, c.NumInputs())
	for i := range in {
		t := c.InType(i)
		if t.Kind == KindSequence {
			in[i] = smElem(t)
		} else {
			in[i] = t.Clone()
		}
	}
	out := c.InferSubgraph(body, in)
	for i, t := range out {
		c.SetOutput(i, smSeq(t))
	}
	return nil
}
