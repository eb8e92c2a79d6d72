package ir

// This file implements inference of the sequence ops: SequenceConstruct,
// SequenceEmpty, SequenceAt, SequenceInsert, SequenceErase,
// SequenceLength, SplitToSequence, ConcatFromSequence and SequenceMap. A
// sequence type records one element type, the merge of all elements'
// (dims that differ between elements are unknown).

func init() {
	Register(
		OpDef{Name: "SequenceConstruct", MinInputs: 1, MaxInputs: -1, MinOutputs: 1, MaxOutputs: 1, Infer: inferSequenceConstruct},
		OpDef{Name: "SequenceEmpty", MinInputs: 0, MaxInputs: 0, MinOutputs: 1, MaxOutputs: 1, Infer: inferSequenceEmpty},
		OpDef{Name: "SequenceAt", MinInputs: 2, MaxInputs: 2, MinOutputs: 1, MaxOutputs: 1, Infer: inferSequenceAt},
		OpDef{Name: "SequenceInsert", MinInputs: 2, MaxInputs: 3, MinOutputs: 1, MaxOutputs: 1, Infer: inferSequenceInsert},
		OpDef{Name: "SequenceErase", MinInputs: 1, MaxInputs: 2, MinOutputs: 1, MaxOutputs: 1, Infer: inferSequenceErase},
		OpDef{Name: "SequenceLength", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: inferSequenceLength},
		OpDef{Name: "SplitToSequence", MinInputs: 1, MaxInputs: 2, MinOutputs: 1, MaxOutputs: 1, Infer: inferSplitToSequence},
		OpDef{Name: "ConcatFromSequence", MinInputs: 1, MaxInputs: 1, MinOutputs: 1, MaxOutputs: 1, Infer: inferConcatFromSequence},
		OpDef{Name: "SequenceMap", MinInputs: 1, MaxInputs: -1, MinOutputs: 1, MaxOutputs: -1, Infer: inferSequenceMap},
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

// SequenceAt(seq, position) -> the element type.
func inferSequenceAt(c *InferContext) error {
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
	var s Shape
	if newAxis {
		s = insertDim(e.Shape, axis, Unknown())
	} else {
		s = e.Shape.Clone()
		s.Dims[axis] = Unknown()
	}
	c.SetTensor(0, e.DType, s)
	return nil
}

// SequenceMap(input_sequence, additional_inputs...) with body: each output
// is a sequence of the body's corresponding output type.
func inferSequenceMap(c *InferContext) error {
	body := c.Node.AttrGraph("body")
	if body == nil {
		return c.Errorf("missing body")
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
