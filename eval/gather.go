package eval

// This file implements the gather and scatter family: Gather,
// GatherElements, GatherND, Scatter, ScatterElements, ScatterND and
// TensorScatter.

func registerGather() {
	register(kernelGather, "Gather")
	register(kernelGatherElements, "GatherElements")
	register(kernelGatherND, "GatherND")
	register(kernelScatterElements, "ScatterElements", "Scatter")
	register(kernelScatterND, "ScatterND")
	register(kernelTensorScatter, "TensorScatter")
}

// fixIndex maps a possibly negative index into [0, n).
func fixIndex(i int64, n int) (int, error) {
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return 0, errf("index %d out of range [%d, %d)", i, -n, n)
	}
	return int(i), nil
}

// indexedInputs returns the inputs of a gather or scatter, named in order
// (data, indices and maybe updates), and the values of input 1, the
// indices.
func indexedInputs(in []*Tensor, names ...string) ([]*Tensor, []int64, error) {
	ts := make([]*Tensor, len(names))
	for i, name := range names {
		t, err := need(in, i, name)
		if err != nil {
			return nil, nil, err
		}
		ts[i] = t
	}
	idx, err := ints(ts[1], "indices")
	if err != nil {
		return nil, nil, err
	}
	return ts, idx, nil
}

func kernelGather(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	ts, idx, err := indexedInputs(in, "data", "indices")
	if err != nil {
		return nil, err
	}
	x, it := ts[0], ts[1]
	if x.Rank() == 0 {
		return nil, c.Errorf("data must have rank >= 1")
	}
	axis, err := normAxis(c.Int("axis", 0), x.Rank())
	if err != nil {
		return nil, err
	}
	shape := append(append(append([]int{}, x.Shape[:axis]...), it.Shape...), x.Shape[axis+1:]...)
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	pos := make([]int, len(idx))
	if numel(x.Shape[:axis]) > 0 { // with nothing to gather the indices go unchecked
		for j, i := range idx {
			if pos[j], err = fixIndex(i, x.Shape[axis]); err != nil {
				return nil, err
			}
		}
	}
	out, err := c.gatherAxis(x, axis, pos)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out.reshaped(shape)}, nil
}

// elementWalk walks the positions of the indices of GatherElements or
// ScatterElements in row-major order and gives the data offset that each
// selects: the position with its axis coordinate replaced by the index
// value there.
type elementWalk struct {
	offsetWalk // over the indices' shape, with the data strides (0 on axis)
	axis       int
	fits       bool // the indices fit in the data off the axis
	dims, xs   []int
	ishape     []int
}

func newElementWalk(dims, ishape []int, axis int) *elementWalk {
	xs := strides(dims)
	ws := append([]int{}, xs...)
	ws[axis] = 0
	fits := true
	for d, n := range ishape {
		if d != axis && n > dims[d] {
			fits = false
		}
	}
	return &elementWalk{offsetWalk: newOffsetWalk(ishape, ws, 0), axis: axis, fits: fits, dims: dims, xs: xs, ishape: ishape}
}

// offset returns the data offset for the current position, whose index
// value is i.
func (e *elementWalk) offset(i int64) (int, error) {
	if !e.fits {
		// Some positions lie outside the data: check each in full.
		return elementOffset(e.idx, e.axis, i, e.dims, e.xs, e.ishape)
	}
	p, err := fixIndex(i, e.dims[e.axis])
	return e.off + p*e.xs[e.axis], err
}

// elementOffset returns the offset, in data of shape dims and strides xs,
// of the element that position ix of an indices tensor of shape ishape
// selects (GatherElements, ScatterElements): ix with ix[axis] replaced by
// the index value i, negative counting from the end.
func elementOffset(ix []int, axis int, i int64, dims, xs, ishape []int) (int, error) {
	off := 0
	for d, v := range ix {
		if d == axis {
			p, err := fixIndex(i, dims[d])
			if err != nil {
				return 0, err
			}
			v = p
		} else if v >= dims[d] {
			return 0, errf("indices shape %v exceeds data shape %v", ishape, dims)
		}
		off += v * xs[d]
	}
	return off, nil
}

// tupleOffset returns the offset of the element (or slice) that an index
// tuple of GatherND or ScatterND selects in dims of strides xs; negative
// values count from the end.
func tupleOffset(tup []int64, dims, xs []int) (int, error) {
	off := 0
	for d, v := range tup {
		p, err := fixIndex(v, dims[d])
		if err != nil {
			return 0, err
		}
		off += p * xs[d]
	}
	return off, nil
}

func kernelGatherElements(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	ts, idx, err := indexedInputs(in, "data", "indices")
	if err != nil {
		return nil, err
	}
	x, it := ts[0], ts[1]
	if it.Rank() != x.Rank() {
		return nil, c.Errorf("indices rank %d differs from data rank %d", it.Rank(), x.Rank())
	}
	axis, err := normAxis(c.Int("axis", 0), x.Rank())
	if err != nil {
		return nil, err
	}
	if err := c.check(x.DType, it.Shape); err != nil {
		return nil, err
	}
	src := make([]int, len(idx))
	var ferr error
	w := newElementWalk(x.Shape, it.Shape, axis)
	for k, i := range idx {
		off, err := w.offset(i)
		if err != nil {
			ferr = err // the last bad index is the one reported
		}
		src[k] = off
		w.next()
	}
	if ferr != nil {
		return nil, ferr
	}
	out, err := c.take(x, it.Shape, src)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelGatherND(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	ts, idx, err := indexedInputs(in, "data", "indices")
	if err != nil {
		return nil, err
	}
	x, it := ts[0], ts[1]
	b := int(c.Int("batch_dims", 0))
	if it.Rank() < 1 || b < 0 || b >= it.Rank() || b >= x.Rank() {
		return nil, c.Errorf("invalid batch_dims %d for %s and %s", b, x, it)
	}
	k := it.Shape[it.Rank()-1]
	if b+k > x.Rank() {
		return nil, c.Errorf("index depth %d too large for %s", k, x)
	}
	shape := append(append([]int{}, it.Shape[:it.Rank()-1]...), x.Shape[b+k:]...)
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	nb := numel(x.Shape[:b])
	xs := strides(x.Shape)
	inner := numel(x.Shape[b+k:])
	perBatch := numel(it.Shape[b : it.Rank()-1])
	src := make([]int, 0, numel(shape))
	for bi := 0; bi < nb; bi++ {
		for q := 0; q < perBatch; q++ {
			tup := idx[(bi*perBatch+q)*k : (bi*perBatch+q+1)*k]
			off, err := tupleOffset(tup, x.Shape[b:b+k], xs[b:b+k])
			if err != nil {
				return nil, err
			}
			off += bi * numel(x.Shape[b:])
			for j := 0; j < inner; j++ {
				src = append(src, off+j)
			}
		}
	}
	out, err := c.take(x, shape, src)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

// scatterReduce combines an existing element with an update.
func scatterReduce(c *Ctx, out *Tensor, i int, upd *Tensor, j int, red string) error {
	if red == "none" || red == "" {
		copyElem(out, i, upd, j)
		return nil
	}
	var ok bool
	switch out.cls() {
	case clsF, clsD:
		var a float64
		a, ok = combine(out.Float64s1(i), upd.Float64s1(j), red)
		out.setF(i, a)
	case clsI:
		out.I[i], ok = combine(out.I[i], upd.I[j], red)
	default:
		return c.Errorf("reduction %q on %s", red, out.DType)
	}
	if !ok {
		return c.Errorf("unknown reduction %q", red)
	}
	return nil
}

// combine applies a scatter reduction (add, mul, max or min) to a and b;
// ok is false, and a is returned, for any other reduction.
func combine[T int64 | float64](a, b T, red string) (v T, ok bool) {
	switch red {
	case "add":
		return a + b, true
	case "mul":
		return a * b, true
	case "max":
		return max(a, b), true
	case "min":
		return min(a, b), true
	}
	return a, false
}

// Float64s1 returns element i as float64.
func (t *Tensor) Float64s1(i int) float64 {
	switch t.cls() {
	case clsF:
		return float64(t.F[i])
	case clsD:
		return t.D[i]
	case clsI:
		return float64(t.I[i])
	case clsB:
		if t.B[i] {
			return 1
		}
	}
	return 0
}

func kernelScatterElements(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	ts, idx, err := indexedInputs(in, "data", "indices", "updates")
	if err != nil {
		return nil, err
	}
	x, it, upd := ts[0], ts[1], ts[2]
	if !equalInts(it.Shape, upd.Shape) || it.Rank() != x.Rank() || upd.DType != x.DType {
		return nil, c.Errorf("indices %s, updates %s and data %s do not fit", it, upd, x)
	}
	axis, err := normAxis(c.Int("axis", 0), x.Rank())
	if err != nil {
		return nil, err
	}
	if err := c.check(x.DType, x.Shape); err != nil {
		return nil, err
	}
	out := x.Clone()
	red := c.Str("reduction", "none")
	w := newElementWalk(x.Shape, it.Shape, axis)
	for k, i := range idx {
		off, err := w.offset(i)
		if err != nil {
			return nil, err
		}
		if err := scatterReduce(c, out, off, upd, k, red); err != nil {
			return nil, err
		}
		w.next()
	}
	return []*Tensor{out}, nil
}

func kernelScatterND(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	ts, idx, err := indexedInputs(in, "data", "indices", "updates")
	if err != nil {
		return nil, err
	}
	x, it, upd := ts[0], ts[1], ts[2]
	if it.Rank() < 1 || upd.DType != x.DType {
		return nil, c.Errorf("indices %s, updates %s and data %s do not fit", it, upd, x)
	}
	k := it.Shape[it.Rank()-1]
	if k > x.Rank() {
		return nil, c.Errorf("index depth %d exceeds rank %d", k, x.Rank())
	}
	inner := numel(x.Shape[k:])
	nidx := numel(it.Shape[:it.Rank()-1])
	if upd.Len() != nidx*inner {
		return nil, c.Errorf("updates %s do not fit indices %s and data %s", upd, it, x)
	}
	if err := c.check(x.DType, x.Shape); err != nil {
		return nil, err
	}
	out := x.Clone()
	red := c.Str("reduction", "none")
	xs := strides(x.Shape)
	for q := 0; q < nidx; q++ {
		off, err := tupleOffset(idx[q*k:(q+1)*k], x.Shape[:k], xs[:k])
		if err != nil {
			return nil, err
		}
		for j := 0; j < inner; j++ {
			if err := scatterReduce(c, out, off+j, upd, q*inner+j, red); err != nil {
				return nil, err
			}
		}
	}
	return []*Tensor{out}, nil
}

// TensorScatter(past_cache, update, write_indices): writes update into the
// cache along axis at per-batch offsets (linear or circular mode).
func kernelTensorScatter(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, upd := in[0], in[1]
	if upd.DType != x.DType || upd.Rank() != x.Rank() || x.Rank() < 2 {
		return nil, c.Errorf("update %s does not fit cache %s", upd, x)
	}
	axis, err := normAxis(c.Int("axis", -2), x.Rank())
	if err != nil {
		return nil, err
	}
	if axis == 0 {
		return nil, c.Errorf("axis must not be the batch axis")
	}
	circular := c.Str("mode", "linear") == "circular"
	var wi []int64
	if len(in) > 2 && in[2] != nil {
		if wi, err = ints(in[2], "write_indices"); err != nil {
			return nil, err
		}
	}
	out := x.Clone()
	xs := strides(x.Shape)
	var ferr error
	forEachIndex(upd.Shape, func(k int, ix []int) {
		if ferr != nil {
			return
		}
		off := 0
		for d, v := range ix {
			if d == axis {
				base := int64(0)
				if wi != nil {
					base = wi[ix[0]]
				}
				p := base + int64(v)
				if circular {
					p %= int64(x.Shape[d])
				}
				if p < 0 || p >= int64(x.Shape[d]) {
					ferr = errf("write index %d out of range", p)
					return
				}
				v = int(p)
			} else if v >= x.Shape[d] {
				ferr = errf("update %v does not fit cache %v", upd.Shape, x.Shape)
				return
			}
			off += v * xs[d]
		}
		copyElem(out, off, upd, k)
	})
	if ferr != nil {
		return nil, ferr
	}
	return []*Tensor{out}, nil
}
