package ir

// This file implements inference for reductions (Reduce*, ArgMax/ArgMin),
// the softmax family, scans along an axis (CumSum, CumProd), losses and
// Det.

// cxReduceAxesFromInput reports whether op takes its axes as input 1 at
// opset v (ReduceSum from 13, the other Reduce* from 18).
func cxReduceAxesFromInput(op string, v int64) bool {
	if op == "ReduceSum" {
		return v >= 13
	}
	return v >= 18
}

// cxReduceShape reduces shape s over axes (all when axes is empty and
// noop is false). It returns s unchanged for an empty axes list with noop.
func cxReduceShape(s Shape, axes []int64, keep, noop bool) (Shape, error) {
	if !s.Known {
		return UnknownShape(), nil
	}
	r := len(s.Dims)
	if len(axes) == 0 {
		if noop {
			return s.Clone(), nil
		}
		if !keep {
			return Shape{Known: true}, nil
		}
		out := make([]Dim, r)
		for i := range out {
			out[i] = D(1)
		}
		return DimsShape(out...), nil
	}
	red := make([]bool, r)
	for _, a := range axes {
		ax, err := cxNormAxis(a, r)
		if err != nil {
			return UnknownShape(), err
		}
		red[ax] = true
	}
	out := []Dim{}
	for i, d := range s.Dims {
		switch {
		case !red[i]:
			out = append(out, d)
		case keep:
			out = append(out, D(1))
		}
	}
	return Shape{Known: true, Dims: out}, nil
}

// Reduce*(data[, axes]) keepdims=1 [noop_with_empty_axes=0].
func inferReduce(c *InferContext) error {
	keep := c.AttrInt("keepdims", 1) != 0
	in := c.InShape(0)
	dt := c.InDType(0)
	var axes []int64
	noop := false
	if cxReduceAxesFromInput(c.Node.Op, c.Opset) {
		noop = c.AttrInt("noop_with_empty_axes", 0) != 0
		if as := c.InShape(1); c.HasInput(1) && !(as.IsStatic() && len(as.Dims) == 1 && as.Dims[0].Val == 0) {
			vals, ok := c.KnownInts(1)
			if !ok {
				// Axes unknown: with keepdims the rank stays; without, a
				// static axes count fixes the rank (axes are distinct).
				switch {
				case !in.Known:
					c.SetTensor(0, dt, UnknownShape())
				case keep:
					// A dim of 1 stays 1 whether reduced or not.
					out := RankShape(len(in.Dims))
					for i, d := range in.Dims {
						if d.IsConcrete() && d.Val == 1 {
							out.Dims[i] = d
						}
					}
					c.SetTensor(0, dt, out)
				default:
					as := c.InShape(1)
					if as.IsStatic() && len(as.Dims) == 1 && as.Dims[0].Val > 0 && int(as.Dims[0].Val) <= len(in.Dims) {
						c.SetTensor(0, dt, RankShape(len(in.Dims)-int(as.Dims[0].Val)))
					} else {
						c.SetTensor(0, dt, UnknownShape())
					}
				}
				return nil
			}
			axes = vals
		}
	}
	if !cxReduceAxesFromInput(c.Node.Op, c.Opset) || !c.HasInput(1) {
		// Before the axes input (and, leniently, in models that kept the
		// attribute after it), axes come from the attribute.
		axes, _ = c.AttrInts("axes")
	}
	s, err := cxReduceShape(in, axes, keep, noop)
	if err != nil {
		return err
	}
	c.SetTensor(0, dt, s)
	cxReduceKnown(c, s, axes, noop)
	return nil
}

// cxReduceKnown folds ReduceSum / ReduceProd / ReduceMax / ReduceMin over
// the known values of a 1-D integer input (Shape -> ReduceProd computes
// flattened sizes).
func cxReduceKnown(c *InferContext, out Shape, axes []int64, noop bool) {
	in := c.InShape(0)
	k, ok := c.Known(0)
	if !ok || !c.InDType(0).IsInt() || !cxRankIs(in, 1) || len(k) == 0 || noop {
		return
	}
	for _, a := range axes {
		if a != 0 && a != -1 {
			return
		}
	}
	var op cxKnownOp
	switch c.Node.Op {
	case "ReduceSum":
		op = cxKnownOps["Add"]
	case "ReduceProd":
		op = cxKnownOps["Mul"]
	case "ReduceMax":
		op = cxKnownOps["Max"]
	case "ReduceMin":
		op = cxKnownOps["Min"]
	default:
		return
	}
	acc := k[0]
	for _, d := range k[1:] {
		r, ok := op(acc, d)
		if !ok {
			return
		}
		acc = r
	}
	if n, ok := out.NumElements(); ok && n == 1 {
		c.SetKnown(0, []Dim{acc})
	}
}

// ArgMax/ArgMin(data) axis=0 keepdims=1: int64 indices.
func inferArgReduce(c *InferContext) error {
	in := c.InShape(0)
	if !in.Known {
		c.SetTensor(0, Int64, UnknownShape())
		return nil
	}
	s, err := cxReduceShape(in, []int64{c.AttrInt("axis", 0)}, c.AttrInt("keepdims", 1) != 0, false)
	if err != nil {
		return err
	}
	c.SetTensor(0, Int64, s)
	return nil
}

// Softmax family, CumSum, CumProd: output is input's type and shape; the
// axis is checked when the rank is known.
func inferAxisPreserving(c *InferContext) error {
	cxSameAs(c, 0, 0)
	if r := c.InShape(0).Rank(); r >= 0 && c.Node.Op != "CumSum" && c.Node.Op != "CumProd" {
		def := int64(1)
		if c.Opset >= 13 {
			def = -1
		}
		if r > 0 {
			if _, err := cxNormAxis(c.AttrInt("axis", def), r); err != nil {
				return err
			}
		}
	}
	return nil
}

// NegativeLogLikelihoodLoss(input[N,C,d...], target[N,d...], weight)
// reduction=mean: scalar unless reduction is "none" (then target's shape).
func inferNLLLoss(c *InferContext) error {
	dt := c.InDType(0)
	if c.AttrString("reduction", "mean") == "none" {
		t := c.InShape(1)
		if !t.Known {
			if in := c.InShape(0); in.Known && len(in.Dims) >= 2 {
				d := append([]Dim{in.Dims[0]}, in.Dims[2:]...)
				t = DimsShape(d...)
			}
		}
		c.SetTensor(0, dt, t.Clone())
		return nil
	}
	c.SetTensor(0, dt, Shape{Known: true})
	return nil
}

// SoftmaxCrossEntropyLoss(scores, labels, weights) -> output[, log_prob].
func inferSCELoss(c *InferContext) error {
	if err := inferNLLLoss(c); err != nil {
		return err
	}
	cxSameAs(c, 1, 0)
	return nil
}

// Det(X[..., M, M]) -> [...].
func inferDet(c *InferContext) error {
	in := c.InShape(0)
	if !in.Known {
		c.SetTensor(0, c.InDType(0), UnknownShape())
		return nil
	}
	if len(in.Dims) < 2 {
		return errorf(CodeRank, "Det: input rank %d, want >= 2", len(in.Dims))
	}
	c.SetTensor(0, c.InDType(0), DimsShape(in.Dims[:len(in.Dims)-2]...))
	return nil
}

func registerInferReduce() {
	for _, name := range []string{"ReduceMax", "ReduceMin", "ReduceMean", "ReduceSum", "ReduceProd",
		"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"} {
		cxRegister(OpDef{Name: name, Infer: inferReduce})
	}
	cxRegister(
		OpDef{Name: "ArgMax", Infer: inferArgReduce},
		OpDef{Name: "ArgMin", Infer: inferArgReduce},
		OpDef{Name: "Softmax", Infer: inferAxisPreserving},
		OpDef{Name: "LogSoftmax", Infer: inferAxisPreserving},
		OpDef{Name: "Hardmax", Infer: inferAxisPreserving},
		OpDef{Name: "CumSum", Infer: inferAxisPreserving},
		OpDef{Name: "CumProd", Infer: inferAxisPreserving},
		OpDef{Name: "NegativeLogLikelihoodLoss", Infer: inferNLLLoss},
		OpDef{Name: "SoftmaxCrossEntropyLoss", Infer: inferSCELoss},
		OpDef{Name: "Det", Infer: inferDet},
	)
}
