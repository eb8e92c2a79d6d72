package ir

// This file implements inference of the shape-manipulation ops: Shape,
// Size, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Expand, Tile,
// Concat, Split, Slice, Pad, Identity, DepthToSpace, SpaceToDepth, Col2Im
// and CenterCropPad. Those that merely rearrange or select elements carry
// the propagated integer values (Known) of small tensors, so that
// Reshape(x, Concat(Shape(x)[0], -1)) gets an exact shape.

import "fmt"

func registerInferShape() {
	Register(
		OpDef{Name: "Shape", Infer: inferShapeOp},
		OpDef{Name: "Size", Infer: inferSize},
		OpDef{Name: "Reshape", Infer: inferReshape},
		OpDef{Name: "Flatten", Infer: inferFlatten},
		OpDef{Name: "Squeeze", Infer: inferSqueeze},
		OpDef{Name: "Unsqueeze", Infer: inferUnsqueeze},
		OpDef{Name: "Transpose", Infer: inferTranspose},
		OpDef{Name: "Expand", Infer: inferExpand},
		OpDef{Name: "Tile", Infer: inferTile},
		OpDef{Name: "Concat", Infer: inferConcat},
		OpDef{Name: "Split", Infer: inferSplit},
		OpDef{Name: "Slice", Infer: inferSlice},
		OpDef{Name: "Pad", Infer: inferPad},
		OpDef{Name: "Identity", Infer: inferIdentity},
		OpDef{Name: "DepthToSpace", Infer: inferDepthToSpace},
		OpDef{Name: "SpaceToDepth", Infer: inferSpaceToDepth},
		OpDef{Name: "Col2Im", Infer: inferCol2Im},
		OpDef{Name: "CenterCropPad", Infer: inferCenterCropPad},
	)
}

// passKnown forwards input 0's Known values to output 0 (ops that keep the
// element order: Reshape, Squeeze, Unsqueeze, Flatten, Identity).
func passKnown(c *InferContext) {
	if k, ok := c.Known(0); ok {
		c.SetKnown(0, append([]Dim{}, k...))
	}
}

// Shape(data) -> int64[r]; opset 15 adds start/end (clamped, negative
// from the back).
func inferShapeOp(c *InferContext) error {
	s := c.InShape(0)
	if !s.Known {
		c.SetTensor(0, Int64, DimsShape(Unknown()))
		return nil
	}
	r := int64(len(s.Dims))
	start, end := int64(0), r
	if c.Opset >= 15 {
		start, end = c.AttrInt("start", 0), c.AttrInt("end", r)
		if start < 0 {
			start += r
		}
		if end < 0 {
			end += r
		}
		start, end = ClampInt(start, 0, r), ClampInt(end, 0, r)
	}
	n := end - start
	if n < 0 {
		n = 0
	}
	c.SetTensor(0, Int64, ShapeOf(n))
	if k, ok := smFullDims(Shape{Known: true, Dims: s.Dims[start : start+n]}); ok {
		c.SetKnown(0, k)
	}
	return nil
}

// Size(data) -> int64 scalar, the element count.
func inferSize(c *InferContext) error {
	c.SetTensor(0, Int64, ShapeOf())
	if s := c.InShape(0); s.IsFull() {
		c.SetKnown(0, []Dim{smMulDims(s.Dims)})
	}
	return nil
}

// Reshape(data, shape) (opset 1..4: shape attribute). "At most one
// dimension of the new shape can be -1 ... A dimension could also be 0, in
// which case the actual dimension value is unchanged (i.e. taken from the
// input tensor). If 'allowzero' is set, and the new shape includes 0, the
// dimension will be set explicitly to zero."
func inferReshape(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	var target []Dim
	ok := false
	if c.Opset < 5 {
		if v, has := c.AttrInts("shape"); has {
			target, ok = smIntsToDims(v), true
		}
	} else {
		target, ok = smKnownDims(c, 1)
	}
	passKnown(c)
	if !ok {
		if ss := c.InShape(1); c.Opset >= 5 && ss.Rank() == 1 && ss.Dims[0].IsConcrete() {
			c.SetTensor(0, dt, smRankShape(ss.Dims[0].Val))
		} else {
			c.SetTensor(0, dt, UnknownShape())
		}
		return nil
	}
	allowZero := c.Opset >= 14 && c.AttrInt("allowzero", 0) != 0
	out := make([]Dim, len(target))
	neg := -1
	for i, d := range target {
		switch {
		case d.Sym != "":
			out[i] = d
		case d.Val == 0 && !allowZero:
			switch {
			case !in.Known:
				out[i] = Unknown()
			case i < len(in.Dims):
				out[i] = in.Dims[i]
			default:
				c.SetTensor(0, dt, UnknownShape())
				return c.Errorf(CodeValue, "shape element %d is 0 but the input has rank %d", i, len(in.Dims))
			}
		case d.Val == -1:
			if neg >= 0 {
				c.SetTensor(0, dt, UnknownShape())
				return c.Errorf(CodeValue, "shape has more than one -1")
			}
			neg = i
			out[i] = Unknown()
		case d.Val < -1:
			c.SetTensor(0, dt, UnknownShape())
			return c.Errorf(CodeValue, "invalid shape element %d", d.Val)
		default:
			out[i] = d
		}
	}
	if neg >= 0 && in.Known {
		rest := make([]Dim, 0, len(out))
		for i, d := range out {
			if i != neg {
				rest = append(rest, d)
			}
		}
		tot, other := smProdOf(in.Dims), smProdOf(rest)
		if tot.ok && other.ok && len(tot.syms) == 0 && len(other.syms) == 0 && other.k != 0 && tot.k%other.k != 0 {
			c.SetTensor(0, dt, DimsShape(out...))
			return c.Errorf(CodeDims, "cannot reshape %s to %s", in, DimsShape(target...))
		}
		out[neg] = tot.div(other)
	}
	res := DimsShape(out...)
	if a, ok1 := in.NumElements(); ok1 {
		if b, ok2 := res.NumElements(); ok2 && a != b {
			if bs, ok := reshapeBatch(c, in, res, a, b); ok {
				c.SetTensor(0, dt, bs)
				return nil
			}
			c.SetTensor(0, dt, res)
			return c.Errorf(CodeDims, "cannot reshape %s (%d elements) to %s (%d elements)", in, a, res, b)
		}
	}
	c.SetTensor(0, dt, res)
	return nil
}

// reshapeBatch reads a fixed Reshape target as the exporter meant it when
// the caller set a batch (InferOptions.Batch = B > 1): the input's dim 0
// is B, the target's leading dim is 1 and the rest hold one sample (the
// input has B times the target's elements). The target is then
// [B, rest...], noted in InferResult.BatchReshapes; any other mismatch
// under a batch is noted in BatchRefused.
func reshapeBatch(c *InferContext, in, res Shape, a, b int64) (Shape, bool) {
	bt := c.st.opt.Batch
	if bt <= 1 || c.st.depth > 1 { // the main graph is depth 1
		return Shape{}, false
	}
	label := fmt.Sprintf("%s (Reshape)", NodeLabel(c.Node))
	if len(in.Dims) > 0 && in.Dims[0].IsConcrete() && in.Dims[0].Val == bt && len(res.Dims) > 0 &&
		res.Dims[0].IsConcrete() && res.Dims[0].Val == 1 && b > 0 && a == b*bt {
		out := res.Clone()
		out.Dims[0] = D(bt)
		c.st.res.BatchReshapes = append(c.st.res.BatchReshapes, fmt.Sprintf("%s: fixed target %s read as %s (its leading 1 is the batch the model was exported at)", label, res, out))
		return out, true
	}
	c.st.res.BatchRefused = append(c.st.res.BatchRefused, fmt.Sprintf("%s reshapes %s to the fixed %s", label, in, res))
	return Shape{}, false
}

// Flatten(input, axis=1) -> [d0*..*d(axis-1), d(axis)*..*d(n-1)].
func inferFlatten(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	passKnown(c)
	if !in.Known {
		c.SetTensor(0, dt, RankShape(2))
		return nil
	}
	r := len(in.Dims)
	a := c.AttrInt("axis", 1)
	if a < 0 {
		a += int64(r)
	}
	if a < 0 || a > int64(r) {
		c.SetTensor(0, dt, RankShape(2))
		return c.Errorf(CodeAxis, "axis %d out of range for rank %d", c.AttrInt("axis", 1), r)
	}
	c.SetTensor(0, dt, DimsShape(smMulDims(in.Dims[:a]), smMulDims(in.Dims[a:])))
	return nil
}

// squeezeAxes returns the axes of Squeeze/Unsqueeze: an attribute before
// opset 13, the optional second input after.
func squeezeAxes(c *InferContext) (axes []int64, given, known bool) {
	if c.Opset < 13 {
		v, ok := c.AttrInts("axes")
		return v, ok, true
	}
	if !c.HasInput(1) {
		return nil, false, true
	}
	v, ok := smInts(c, 1)
	return v, true, ok
}

// Squeeze(data, axes?): removes the listed size-1 dims, or all of them.
func inferSqueeze(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	passKnown(c)
	axes, given, known := squeezeAxes(c)
	if !in.Known || !known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	drop := make([]bool, len(in.Dims))
	if given {
		ax, err := smAxes(axes, len(in.Dims))
		if err != nil {
			c.SetTensor(0, dt, UnknownShape())
			return err
		}
		for _, a := range ax {
			if d := in.Dims[a]; d.IsConcrete() && d.Val != 1 {
				c.SetTensor(0, dt, UnknownShape())
				return c.Errorf(CodeDims, "cannot squeeze axis %d of size %d", a, d.Val)
			}
			drop[a] = true
		}
	} else {
		for i, d := range in.Dims {
			if !d.IsConcrete() {
				c.SetTensor(0, dt, UnknownShape())
				return nil
			}
			drop[i] = d.Val == 1
		}
	}
	out := []Dim{}
	for i, d := range in.Dims {
		if !drop[i] {
			out = append(out, d)
		}
	}
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// Unsqueeze(data, axes): inserts size-1 dims at the axes of the output.
func inferUnsqueeze(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	passKnown(c)
	axes, given, known := squeezeAxes(c)
	if !given {
		c.SetTensor(0, dt, UnknownShape())
		return c.Errorf(CodeAttr, "axes missing")
	}
	if !in.Known || !known {
		if in.Known && c.Opset >= 13 {
			if s := c.InShape(1); s.Rank() <= 1 && s.IsStatic() {
				n := int64(1)
				if s.Rank() == 1 {
					n = s.Dims[0].Val
				}
				c.SetTensor(0, dt, smRankShape(int64(len(in.Dims))+n))
				return nil
			}
		}
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	r := len(in.Dims) + len(axes)
	ax, err := smAxes(axes, r)
	if err != nil {
		c.SetTensor(0, dt, UnknownShape())
		return err
	}
	ins := make([]bool, r)
	for _, a := range ax {
		ins[a] = true
	}
	out := make([]Dim, r)
	j := 0
	for i := range out {
		if ins[i] {
			out[i] = D(1)
		} else {
			out[i] = in.Dims[j]
			j++
		}
	}
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// Transpose(data, perm=reversed).
func inferTranspose(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	perm, ok := c.AttrInts("perm")
	if !in.Known {
		if ok {
			c.SetTensor(0, dt, RankShape(len(perm)))
		} else {
			c.SetTensor(0, dt, UnknownShape())
		}
		return nil
	}
	r := len(in.Dims)
	if !ok {
		perm = make([]int64, r)
		for i := range perm {
			perm[i] = int64(r - 1 - i)
		}
	}
	if len(perm) != r {
		c.SetTensor(0, dt, UnknownShape())
		return c.Errorf(CodeAttr, "perm %v has %d entries for rank %d", perm, len(perm), r)
	}
	ax, err := smAxes(perm, r)
	if err != nil {
		c.SetTensor(0, dt, UnknownShape())
		return err
	}
	out := make([]Dim, r)
	for i, a := range ax {
		out[i] = in.Dims[a]
	}
	c.SetTensor(0, dt, DimsShape(out...))
	if k, ok := c.Known(0); ok {
		if dims, okD := in.Ints(); okD {
			if vals, ok := smTransposeKnown(k, dims, ax); ok {
				c.SetKnown(0, vals)
			}
		}
	}
	return nil
}

// Expand(input, shape): numpy broadcast of input's shape with shape.
func inferExpand(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	var target Shape
	if k, ok := smKnownDims(c, 1); ok {
		target = Shape{Known: true, Dims: make([]Dim, len(k))}
		for i, d := range k {
			if d.Sym == "" && d.Val < 0 {
				c.SetTensor(0, dt, UnknownShape())
				return c.Errorf(CodeValue, "invalid shape element %d", d.Val)
			}
			target.Dims[i] = d
		}
	} else if s := c.InShape(1); s.Rank() == 1 && s.Dims[0].IsConcrete() {
		target = smRankShape(s.Dims[0].Val)
	}
	out, err := BroadcastShapes(in, target)
	c.SetTensor(0, dt, out)
	if err != nil {
		return err
	}
	if k, ok := c.Known(0); ok && out.IsStatic() {
		if n, _ := out.NumElements(); n == int64(len(k)) {
			c.SetKnown(0, append([]Dim{}, k...))
		} else if len(k) == 1 && n <= c.MaxKnown() {
			rep := make([]Dim, n)
			for i := range rep {
				rep[i] = k[0]
			}
			c.SetKnown(0, rep)
		}
	}
	return nil
}

// Tile(input, repeats): out[i] = in[i] * repeats[i]. Opset 1 has scalar
// inputs tiles and axis instead: out[axis] = in[axis] * tiles.
func inferTile(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	if !in.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	if c.Opset < 6 {
		out := in.Clone()
		tiles, okT := smInt(c, 1)
		axis, okA := smInt(c, 2)
		if !okA {
			c.SetTensor(0, dt, RankShape(len(in.Dims)))
			return nil
		}
		a, err := smAxis(axis, len(in.Dims))
		if err != nil {
			c.SetTensor(0, dt, RankShape(len(in.Dims)))
			return err
		}
		out.Dims[a] = Unknown()
		if okT && tiles >= 0 {
			out.Dims[a] = smMulDims([]Dim{in.Dims[a], D(tiles)})
		}
		c.SetTensor(0, dt, out)
		return nil
	}
	rep, ok := smKnownDims(c, 1)
	if !ok {
		c.SetTensor(0, dt, RankShape(len(in.Dims)))
		return nil
	}
	if len(rep) != len(in.Dims) {
		c.SetTensor(0, dt, RankShape(len(in.Dims)))
		return c.Errorf(CodeValue, "repeats has %d entries for rank %d", len(rep), len(in.Dims))
	}
	out := make([]Dim, len(rep))
	for i, r := range rep {
		if r.Sym == "" && r.Val < 0 {
			out[i] = Unknown()
			continue
		}
		out[i] = smMulDims([]Dim{in.Dims[i], r})
	}
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// Concat(inputs..., axis): sums the axis dims; the others must agree.
func inferConcat(c *InferContext) error {
	dt := Undefined
	rank := -1
	for i := 0; i < c.NumInputs(); i++ {
		if !c.HasInput(i) {
			continue
		}
		if dt == Undefined {
			dt = c.InDType(i)
		}
		if r := c.InShape(i).Rank(); r >= 0 {
			if rank >= 0 && r != rank {
				c.SetTensor(0, dt, UnknownShape())
				return c.Errorf(CodeRank, "inputs have ranks %d and %d", rank, r)
			}
			rank = r
		}
	}
	if rank < 0 {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	axAttr := c.Attr("axis")
	if axAttr == nil && c.Opset >= 4 {
		c.SetTensor(0, dt, RankShape(rank))
		return c.Errorf(CodeAttr, "attribute axis missing")
	}
	axis, err := smAxis(c.AttrInt("axis", 1), rank)
	if err != nil {
		c.SetTensor(0, dt, RankShape(rank))
		return err
	}
	out := make([]Dim, rank)
	set := make([]bool, rank)
	sum := D(0)
	var known []Dim
	allKnown := rank == 1
	for i := 0; i < c.NumInputs(); i++ {
		if !c.HasInput(i) {
			continue
		}
		s := c.InShape(i)
		if k, ok := c.Known(i); ok && allKnown {
			known = append(known, k...)
		} else {
			allKnown = false
		}
		if !s.Known {
			sum = Unknown()
			continue
		}
		for j, d := range s.Dims {
			if j == axis {
				sum = DimAdd(sum, d)
				continue
			}
			switch {
			case !set[j]:
				out[j], set[j] = d, true
			case out[j].IsConcrete() && d.IsConcrete() && out[j].Val != d.Val:
				c.SetTensor(0, dt, RankShape(rank))
				return c.Errorf(CodeDims, "inputs disagree on dim %d: %d vs %d", j, out[j].Val, d.Val)
			case d.IsConcrete():
				out[j] = d
			case d.IsUnknown():
				// All inputs agree on this dim: keep what is known.
			case out[j].IsUnknown():
				out[j] = d
			case !out[j].IsConcrete() && !out[j].Equal(d):
				out[j] = Unknown()
			}
		}
	}
	out[axis] = sum
	for j := range out {
		if !set[j] && j != axis {
			out[j] = Unknown()
		}
	}
	c.SetTensor(0, dt, DimsShape(out...))
	if allKnown {
		c.SetKnown(0, known)
	} else if vals, ok := concatKnown(c, axis); ok {
		c.SetKnown(0, vals)
	}
	if t := concatConstFloats(c, dt, rank); t != nil {
		c.SetConst(0, t)
	}
	return nil
}

// concatConstFloats folds a Concat of small constant float32 or float64
// vectors into one constant (nil when it cannot): torch exports
// F.interpolate(scale_factor=s) as Resize(x, roi, Concat(Constant [1, 1],
// Constant [s, s])), and Resize's output shape needs those scales, which
// integer data propagation (Known) does not carry. At most MaxKnown
// elements, like Known.
func concatConstFloats(c *InferContext, dt DType, rank int) *Tensor {
	if rank != 1 || (dt != Float32 && dt != Float64) {
		return nil
	}
	var vals []float64
	for i := 0; i < c.NumInputs(); i++ {
		if !c.HasInput(i) {
			continue
		}
		t := c.Const(i)
		if t == nil || t.DType != dt || len(t.Dims) != 1 {
			return nil
		}
		v, err := t.Float64Values(c.st.opt.MaxKnown - int64(len(vals)))
		if err != nil {
			return nil
		}
		vals = append(vals, v...)
	}
	if len(vals) == 0 {
		return nil
	}
	t := &Tensor{DType: dt, Dims: []int64{int64(len(vals))}}
	if dt == Float64 {
		t.SetFloat64s(vals)
		return t
	}
	t.SetFloats(make([]float32, len(vals)))
	for i, x := range vals {
		t.Floats()[i] = float32(x)
	}
	return t
}

// concatKnown concatenates the Known values of N-D inputs with static
// shapes along axis.
func concatKnown(c *InferContext, axis int) ([]Dim, bool) {
	type part struct {
		k     []Dim
		chunk int64
	}
	var parts []part
	outer := int64(-1)
	for i := 0; i < c.NumInputs(); i++ {
		if !c.HasInput(i) {
			continue
		}
		k, ok := c.Known(i)
		dims, okD := c.InShape(i).Ints()
		if !ok || !okD || axis >= len(dims) {
			return nil, false
		}
		o, chunk := int64(1), int64(1)
		for j, d := range dims {
			if j < axis {
				o *= d
			} else {
				chunk *= d
			}
		}
		if outer >= 0 && o != outer || int64(len(k)) != o*chunk {
			return nil, false
		}
		outer = o
		parts = append(parts, part{k, chunk})
	}
	var out []Dim
	for b := int64(0); b < outer; b++ {
		for _, p := range parts {
			out = append(out, p.k[b*p.chunk:(b+1)*p.chunk]...)
		}
	}
	if out == nil {
		out = []Dim{}
	}
	return out, true
}

// Split(input, split?, axis=0, num_outputs?): split is an attribute before
// opset 13 (and an optional input in opset 1); opset 18 adds num_outputs,
// where "the last chunk will be smaller" when the dim is not divisible.
func inferSplit(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	n := c.NumOutputs()
	if !in.Known {
		for i := 0; i < n; i++ {
			c.SetTensor(i, dt, UnknownShape())
		}
		return nil
	}
	r := len(in.Dims)
	unknownAll := func() {
		for i := 0; i < n; i++ {
			c.SetTensor(i, dt, RankShape(r))
		}
	}
	axis, err := smAxis(c.AttrInt("axis", 0), r)
	if err != nil {
		unknownAll()
		return err
	}
	var sizes []Dim
	splitGiven := false
	switch {
	case c.Opset >= 13 || c.Opset == 1:
		if c.HasInput(1) {
			splitGiven = true
			if v, ok := smInts(c, 1); ok {
				sizes = smIntsToDims(v)
			}
		}
		if c.Opset == 1 && !splitGiven {
			if v, ok := c.AttrInts("split"); ok {
				splitGiven, sizes = true, smIntsToDims(v)
			}
		}
	default:
		if v, ok := c.AttrInts("split"); ok && len(v) > 0 {
			splitGiven, sizes = true, smIntsToDims(v)
		}
	}
	d := in.Dims[axis]
	if splitGiven && sizes == nil {
		for i := 0; i < n; i++ {
			s := in.Clone()
			s.Dims[axis] = Unknown()
			c.SetTensor(i, dt, s)
		}
		return nil
	}
	if splitGiven {
		if len(sizes) != n {
			unknownAll()
			return c.Errorf(CodeValue, "split has %d entries for %d outputs", len(sizes), n)
		}
		if d.IsConcrete() {
			var sum int64
			for _, s := range sizes {
				sum += s.Val
			}
			if sum != d.Val {
				unknownAll()
				return c.Errorf(CodeDims, "split sizes sum to %d, dim %d is %d", sum, axis, d.Val)
			}
		}
	} else {
		num := int64(n)
		uneven := false
		if c.Opset >= 18 {
			if a := c.Attr("num_outputs"); a != nil {
				num, uneven = a.I, true
				if num != int64(n) || num <= 0 {
					unknownAll()
					return c.Errorf(CodeArity, "num_outputs %d but the node has %d outputs", num, n)
				}
			}
		}
		sizes = make([]Dim, n)
		switch {
		case d.IsConcrete() && d.Val%num == 0:
			for i := range sizes {
				sizes[i] = D(d.Val / num)
			}
		case d.IsConcrete() && uneven:
			chunk := (d.Val + num - 1) / num
			for i := range sizes {
				sizes[i] = D(chunk)
			}
			last := d.Val - chunk*(num-1)
			if last < 0 {
				unknownAll()
				return c.Errorf(CodeDims, "cannot split %d into %d chunks", d.Val, num)
			}
			sizes[n-1] = D(last)
		case d.IsConcrete():
			unknownAll()
			return c.Errorf(CodeDims, "dim %d of size %d does not split evenly into %d", axis, d.Val, num)
		default:
			for i := range sizes {
				sizes[i] = smDivDim(d, D(num))
			}
		}
	}
	k, kok := c.Known(0)
	kok = kok && r == 1
	var off int64
	for i := 0; i < n; i++ {
		s := in.Clone()
		s.Dims[axis] = sizes[i]
		if sizes[i].Sym == "" && sizes[i].Val < 0 {
			c.SetTensor(i, dt, RankShape(r))
			return c.Errorf(CodeValue, "negative split size %d", sizes[i].Val)
		}
		c.SetTensor(i, dt, s)
		if kok && sizes[i].IsConcrete() && off+sizes[i].Val <= int64(len(k)) {
			c.SetKnown(i, append([]Dim{}, k[off:off+sizes[i].Val]...))
			off += sizes[i].Val
		} else {
			kok = false
		}
	}
	return nil
}

// Slice(data, starts, ends, axes?, steps?) (opset 1..9: attributes
// starts, ends, axes).
func inferSlice(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	if !in.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	r := len(in.Dims)
	var starts, ends []Dim
	var axes, steps []int64
	okS, okE, okA, okSt := false, false, true, true
	if c.Opset < 10 {
		var s, e []int64
		s, okS = c.AttrInts("starts")
		e, okE = c.AttrInts("ends")
		starts, ends = smIntsToDims(s), smIntsToDims(e)
		if a, ok := c.AttrInts("axes"); ok {
			axes = a
		}
	} else {
		starts, okS = smKnownDims(c, 1)
		ends, okE = smKnownDims(c, 2)
		if c.HasInput(3) {
			axes, okA = smInts(c, 3)
		}
		if c.HasInput(4) {
			steps, okSt = smInts(c, 4)
		}
	}
	if !okS || !okE || !okA || !okSt {
		out := in.Clone()
		if okA && axes != nil {
			if ax, err := smAxes(axes, r); err == nil {
				for _, a := range ax {
					out.Dims[a] = Unknown()
				}
				c.SetTensor(0, dt, out)
				return nil
			}
		}
		c.SetTensor(0, dt, RankShape(r))
		return nil
	}
	if len(starts) != len(ends) {
		c.SetTensor(0, dt, RankShape(r))
		return c.Errorf(CodeValue, "starts has %d entries, ends %d", len(starts), len(ends))
	}
	if axes == nil {
		axes = make([]int64, len(starts))
		for i := range axes {
			axes[i] = int64(i)
		}
	}
	if steps == nil {
		steps = make([]int64, len(starts))
		for i := range steps {
			steps[i] = 1
		}
	}
	if len(axes) != len(starts) || len(steps) != len(starts) {
		c.SetTensor(0, dt, RankShape(r))
		return c.Errorf(CodeValue, "starts, ends, axes and steps differ in length")
	}
	ax, err := smAxes(axes, r)
	if err != nil {
		c.SetTensor(0, dt, RankShape(r))
		return err
	}
	out := in.Clone()
	for i, a := range ax {
		st, en, step := starts[i], ends[i], steps[i]
		if step == 0 {
			c.SetTensor(0, dt, RankShape(r))
			return c.Errorf(CodeValue, "step 0 on axis %d", a)
		}
		d := in.Dims[a]
		switch {
		case st.Sym == "" && en.Sym == "":
			out.Dims[a] = smSliceDim(d, st.Val, en.Val, step)
		case st.Sym == "" && st.Val == 0 && step == 1 && en.Equal(d):
			out.Dims[a] = d
		case st.Sym == "" && st.Val >= 0 && step == 1 && en.IsSymbolic() && d.IsConcrete():
			out.Dims[a] = Unknown()
		default:
			out.Dims[a] = Unknown()
		}
	}
	c.SetTensor(0, dt, out)
	// Data propagation: slice the Known elements.
	if k, ok := c.Known(0); ok {
		if dims, okD := in.Ints(); okD {
			sel := make([][]int64, r)
			for i, a := range ax {
				if starts[i].Sym != "" || ends[i].Sym != "" {
					return nil
				}
				s, e, st := smSliceBounds(dims[a], starts[i].Val, ends[i].Val, steps[i])
				list := []int64{}
				for j := s; (st > 0 && j < e) || (st < 0 && j > e); j += st {
					list = append(list, j)
				}
				sel[a] = list
			}
			if vals, ok := smSelect(k, dims, sel); ok {
				c.SetKnown(0, vals)
			}
		}
	}
	return nil
}

// Pad(data, pads, constant_value?, axes?) (opset 1: paddings attribute;
// 2..10: pads attribute): out[i] = in[i] + pads[i] + pads[i+n].
func inferPad(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	if !in.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	r := len(in.Dims)
	var pads []int64
	ok := false
	switch {
	case c.Opset < 2:
		pads, ok = c.AttrInts("paddings")
	case c.Opset < 11:
		pads, ok = c.AttrInts("pads")
	default:
		pads, ok = smInts(c, 1)
	}
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if c.Opset >= 18 && c.HasInput(3) {
		a, okA := smInts(c, 3)
		if !okA {
			c.SetTensor(0, dt, RankShape(r))
			return nil
		}
		var err error
		if axes, err = smAxes(a, r); err != nil {
			c.SetTensor(0, dt, RankShape(r))
			return err
		}
	}
	if !ok {
		c.SetTensor(0, dt, RankShape(r))
		return nil
	}
	n := len(axes)
	if len(pads) != 2*n {
		c.SetTensor(0, dt, RankShape(r))
		return c.Errorf(CodeValue, "pads has %d entries, want %d", len(pads), 2*n)
	}
	out := in.Clone()
	for i, a := range axes {
		d := smAddInt(smAddInt(in.Dims[a], pads[i]), pads[i+n])
		if in.Dims[a].IsConcrete() && in.Dims[a].Val+pads[i]+pads[i+n] < 0 {
			c.SetTensor(0, dt, RankShape(r))
			return c.Errorf(CodeDims, "pads make dim %d negative", a)
		}
		out.Dims[a] = d
	}
	c.SetTensor(0, dt, out)
	return nil
}

// Identity(input): same type (tensors, sequences and optionals).
func inferIdentity(c *InferContext) error {
	c.SetOutput(0, c.InType(0).Clone())
	passKnown(c)
	if t := c.Const(0); t != nil {
		if o := c.Node.Output(0); o != nil && o.Const == nil {
			o.Const = t
		}
	}
	return nil
}

// depthSpace handles DepthToSpace ([N,C,H,W] -> [N,C/b²,H*b,W*b]) and
// SpaceToDepth ([N,C,H,W] -> [N,C*b²,H/b,W/b]).
func depthSpace(c *InferContext, toSpace bool) error {
	in, dt := c.InShape(0), c.InDType(0)
	b := c.AttrInt("blocksize", 0)
	if !in.Known {
		c.SetTensor(0, dt, RankShape(4))
		return nil
	}
	if len(in.Dims) != 4 || b <= 0 {
		c.SetTensor(0, dt, RankShape(4))
		return c.Errorf(CodeRank, "want rank 4 and blocksize > 0, have %s and %d", in, b)
	}
	bb := D(b * b)
	n, ch, h, w := in.Dims[0], in.Dims[1], in.Dims[2], in.Dims[3]
	var out Shape
	if toSpace {
		if ch.IsConcrete() && ch.Val%(b*b) != 0 {
			c.SetTensor(0, dt, RankShape(4))
			return c.Errorf(CodeDims, "channels %d not divisible by blocksize² %d", ch.Val, b*b)
		}
		out = DimsShape(n, smDivDim(ch, bb), smMulDims([]Dim{h, D(b)}), smMulDims([]Dim{w, D(b)}))
	} else {
		if (h.IsConcrete() && h.Val%b != 0) || (w.IsConcrete() && w.Val%b != 0) {
			c.SetTensor(0, dt, RankShape(4))
			return c.Errorf(CodeDims, "spatial dims %s not divisible by blocksize %d", in, b)
		}
		out = DimsShape(n, smMulDims([]Dim{ch, bb}), smDivDim(h, D(b)), smDivDim(w, D(b)))
	}
	c.SetTensor(0, dt, out)
	return nil
}

func inferDepthToSpace(c *InferContext) error { return depthSpace(c, true) }
func inferSpaceToDepth(c *InferContext) error { return depthSpace(c, false) }

// Col2Im(input [N, C*prod(block), L], image_shape, block_shape) ->
// [N, C, image_shape...].
func inferCol2Im(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	img, okI := smInts(c, 1)
	block, okB := smInts(c, 2)
	if !okI {
		if s := c.InShape(1); s.Rank() == 1 && s.Dims[0].IsConcrete() {
			c.SetTensor(0, dt, smRankShape(2+s.Dims[0].Val))
		} else {
			c.SetTensor(0, dt, UnknownShape())
		}
		return nil
	}
	out := make([]Dim, 2+len(img))
	out[0], out[1] = Unknown(), Unknown()
	if in.Known && len(in.Dims) == 3 {
		out[0] = in.Dims[0]
		if okB {
			p := int64(1)
			for _, b := range block {
				p *= b
			}
			if p > 0 {
				out[1] = smDivDim(in.Dims[1], D(p))
			}
		}
	}
	for i, v := range img {
		out[2+i] = D(v)
	}
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// CenterCropPad(input, shape, axes?): the listed axes take the sizes in
// shape.
func inferCenterCropPad(c *InferContext) error {
	in, dt := c.InShape(0), c.InDType(0)
	if !in.Known {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	r := len(in.Dims)
	sh, ok := smKnownDims(c, 1)
	axes, hasAxes := c.AttrInts("axes")
	if !hasAxes {
		axes = make([]int64, r)
		for i := range axes {
			axes[i] = int64(i)
		}
	}
	ax, err := smAxes(axes, r)
	if err != nil {
		c.SetTensor(0, dt, RankShape(r))
		return err
	}
	out := in.Clone()
	if !ok || len(sh) != len(ax) {
		for _, a := range ax {
			out.Dims[a] = Unknown()
		}
		c.SetTensor(0, dt, out)
		if ok {
			return errorf(CodeValue, "shape has %d entries for %d axes", len(sh), len(ax))
		}
		return nil
	}
	for i, a := range ax {
		out.Dims[a] = sh[i]
		if sh[i].Sym == "" && sh[i].Val < 0 {
			out.Dims[a] = Unknown()
		}
	}
	c.SetTensor(0, dt, out)
	return nil
}
