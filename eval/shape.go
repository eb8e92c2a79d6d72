package eval

// This file implements shape and data-movement ops: Reshape, Flatten,
// Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Expand, Tile, Shape,
// Size, Identity, Constant, ConstantOfShape, Range, Pad, DepthToSpace,
// SpaceToDepth, EyeLike, Trilu, OneHot, NonZero, Compress, ReverseSequence,
// CenterCropPad and Dropout (inference).

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerShape() {
	register(kernelReshape, "Reshape")
	register(kernelFlatten, "Flatten")
	register(kernelSqueeze, "Squeeze")
	register(kernelUnsqueeze, "Unsqueeze")
	register(kernelTranspose, "Transpose")
	register(kernelConcat, "Concat")
	register(kernelSplit, "Split")
	register(kernelSlice, "Slice")
	register(kernelExpand, "Expand")
	register(kernelTile, "Tile")
	register(kernelShape, "Shape")
	register(func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		return []*Tensor{scalarI(int64(x.Len()))}, nil
	}, "Size")
	registerValue(func(c *Ctx, in []Value) ([]Value, error) {
		if len(in) == 0 || in[0] == nil {
			return nil, c.Errorf("missing input 0")
		}
		return []Value{in[0]}, nil
	}, "Identity")
	register(kernelConstant, "Constant")
	register(kernelConstantOfShape, "ConstantOfShape")
	register(kernelRange, "Range")
	register(kernelPad, "Pad")
	register(kernelDepthToSpace, "DepthToSpace")
	register(kernelSpaceToDepth, "SpaceToDepth")
	register(kernelEyeLike, "EyeLike")
	register(kernelTrilu, "Trilu")
	register(kernelOneHot, "OneHot")
	register(kernelNonZero, "NonZero")
	register(kernelCompress, "Compress")
	register(kernelReverseSequence, "ReverseSequence")
	register(kernelCenterCropPad, "CenterCropPad")
	register(kernelDropout, "Dropout")
}

// axesInput reads axes from an attribute (before opset `since`) or from
// input i. ok is false when none are given.
func axesInput(c *Ctx, in []*Tensor, i int, since int64) ([]int64, bool, error) {
	if c.Opset < since {
		a, ok := c.Ints("axes")
		return a, ok, nil
	}
	if i < len(in) && in[i] != nil {
		v, err := ints(in[i], "axes")
		return v, true, err
	}
	return nil, false, nil
}

func kernelReshape(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var spec []int64
	if c.Opset < 5 {
		spec, _ = c.Ints("shape")
	} else {
		s, err := need(in, 1, "shape")
		if err != nil {
			return nil, err
		}
		if spec, err = ints(s, "shape"); err != nil {
			return nil, err
		}
	}
	shape, err := reshapeDims(x.Shape, spec, c.Int("allowzero", 0) != 0)
	if err != nil {
		return nil, err
	}
	return []*Tensor{x.reshaped(shape)}, nil
}

func reshapeDims(in []int, spec []int64, allowZero bool) ([]int, error) {
	out := make([]int, len(spec))
	infer := -1
	prod := 1
	for i, d := range spec {
		switch {
		case d == -1:
			if infer >= 0 {
				return nil, errf("shape %v has more than one -1", spec)
			}
			infer = i
			continue
		case d == 0 && !allowZero:
			if i >= len(in) {
				return nil, errf("shape %v copies dim %d of a rank-%d input", spec, i, len(in))
			}
			out[i] = in[i]
		case d < 0:
			return nil, errf("invalid shape %v", spec)
		default:
			out[i] = int(d)
		}
		prod *= out[i]
	}
	n := numel(in)
	if infer >= 0 {
		if prod == 0 || n%prod != 0 {
			return nil, errf("cannot reshape %v to %v", in, spec)
		}
		out[infer] = n / prod
	} else if prod != n {
		return nil, errf("cannot reshape %v (%d elements) to %v", in, n, spec)
	}
	return out, nil
}

func kernelFlatten(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	axis := int(c.Int("axis", 1))
	if axis < 0 {
		axis += x.Rank()
	}
	if axis < 0 || axis > x.Rank() {
		return nil, c.Errorf("axis %d out of range for rank %d", c.Int("axis", 1), x.Rank())
	}
	return []*Tensor{x.reshaped([]int{numel(x.Shape[:axis]), numel(x.Shape[axis:])})}, nil
}

func kernelSqueeze(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	axes, ok, err := axesInput(c, in, 1, 13)
	if err != nil {
		return nil, err
	}
	drop := make([]bool, x.Rank())
	if !ok {
		for i, d := range x.Shape {
			drop[i] = d == 1
		}
	}
	for _, a := range axes {
		ax, err := normAxis(a, x.Rank())
		if err != nil {
			return nil, err
		}
		if x.Shape[ax] != 1 {
			return nil, c.Errorf("cannot squeeze axis %d of size %d", a, x.Shape[ax])
		}
		drop[ax] = true
	}
	var shape []int
	for i, d := range x.Shape {
		if !drop[i] {
			shape = append(shape, d)
		}
	}
	return []*Tensor{x.reshaped(shape)}, nil
}

func kernelUnsqueeze(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	axes, ok, err := axesInput(c, in, 1, 13)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, c.Errorf("missing axes")
	}
	r := x.Rank() + len(axes)
	ins := make([]bool, r)
	for _, a := range axes {
		ax, err := normAxis(a, r)
		if err != nil {
			return nil, err
		}
		if ins[ax] {
			return nil, c.Errorf("repeated axis %d", a)
		}
		ins[ax] = true
	}
	shape := make([]int, r)
	j := 0
	for i := range shape {
		if ins[i] {
			shape[i] = 1
		} else {
			shape[i] = x.Shape[j]
			j++
		}
	}
	return []*Tensor{x.reshaped(shape)}, nil
}

// transposeIndex returns the source index of every output element of x
// transposed by perm.
func transposeIndex(shape []int, perm []int) ([]int, []int) {
	r := len(shape)
	out := make([]int, r)
	for i, p := range perm {
		out[i] = shape[p]
	}
	st := strides(shape)
	pst := make([]int, r)
	for i, p := range perm {
		pst[i] = st[p]
	}
	return out, stridedOffsets(out, pst, 0)
}

func (c *Ctx) transpose(x *Tensor, perm []int) (*Tensor, error) {
	if len(perm) != x.Rank() {
		return nil, c.Errorf("perm %v does not match rank %d", perm, x.Rank())
	}
	seen := make([]bool, len(perm))
	for _, p := range perm {
		if p < 0 || p >= len(perm) || seen[p] {
			return nil, c.Errorf("invalid perm %v", perm)
		}
		seen[p] = true
	}
	if err := c.check(x.DType, x.Shape); err != nil {
		return nil, err
	}
	shape, idx := transposeIndex(x.Shape, perm)
	return c.take(x, shape, idx)
}

func kernelTranspose(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	perm := make([]int, x.Rank())
	if p, ok := c.Ints("perm"); ok {
		if len(p) != x.Rank() {
			return nil, c.Errorf("perm %v does not match rank %d", p, x.Rank())
		}
		for i, v := range p {
			a, err := normAxis(v, x.Rank())
			if err != nil {
				return nil, err
			}
			perm[i] = a
		}
	} else {
		for i := range perm {
			perm[i] = x.Rank() - 1 - i
		}
	}
	out, err := c.transpose(x, perm)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

// concat joins tensors along axis.
func (c *Ctx) concat(ts []*Tensor, axis int) (*Tensor, error) {
	first := ts[0]
	shape := append([]int{}, first.Shape...)
	shape[axis] = 0
	for _, t := range ts {
		if t.DType != first.DType || t.Rank() != first.Rank() {
			return nil, c.Errorf("cannot concatenate %s and %s", first, t)
		}
		for i := range t.Shape {
			if i != axis && t.Shape[i] != first.Shape[i] {
				return nil, c.Errorf("cannot concatenate %s and %s on axis %d", first, t, axis)
			}
		}
		shape[axis] += t.Shape[axis]
	}
	out, err := c.alloc(first.DType, shape)
	if err != nil {
		return nil, err
	}
	outer := numel(shape[:axis])
	inner := numel(shape[axis+1:])
	pos := 0
	for o := 0; o < outer; o++ {
		for _, t := range ts {
			blk := t.Shape[axis] * inner
			base := o * blk
			for j := 0; j < blk; j++ {
				copyElem(out, pos, t, base+j)
				pos++
			}
		}
	}
	return out, nil
}

func kernelConcat(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	var ts []*Tensor
	for _, t := range in {
		if t != nil {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil, c.Errorf("no inputs")
	}
	axis, err := normAxis(c.Int("axis", 0), ts[0].Rank())
	if err != nil {
		return nil, err
	}
	out, err := c.concat(ts, axis)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

// sliceAxis returns the part [start, start+size) of x along axis.
func (c *Ctx) sliceAxis(x *Tensor, axis, start, size int) (*Tensor, error) {
	shape := append([]int{}, x.Shape...)
	shape[axis] = size
	out, err := c.alloc(x.DType, shape)
	if err != nil {
		return nil, err
	}
	outer := numel(x.Shape[:axis])
	inner := numel(x.Shape[axis+1:])
	pos := 0
	for o := 0; o < outer; o++ {
		base := (o*x.Shape[axis] + start) * inner
		for j := 0; j < size*inner; j++ {
			copyElem(out, pos, x, base+j)
			pos++
		}
	}
	return out, nil
}

func kernelSplit(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	axis, err := normAxis(c.Int("axis", 0), x.Rank())
	if err != nil {
		return nil, err
	}
	nout := len(c.Node.Outputs)
	var sizes []int64
	if c.Opset < 13 {
		sizes, _ = c.Ints("split")
	} else if len(in) > 1 && in[1] != nil {
		if sizes, err = ints(in[1], "split"); err != nil {
			return nil, err
		}
	}
	dim := x.Shape[axis]
	if sizes == nil {
		n := nout
		if k := c.Int("num_outputs", 0); k > 0 {
			n = int(k)
		}
		if n <= 0 {
			return nil, c.Errorf("no outputs")
		}
		chunk := (dim + n - 1) / n
		if c.Attr("num_outputs") == nil && dim%n != 0 {
			return nil, c.Errorf("cannot split %d into %d equal parts", dim, n)
		}
		for i := 0; i < n; i++ {
			s := min(chunk, dim-i*chunk)
			if s < 0 {
				s = 0
			}
			sizes = append(sizes, int64(s))
		}
	}
	total := int64(0)
	for _, s := range sizes {
		if s < 0 {
			return nil, c.Errorf("negative split %v", sizes)
		}
		total += s
	}
	if total != int64(dim) {
		return nil, c.Errorf("split %v does not sum to %d", sizes, dim)
	}
	outs := make([]*Tensor, len(sizes))
	start := 0
	for i, s := range sizes {
		if outs[i], err = c.sliceAxis(x, axis, start, int(s)); err != nil {
			return nil, err
		}
		start += int(s)
	}
	return outs, nil
}

func kernelSlice(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var err error
	var starts, ends, axes, steps []int64
	if c.Opset < 10 {
		starts, _ = c.Ints("starts")
		ends, _ = c.Ints("ends")
		axes, _ = c.Ints("axes")
	} else {
		for i, p := range []*[]int64{&starts, &ends, &axes, &steps} {
			if i+1 < len(in) && in[i+1] != nil {
				if *p, err = ints(in[i+1], "slice parameter"); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(starts) != len(ends) {
		return nil, c.Errorf("starts and ends differ in length")
	}
	if axes == nil {
		for i := range starts {
			axes = append(axes, int64(i))
		}
	}
	if steps == nil {
		steps = make([]int64, len(starts))
		for i := range steps {
			steps[i] = 1
		}
	}
	if len(axes) != len(starts) || len(steps) != len(starts) {
		return nil, c.Errorf("slice parameters differ in length")
	}
	r := x.Rank()
	st := make([]int, r)
	sp := make([]int, r)
	shape := append([]int{}, x.Shape...)
	for i := range sp {
		sp[i] = 1
	}
	for i := range starts {
		ax, err := normAxis(axes[i], r)
		if err != nil {
			return nil, err
		}
		d := int64(x.Shape[ax])
		s, e, step := starts[i], ends[i], steps[i]
		if step == 0 {
			return nil, c.Errorf("step 0")
		}
		if s < 0 {
			s += d
		}
		if e < 0 {
			e += d
		}
		var n int64
		if step > 0 {
			s = ir.ClampInt(s, 0, d)
			e = ir.ClampInt(e, 0, d)
			if e > s {
				n = (e - s + step - 1) / step
			}
		} else if d > 0 {
			s = ir.ClampInt(s, 0, d-1)
			e = ir.ClampInt(e, -1, d-1)
			if s > e {
				n = (s - e - step - 1) / -step
			}
		}
		st[ax], sp[ax], shape[ax] = int(s), int(step), int(n)
	}
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	// Element ctr of the output is element st + ctr*sp of x.
	xs := strides(x.Shape)
	base, step := 0, make([]int, r)
	for d := range step {
		base += st[d] * xs[d]
		step[d] = sp[d] * xs[d]
	}
	out, err := c.take(x, shape, stridedOffsets(shape, step, base))
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func (c *Ctx) broadcastTo(x *Tensor, shape []int) (*Tensor, error) {
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	idx := bcastIndex(shape, x.Shape)
	if idx == nil {
		return x, nil
	}
	return c.take(x, shape, idx)
}

// shapeInput reads a shape input (Expand, ConstantOfShape): integers, none
// negative.
func (c *Ctx) shapeInput(s *Tensor) ([]int, error) {
	spec, err := ints(s, "shape")
	if err != nil {
		return nil, err
	}
	for _, d := range spec {
		if d < 0 {
			return nil, c.Errorf("negative dim in shape %v", spec)
		}
	}
	return toInts(spec), nil
}

func kernelExpand(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, s := in[0], in[1]
	spec, err := c.shapeInput(s)
	if err != nil {
		return nil, err
	}
	shape, err := broadcastShapes(x.Shape, spec)
	if err != nil {
		return nil, err
	}
	out, err := c.broadcastTo(x, shape)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelTile(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, rt := in[0], in[1]
	reps, err := ints(rt, "repeats")
	if err != nil {
		return nil, err
	}
	if len(reps) != x.Rank() {
		return nil, c.Errorf("repeats %v do not match rank %d", reps, x.Rank())
	}
	shape := make([]int, x.Rank())
	for i, r := range reps {
		if r < 0 {
			return nil, c.Errorf("negative repeat %d", r)
		}
		shape[i] = x.Shape[i] * int(r)
	}
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	idx := mappedOffsets(shape, x.Shape, 0, func(d, v int) int { return v % x.Shape[d] })
	out, err := c.take(x, shape, idx)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelShape(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	r := int64(x.Rank())
	s, e := c.Int("start", 0), c.Int("end", r)
	if s < 0 {
		s += r
	}
	if e < 0 {
		e += r
	}
	s, e = ir.ClampInt(s, 0, r), ir.ClampInt(e, 0, r)
	var vals []int64
	for i := s; i < e; i++ {
		vals = append(vals, int64(x.Shape[i]))
	}
	return []*Tensor{NewInt64([]int{len(vals)}, append([]int64{}, vals...))}, nil
}

func kernelConstant(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	for _, a := range c.attrs {
		switch a.Name {
		case "value":
			if a.T == nil {
				return nil, c.Errorf("value attribute without a tensor")
			}
			t, err := FromIR(a.T, c.e.opt.MaxMemory)
			if err != nil {
				return nil, err
			}
			return []*Tensor{t}, nil
		case "value_float":
			return []*Tensor{{DType: ir.Float32, Shape: []int{}, F: []float32{a.F}}}, nil
		case "value_floats":
			return []*Tensor{{DType: ir.Float32, Shape: []int{len(a.Floats)}, F: append([]float32{}, a.Floats...)}}, nil
		case "value_int":
			return []*Tensor{scalarI(a.I)}, nil
		case "value_ints":
			return []*Tensor{NewInt64([]int{len(a.Ints)}, append([]int64{}, a.Ints...))}, nil
		case "value_string":
			return []*Tensor{{DType: ir.String, Shape: []int{}, S: []string{string(a.S)}}}, nil
		case "value_strings":
			t := &Tensor{DType: ir.String, Shape: []int{len(a.Strings)}}
			for _, s := range a.Strings {
				t.S = append(t.S, string(s))
			}
			return []*Tensor{t}, nil
		case "sparse_value":
			if a.ST == nil {
				return nil, c.Errorf("sparse_value attribute without a tensor")
			}
			t, err := c.densify(a.ST)
			if err != nil {
				return nil, err
			}
			return []*Tensor{t}, nil
		}
	}
	return nil, c.Errorf("no value attribute")
}

// densify expands a sparse tensor.
func (c *Ctx) densify(st *ir.SparseTensor) (*Tensor, error) {
	if st.Values == nil || st.Indices == nil {
		return nil, c.Errorf("sparse tensor without values or indices")
	}
	vals, err := FromIR(st.Values, c.e.opt.MaxMemory)
	if err != nil {
		return nil, err
	}
	idxT, err := FromIR(st.Indices, c.e.opt.MaxMemory)
	if err != nil {
		return nil, err
	}
	shape := toInts(st.Dims)
	out, err := c.alloc(vals.DType, shape)
	if err != nil {
		return nil, err
	}
	n := vals.Len()
	ix := idxT.Int64s()
	st2 := strides(shape)
	total := out.Len()
	for i := 0; i < n; i++ {
		var off int
		if idxT.Rank() == 1 {
			off = int(ix[i])
		} else {
			for d := range shape {
				off += int(ix[i*len(shape)+d]) * st2[d]
			}
		}
		if off < 0 || off >= total {
			return nil, c.Errorf("sparse index out of range")
		}
		copyElem(out, off, vals, i)
	}
	return out, nil
}

func kernelConstantOfShape(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	s := in[0]
	shape, err := c.shapeInput(s)
	if err != nil {
		return nil, err
	}
	val := &Tensor{DType: ir.Float32, Shape: []int{1}, F: []float32{0}}
	if t := c.Attr("value"); t != nil && t.T != nil {
		if val, err = FromIR(t.T, 1<<20); err != nil {
			return nil, err
		}
		if val.Len() != 1 {
			return nil, c.Errorf("value must have one element")
		}
	}
	if err := c.check(val.DType, shape); err != nil {
		return nil, err
	}
	out, err := c.take(val, shape, make([]int, numel(shape)))
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelRange(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	var s [3]*Tensor
	for i := range s {
		t, err := need(in, i, "range parameter")
		if err != nil {
			return nil, err
		}
		if t.Len() != 1 {
			return nil, c.Errorf("range parameter %d must be a scalar", i)
		}
		s[i] = t
	}
	dt := s[0].DType
	if s[0].cls() == clsI {
		start, limit, delta := s[0].I[0], s[1].I[0], s[2].I[0]
		if delta == 0 {
			return nil, c.Errorf("delta is 0")
		}
		n := int64(math.Ceil(float64(limit-start) / float64(delta)))
		if n < 0 {
			n = 0
		}
		out, err := c.alloc(dt, []int{int(n)})
		if err != nil {
			return nil, err
		}
		for i := range out.I {
			out.I[i] = start + int64(i)*delta
		}
		return []*Tensor{out}, nil
	}
	start, limit, delta := s[0].f64()[0], s[1].f64()[0], s[2].f64()[0]
	if delta == 0 {
		return nil, c.Errorf("delta is 0")
	}
	n := math.Ceil((limit - start) / delta)
	if n < 0 || math.IsNaN(n) {
		n = 0
	}
	if n > 1<<40 {
		return nil, c.Errorf("range of %g elements", n)
	}
	out, err := c.alloc(dt, []int{int(n)})
	if err != nil {
		return nil, err
	}
	if dt == ir.Float32 {
		// Accumulate in float32 as the reference does (start + i*delta).
		st, de := float32(start), float32(delta)
		for i := range out.F {
			out.F[i] = st + float32(i)*de
		}
		return []*Tensor{out}, nil
	}
	for i := 0; i < out.Len(); i++ {
		out.setF(i, start+float64(i)*delta)
	}
	return []*Tensor{out}, nil
}

func kernelPad(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	mode := c.Str("mode", "constant")
	r := x.Rank()
	var pads []int64
	cval := &Tensor{DType: x.DType, Shape: []int{}}
	cval = newTensor(x.DType, []int{})
	if c.Opset < 11 {
		pads, _ = c.Ints("pads")
		if pads == nil {
			pads, _ = c.Ints("paddings")
		}
		v := float64(c.Float("value", 0))
		if isFloatCls(cval) {
			cval.setF(0, v)
		}
	} else {
		p, err := need(in, 1, "pads")
		if err != nil {
			return nil, err
		}
		if pads, err = ints(p, "pads"); err != nil {
			return nil, err
		}
		if len(in) > 2 && in[2] != nil && in[2].Len() == 1 {
			if in[2].DType != x.DType {
				return nil, c.Errorf("constant_value type %s differs from data type %s", in[2].DType, x.DType)
			}
			cval = in[2]
		}
		if len(in) > 3 && in[3] != nil {
			axes, err := ints(in[3], "axes")
			if err != nil {
				return nil, err
			}
			if len(pads) != 2*len(axes) {
				return nil, c.Errorf("pads %v do not match axes %v", pads, axes)
			}
			full := make([]int64, 2*r)
			for i, a := range axes {
				ax, err := normAxis(a, r)
				if err != nil {
					return nil, err
				}
				full[ax] = pads[i]
				full[ax+r] = pads[i+len(axes)]
			}
			pads = full
		}
	}
	if len(pads) != 2*r {
		return nil, c.Errorf("pads %v do not match rank %d", pads, r)
	}
	shape := make([]int, r)
	for i := range shape {
		shape[i] = x.Shape[i] + int(pads[i]) + int(pads[i+r])
		if shape[i] < 0 {
			return nil, c.Errorf("pads %v make a negative dim", pads)
		}
	}
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	if mode != "constant" && x.Len() == 0 && numel(shape) > 0 {
		return nil, c.Errorf("cannot %s-pad an empty tensor", mode)
	}
	// Index -1 selects the constant value (appended at the end).
	src := x
	nx := x.Len()
	ext, err := c.concat([]*Tensor{x.reshaped([]int{nx}), cval.reshaped([]int{1})}, 0)
	if err != nil {
		return nil, err
	}
	src = ext
	idx := mappedOffsets(shape, x.Shape, nx, func(d, v int) int { return padSource(v-int(pads[d]), x.Shape[d], mode) })
	if mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap" {
		return nil, c.Errorf("unknown mode %q", mode)
	}
	out, err := c.take(src, shape, idx)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

// padSource maps position p of a dim of size n, padded in mode, to the
// position it copies; -1 selects the constant value.
func padSource(p, n int, mode string) int {
	if p >= 0 && p < n {
		return p
	}
	if n == 0 {
		return -1 // nothing to copy: only reached with nothing to write
	}
	switch mode {
	case "reflect":
		if n == 1 {
			return 0
		}
		period := 2 * (n - 1)
		p = ((p % period) + period) % period
		if p >= n {
			p = period - p
		}
		return p
	case "edge":
		return max(0, min(n-1, p))
	case "wrap":
		return ((p % n) + n) % n
	}
	return -1
}

func kernelDepthToSpace(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var err error
	if x.Rank() != 4 {
		return nil, c.Errorf("input must be 4-D, got %s", x)
	}
	b := int(c.Int("blocksize", 0))
	n, ch, h, w := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	if b <= 0 || ch%(b*b) != 0 {
		return nil, c.Errorf("blocksize %d does not divide %d channels", b, ch)
	}
	var tmp *Tensor
	if c.Str("mode", "DCR") == "CRD" {
		tmp, err = c.transpose(x.reshaped([]int{n, ch / (b * b), b, b, h, w}), []int{0, 1, 4, 2, 5, 3})
	} else {
		tmp, err = c.transpose(x.reshaped([]int{n, b, b, ch / (b * b), h, w}), []int{0, 3, 4, 1, 5, 2})
	}
	if err != nil {
		return nil, err
	}
	return []*Tensor{tmp.reshaped([]int{n, ch / (b * b), h * b, w * b})}, nil
}

func kernelSpaceToDepth(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() != 4 {
		return nil, c.Errorf("input must be 4-D, got %s", x)
	}
	b := int(c.Int("blocksize", 0))
	n, ch, h, w := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	if b <= 0 || h%b != 0 || w%b != 0 {
		return nil, c.Errorf("blocksize %d does not divide %dx%d", b, h, w)
	}
	tmp, err := c.transpose(x.reshaped([]int{n, ch, h / b, b, w / b, b}), []int{0, 3, 5, 1, 2, 4})
	if err != nil {
		return nil, err
	}
	return []*Tensor{tmp.reshaped([]int{n, ch * b * b, h / b, w / b})}, nil
}

func kernelEyeLike(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() != 2 {
		return nil, c.Errorf("input must be 2-D, got %s", x)
	}
	dt := x.DType
	if a := c.Attr("dtype"); a != nil {
		dt = ir.DType(a.I)
	}
	out, err := c.alloc(dt, x.Shape)
	if err != nil {
		return nil, err
	}
	k := int(c.Int("k", 0))
	for i := 0; i < x.Shape[0]; i++ {
		j := i + k
		if j >= 0 && j < x.Shape[1] {
			setOne(out, i*x.Shape[1]+j)
		}
	}
	return []*Tensor{out}, nil
}

func setOne(t *Tensor, i int) {
	switch t.cls() {
	case clsF:
		t.F[i] = 1
	case clsD:
		t.D[i] = 1
	case clsI:
		t.I[i] = 1
	case clsB:
		t.B[i] = true
	}
}

func kernelTrilu(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() < 2 {
		return nil, c.Errorf("input must have rank >= 2, got %s", x)
	}
	k := int64(0)
	if len(in) > 1 && in[1] != nil {
		v, err := ints(in[1], "k")
		if err != nil || len(v) != 1 {
			return nil, c.Errorf("k must be an integer scalar")
		}
		k = v[0]
	}
	upper := c.Int("upper", 1) != 0
	out := x.Clone()
	zero := newTensor(x.DType, []int{1})
	r := x.Rank()
	rows, cols := x.Shape[r-2], x.Shape[r-1]
	for k2 := 0; k2 < x.Len(); k2++ {
		j := k2 % cols
		i := (k2 / cols) % rows
		keep := int64(j-i) >= k
		if !upper {
			keep = int64(j-i) <= k
		}
		if !keep {
			copyElem(out, k2, zero, 0)
		}
	}
	return []*Tensor{out}, nil
}

func kernelOneHot(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	idx, dt, vals := in[0], in[1], in[2]
	if vals.Len() != 2 {
		return nil, c.Errorf("values must have two elements")
	}
	df, err := scalarFloat(dt, "depth")
	if err != nil {
		return nil, err
	}
	depth := int(df)
	if depth < 0 {
		return nil, c.Errorf("negative depth")
	}
	r := idx.Rank() + 1
	axis, err := normAxis(c.Int("axis", -1), r)
	if err != nil {
		return nil, err
	}
	shape := append(append(append([]int{}, idx.Shape[:axis]...), depth), idx.Shape[axis:]...)
	if err := c.check(vals.DType, shape); err != nil {
		return nil, err
	}
	inds := idx.f64()
	outer := numel(idx.Shape[:axis])
	inner := numel(idx.Shape[axis:])
	src := make([]int, numel(shape))
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			v := int(inds[o*inner+i])
			if v < 0 {
				v += depth
			}
			for d := 0; d < depth; d++ {
				if d == v {
					src[(o*depth+d)*inner+i] = 1
				}
			}
		}
	}
	out, err := c.take(vals, shape, src)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func isNonZero(t *Tensor, i int) bool {
	switch t.cls() {
	case clsF:
		return t.F[i] != 0
	case clsD:
		return t.D[i] != 0
	case clsI:
		return t.I[i] != 0
	case clsB:
		return t.B[i]
	case clsS:
		return t.S[i] != ""
	}
	return false
}

func kernelNonZero(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var hits [][]int
	forEachIndex(x.Shape, func(k int, ix []int) {
		if isNonZero(x, k) {
			hits = append(hits, append([]int{}, ix...))
		}
	})
	r := x.Rank()
	out, err := c.alloc(ir.Int64, []int{r, len(hits)})
	if err != nil {
		return nil, err
	}
	for j, h := range hits {
		for d := 0; d < r; d++ {
			out.I[d*len(hits)+j] = int64(h[d])
		}
	}
	return []*Tensor{out}, nil
}

func kernelCompress(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, cond := in[0], in[1]
	var err error
	a := c.Attr("axis")
	if a == nil {
		x = x.reshaped([]int{x.Len()})
	}
	axis := 0
	if a != nil {
		if axis, err = normAxis(a.I, x.Rank()); err != nil {
			return nil, err
		}
	}
	var keep []int
	for i := 0; i < x.Shape[axis] && i < len(cond.B); i++ {
		if cond.B[i] {
			keep = append(keep, i)
		}
	}
	out, err := c.gatherAxis(x, axis, keep)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

// gatherAxis selects the given positions along axis.
func (c *Ctx) gatherAxis(x *Tensor, axis int, pos []int) (*Tensor, error) {
	shape := append([]int{}, x.Shape...)
	shape[axis] = len(pos)
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	outer := numel(x.Shape[:axis])
	inner := numel(x.Shape[axis+1:])
	idx := make([]int, 0, numel(shape))
	for o := 0; o < outer; o++ {
		for _, p := range pos {
			base := (o*x.Shape[axis] + p) * inner
			for j := 0; j < inner; j++ {
				idx = append(idx, base+j)
			}
		}
	}
	return c.take(x, shape, idx)
}

func kernelReverseSequence(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, lt := in[0], in[1]
	lens, err := ints(lt, "sequence_lens")
	if err != nil {
		return nil, err
	}
	if x.Rank() < 2 {
		return nil, c.Errorf("input must have rank >= 2")
	}
	ta, err := normAxis(c.Int("time_axis", 0), x.Rank())
	if err != nil {
		return nil, err
	}
	ba, err := normAxis(c.Int("batch_axis", 1), x.Rank())
	if err != nil {
		return nil, err
	}
	if len(lens) != x.Shape[ba] {
		return nil, c.Errorf("sequence_lens has %d entries for batch %d", len(lens), x.Shape[ba])
	}
	xs := strides(x.Shape)
	idx := make([]int, x.Len())
	forEachIndex(x.Shape, func(k int, ix []int) {
		t := ix[ta]
		l := int(lens[ix[ba]])
		if t < l {
			t = l - 1 - t
		}
		off := 0
		for d, v := range ix {
			if d == ta {
				v = t
			}
			off += v * xs[d]
		}
		idx[k] = off
	})
	out, err := c.take(x, x.Shape, idx)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelCenterCropPad(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, st := in[0], in[1]
	target, err := ints(st, "shape")
	if err != nil {
		return nil, err
	}
	axes, ok, err := axesAttr(c, x.Rank())
	if err != nil {
		return nil, err
	}
	if !ok {
		for i := range x.Shape {
			axes = append(axes, i)
		}
	}
	if len(axes) != len(target) {
		return nil, c.Errorf("shape %v does not match axes", target)
	}
	shape := append([]int{}, x.Shape...)
	off := make([]int, x.Rank()) // source start minus destination start
	for i, ax := range axes {
		t := int(target[i])
		if t < 0 {
			return nil, c.Errorf("negative target dim")
		}
		d := x.Shape[ax]
		shape[ax] = t
		if t <= d {
			off[ax] = (d - t) / 2
		} else {
			off[ax] = -((t - d) / 2)
		}
	}
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	zero := newTensor(x.DType, []int{1})
	ext, err := c.concat([]*Tensor{x.reshaped([]int{x.Len()}), zero}, 0)
	if err != nil {
		return nil, err
	}
	idx := mappedOffsets(shape, x.Shape, x.Len(), func(d, v int) int {
		if p := v + off[d]; p >= 0 && p < x.Shape[d] {
			return p
		}
		return -1
	})
	out, err := c.take(ext, shape, idx)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelDropout(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var err error
	if len(in) > 2 && in[2] != nil && in[2].Len() == 1 && isNonZero(in[2], 0) {
		ratio := 0.5
		if len(in) > 1 && in[1] != nil {
			if ratio, err = scalarFloat(in[1], "ratio"); err != nil {
				return nil, err
			}
		}
		if ratio != 0 {
			return nil, c.unsupported("training mode (random)")
		}
	}
	mask, err := c.alloc(ir.Bool, x.Shape)
	if err != nil {
		return nil, err
	}
	for i := range mask.B {
		mask.B[i] = true
	}
	return []*Tensor{x, mask}, nil
}

// errf formats a kernel error.
func errf(format string, args ...any) error { return &kernelError{msg: sprintf(format, args...)} }
