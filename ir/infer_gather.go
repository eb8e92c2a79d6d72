package ir

// This file implements inference of the indexing and resampling ops:
// Gather, GatherElements, GatherND, Scatter, ScatterElements, ScatterND,
// TensorScatter, Compress, NonZero, TopK, Unique, OneHot, Trilu,
// ReverseSequence, NonMaxSuppression, GridSample, AffineGrid, Resize and
// Upsample. Gather of a small 1-D integer tensor with known indices carries
// the propagated values (Shape(x)[0] -> Known).

import (
	"math"
)

func registerInferGather() {
	Register(
		OpDef{Name: "Gather", Infer: inferGather},
		OpDef{Name: "GatherElements", Infer: inferGatherElements},
		OpDef{Name: "GatherND", Infer: inferGatherND},
		OpDef{Name: "Scatter", Infer: inferLikeInput0},
		OpDef{Name: "ScatterElements", Infer: inferLikeInput0},
		OpDef{Name: "ScatterND", Infer: inferLikeInput0},
		OpDef{Name: "TensorScatter", Infer: inferLikeInput0},
		OpDef{Name: "Trilu", Infer: inferLikeInput0},
		OpDef{Name: "ReverseSequence", Infer: inferLikeInput0},
		OpDef{Name: "Compress", Infer: inferCompress},
		OpDef{Name: "NonZero", Infer: inferNonZero},
		OpDef{Name: "TopK", Infer: inferTopK},
		OpDef{Name: "Unique", Infer: inferUnique},
		OpDef{Name: "OneHot", Infer: inferOneHot},
		OpDef{Name: "NonMaxSuppression", Infer: inferNMS},
		OpDef{Name: "GridSample", Infer: inferGridSample},
		OpDef{Name: "AffineGrid", Infer: inferAffineGrid},
		OpDef{Name: "Resize", Infer: inferResize},
		OpDef{Name: "Upsample", Infer: inferUpsample},
	)
}

// inferLikeInput0: output 0 has input 0's type (Scatter*, Trilu,
// ReverseSequence, TensorScatter).
func inferLikeInput0(c *InferContext) error {
	c.SetOutput(0, c.InType(0).Clone())
	return nil
}

// Gather(data, indices, axis=0): out = data[:axis] + indices + data[axis+1:].
func inferGather(c *InferContext) error {
	data, idx, dt := c.InShape(0), c.InShape(1), c.InDType(0)
	if !data.Known || !idx.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	r := len(data.Dims)
	axis, err := smAxis(c.AttrInt("axis", 0), r)
	if err != nil {
		c.SetTensor(0, dt, UnknownShape())
		return err
	}
	out := append([]Dim{}, data.Dims[:axis]...)
	out = append(out, idx.Dims...)
	out = append(out, data.Dims[axis+1:]...)
	c.SetTensor(0, dt, DimsShape(out...))
	// Data propagation: Shape(x)[i] and friends.
	k, ok := c.Known(0)
	ix, okI := smInts(c, 1)
	dims, okD := data.Ints()
	if ok && okI && okD {
		n := dims[axis]
		norm := make([]int64, len(ix))
		for i, j := range ix {
			if j < 0 {
				j += n
			}
			if j < 0 || j >= n {
				return c.Errorf(CodeValue, "index %d out of range for dim %d", ix[i], n)
			}
			norm[i] = j
		}
		sel := make([][]int64, r)
		sel[axis] = norm
		if vals, ok := smSelect(k, dims, sel); ok {
			c.SetKnown(0, vals)
		}
	}
	return nil
}

// GatherElements(data, indices, axis): out has indices' shape.
func inferGatherElements(c *InferContext) error {
	c.SetTensor(0, c.InDType(0), c.InShape(1).Clone())
	return nil
}

// GatherND(data, indices, batch_dims=0): out = indices[:-1] +
// data[batch_dims+indices[-1]:].
func inferGatherND(c *InferContext) error {
	data, idx, dt := c.InShape(0), c.InShape(1), c.InDType(0)
	if !data.Known || !idx.Known || len(idx.Dims) == 0 {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	last := idx.Dims[len(idx.Dims)-1]
	b := c.AttrInt("batch_dims", 0)
	if !last.IsConcrete() {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	if b < 0 || b+last.Val > int64(len(data.Dims)) {
		c.SetTensor(0, dt, UnknownShape())
		return c.Errorf(CodeDims, "indices last dim %d with batch_dims %d exceeds data rank %d", last.Val, b, len(data.Dims))
	}
	out := append([]Dim{}, idx.Dims[:len(idx.Dims)-1]...)
	out = append(out, data.Dims[b+last.Val:]...)
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// Compress(input, condition, axis?): selected slices; the count is known
// only when condition is.
func inferCompress(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	count := Unknown()
	if cond, ok := smInts(c, 1); ok {
		limit := int64(len(cond))
		var n int64
		ax := c.Attr("axis")
		d := Unknown()
		if ax == nil && in.Known {
			d = smMulDims(in.Dims)
		} else if ax != nil && in.Known {
			if a, err := smAxis(ax.I, len(in.Dims)); err == nil {
				d = in.Dims[a]
			}
		}
		if d.IsConcrete() && d.Val < limit {
			limit = d.Val
		}
		if d.IsConcrete() || int64(len(cond)) == 0 {
			for _, v := range cond[:limit] {
				if v != 0 {
					n++
				}
			}
			count = D(n)
		}
	}
	if c.Attr("axis") == nil {
		c.SetTensor(0, dt, DimsShape(count))
		return nil
	}
	if !in.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	a, err := smAxis(c.AttrInt("axis", 0), len(in.Dims))
	if err != nil {
		c.SetTensor(0, dt, UnknownShape())
		return err
	}
	out := in.Clone()
	out.Dims[a] = count
	c.SetTensor(0, dt, out)
	return nil
}

// NonZero(X) -> int64[rank, ?].
func inferNonZero(c *InferContext) error {
	r := Unknown()
	if s := c.InShape(0); s.Known {
		r = D(int64(len(s.Dims)))
	}
	c.SetTensor(0, Int64, DimsShape(r, Unknown()))
	return nil
}

// TopK(X, K, axis=-1) -> Values, Indices (int64); k is an attribute before
// opset 10.
func inferTopK(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	if !in.Known {
		c.SetTensor(0, dt, UnknownShape())
		c.SetTensor(1, Int64, UnknownShape())
		return nil
	}
	out := in.Clone()
	axis, err := smAxis(c.AttrInt("axis", -1), len(in.Dims))
	if err != nil {
		c.SetTensor(0, dt, RankShape(len(in.Dims)))
		c.SetTensor(1, Int64, RankShape(len(in.Dims)))
		return err
	}
	k := Unknown()
	if c.Opset < 10 {
		if a := c.Attr("k"); a != nil {
			k = D(a.I)
		}
	} else if kd, ok := smKnownDims(c, 1); ok && len(kd) == 1 {
		k = kd[0]
		if k.Sym == "" && k.Val < 0 {
			k = Unknown()
		}
	}
	if k.IsConcrete() && in.Dims[axis].IsConcrete() && k.Val > in.Dims[axis].Val {
		c.SetTensor(0, dt, RankShape(len(in.Dims)))
		c.SetTensor(1, Int64, RankShape(len(in.Dims)))
		return c.Errorf(CodeDims, "k %d exceeds dim %d", k.Val, in.Dims[axis].Val)
	}
	out.Dims[axis] = k
	c.SetTensor(0, dt, out)
	c.SetTensor(1, Int64, out.Clone())
	return nil
}

// Unique(X, axis?, sorted) -> Y, indices, inverse_indices, counts. Only
// inverse_indices has a value-independent length.
func inferUnique(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	ax := c.Attr("axis")
	inv := Unknown()
	switch {
	case ax == nil:
		c.SetTensor(0, dt, DimsShape(Unknown()))
		if in.Known {
			inv = smMulDims(in.Dims)
		}
	case !in.Known:
		c.SetTensor(0, dt, UnknownShape())
	default:
		a, err := smAxis(ax.I, len(in.Dims))
		if err != nil {
			c.SetTensor(0, dt, UnknownShape())
			return err
		}
		out := in.Clone()
		out.Dims[a] = Unknown()
		c.SetTensor(0, dt, out)
		inv = in.Dims[a]
	}
	c.SetTensor(1, Int64, DimsShape(Unknown()))
	c.SetTensor(2, Int64, DimsShape(inv))
	c.SetTensor(3, Int64, DimsShape(Unknown()))
	return nil
}

// OneHot(indices, depth, values, axis=-1): inserts a dim of size depth.
func inferOneHot(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(2)
	if !in.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	r := len(in.Dims) + 1
	axis, err := smAxis(c.AttrInt("axis", -1), r)
	if err != nil {
		c.SetTensor(0, dt, RankShape(r))
		return err
	}
	depth := Unknown()
	if v, ok := c.ConstFloats(1); ok && len(v) == 1 {
		if v[0] < 1 || v[0] > float64(maxDimValue) {
			c.SetTensor(0, dt, RankShape(r))
			return c.Errorf(CodeValue, "invalid depth %v", v[0])
		}
		depth = D(int64(v[0]))
	} else if k, ok := c.Known(1); ok && len(k) == 1 {
		depth = k[0]
	}
	out := make([]Dim, 0, r)
	out = append(out, in.Dims[:axis]...)
	out = append(out, depth)
	out = append(out, in.Dims[axis:]...)
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// NonMaxSuppression(...) -> int64[?, 3] selected (batch, class, box).
func inferNMS(c *InferContext) error {
	c.SetTensor(0, Int64, DimsShape(Unknown(), D(3)))
	return nil
}

// GridSample(X [N,C,D1..Dr], grid [N,O1..Or,r]) -> [N,C,O1..Or].
func inferGridSample(c *InferContext) error {
	x, g, dt := c.InShape(0), c.InShape(1), c.InDType(0)
	switch {
	case x.Known && g.Known && len(x.Dims) == len(g.Dims) && len(x.Dims) >= 3:
		out := []Dim{x.Dims[0], x.Dims[1]}
		out = append(out, g.Dims[1:len(g.Dims)-1]...)
		if !out[0].IsConcrete() {
			out[0] = g.Dims[0]
		}
		c.SetTensor(0, dt, DimsShape(out...))
	case x.Known:
		c.SetTensor(0, dt, RankShape(len(x.Dims)))
	case g.Known:
		c.SetTensor(0, dt, RankShape(len(g.Dims)))
	default:
		c.SetTensor(0, dt, UnknownShape())
	}
	return nil
}

// AffineGrid(theta [N,r,r+1], size [N,C,D1..Dr]) -> [N,D1..Dr,r].
func inferAffineGrid(c *InferContext) error {
	dt := c.InDType(0)
	size, ok := smKnownDims(c, 1)
	if !ok {
		if s := c.InShape(1); s.Rank() == 1 && s.Dims[0].IsConcrete() && s.Dims[0].Val >= 3 {
			c.SetTensor(0, dt, smRankShape(s.Dims[0].Val))
		} else {
			c.SetTensor(0, dt, UnknownShape())
		}
		return nil
	}
	if len(size) < 3 {
		c.SetTensor(0, dt, UnknownShape())
		return c.Errorf(CodeValue, "size has %d entries, want >= 3", len(size))
	}
	out := []Dim{size[0]}
	out = append(out, size[2:]...)
	out = append(out, D(int64(len(size)-2)))
	for i, d := range out {
		if d.Sym == "" && d.Val < 0 {
			out[i] = Unknown()
		}
	}
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// scaleDim returns floor(d * s), the Resize/Upsample output size.
func scaleDim(d Dim, s float64) Dim {
	if d.IsConcrete() {
		v := math.Floor(float64(d.Val) * s)
		if v < 0 || v > float64(maxDimValue) || math.IsNaN(v) {
			return Unknown()
		}
		return D(int64(v))
	}
	if s == 1 {
		return d
	}
	if s > 1 && s == math.Trunc(s) {
		return smMulDims([]Dim{d, D(int64(s))})
	}
	return Unknown()
}

// Resize(X, roi?, scales?, sizes?) (opset 10: Resize(X, scales)); opset 18
// adds axes and keep_aspect_ratio_policy.
func inferResize(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	if !in.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	r := len(in.Dims)
	scalesIdx, sizesIdx := 2, 3
	if c.Opset < 11 {
		scalesIdx, sizesIdx = 1, -1
	}
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if a, ok := c.AttrInts("axes"); ok && c.Opset >= 18 {
		var err error
		if axes, err = smAxes(a, r); err != nil {
			c.SetTensor(0, dt, RankShape(r))
			return err
		}
	}
	out := in.Clone()
	nonEmpty := func(i int) bool {
		if i < 0 || !c.HasInput(i) {
			return false
		}
		s := c.InShape(i)
		return !(s.IsStatic() && len(s.Dims) == 1 && s.Dims[0].Val == 0)
	}
	switch {
	case nonEmpty(sizesIdx):
		sizes, ok := smKnownDims(c, sizesIdx)
		if !ok {
			for _, a := range axes {
				out.Dims[a] = Unknown()
			}
			c.SetTensor(0, dt, out)
			return nil
		}
		if len(sizes) != len(axes) {
			c.SetTensor(0, dt, RankShape(r))
			return c.Errorf(CodeValue, "sizes has %d entries for %d axes", len(sizes), len(axes))
		}
		policy := c.AttrString("keep_aspect_ratio_policy", "stretch")
		if c.Opset < 18 || policy == "stretch" {
			for i, a := range axes {
				out.Dims[a] = sizes[i]
				if sizes[i].Sym == "" && sizes[i].Val < 0 {
					out.Dims[a] = Unknown()
				}
			}
			break
		}
		// not_larger / not_smaller: one scale for all axes, then
		// out = round(scale * in).
		scale := 0.0
		for i, a := range axes {
			d := in.Dims[a]
			if !d.IsConcrete() || !sizes[i].IsConcrete() || d.Val == 0 {
				for _, a := range axes {
					out.Dims[a] = Unknown()
				}
				c.SetTensor(0, dt, out)
				return nil
			}
			s := float64(sizes[i].Val) / float64(d.Val)
			if i == 0 || (policy == "not_larger" && s < scale) || (policy == "not_smaller" && s > scale) {
				scale = s
			}
		}
		for _, a := range axes {
			out.Dims[a] = D(int64(math.Floor(float64(in.Dims[a].Val)*scale + 0.5)))
		}
	case nonEmpty(scalesIdx):
		scales, ok := c.ConstFloats(scalesIdx)
		if !ok {
			for _, a := range axes {
				out.Dims[a] = Unknown()
			}
			c.SetTensor(0, dt, out)
			return nil
		}
		if len(scales) != len(axes) {
			c.SetTensor(0, dt, RankShape(r))
			return c.Errorf(CodeValue, "scales has %d entries for %d axes", len(scales), len(axes))
		}
		for i, a := range axes {
			out.Dims[a] = scaleDim(in.Dims[a], scales[i])
		}
	default:
		c.SetTensor(0, dt, RankShape(r))
		return c.Errorf(CodeArity, "neither scales nor sizes given")
	}
	c.SetTensor(0, dt, out)
	return nil
}

// Upsample(X, scales) (opset 7..8: scales attribute; opset 1:
// height_scale/width_scale on NCHW): out = floor(in * scale).
func inferUpsample(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	if !in.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	r := len(in.Dims)
	var scales []float64
	switch {
	case c.Opset < 7:
		if r != 4 {
			c.SetTensor(0, dt, RankShape(r))
			return c.Errorf(CodeRank, "want rank 4, have %d", r)
		}
		scales = []float64{1, 1, float64(c.AttrFloat("height_scale", 1)), float64(c.AttrFloat("width_scale", 1))}
	case c.Opset < 9:
		f, ok := c.Node.AttrFloats("scales")
		if !ok {
			c.SetTensor(0, dt, RankShape(r))
			return c.Errorf(CodeAttr, "attribute scales missing")
		}
		for _, v := range f {
			scales = append(scales, float64(v))
		}
	default:
		v, ok := c.ConstFloats(1)
		if !ok {
			c.SetTensor(0, dt, RankShape(r))
			return nil
		}
		scales = v
	}
	if len(scales) != r {
		c.SetTensor(0, dt, RankShape(r))
		return errorf(CodeValue, "scales has %d entries for rank %d", len(scales), r)
	}
	out := in.Clone()
	for i := range out.Dims {
		out.Dims[i] = scaleDim(in.Dims[i], scales[i])
	}
	c.SetTensor(0, dt, out)
	return nil
}
