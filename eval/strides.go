package eval

// This file holds the index walkers shared by the kernels that map every
// element of an output shape to an element of a source tensor: transposes,
// slices, broadcasts, tiles, pads and crops, and the element-wise gathers
// and scatters.

// offsetWalk steps through the elements of shape in row-major order. It
// keeps the multi-index of the current element (idx) and its offset in a
// source tensor: base plus the sum of idx[d]*strides[d], where strides are
// per output dim and may be zero (a broadcast dim), permuted (a transpose)
// or scaled (a strided slice). A step costs O(1) amortized and allocates
// nothing.
type offsetWalk struct {
	shape, strides []int
	idx            []int
	off            int
}

// newOffsetWalk starts a walk at the first element of shape; strides must
// have the length of shape.
func newOffsetWalk(shape, strides []int, base int) offsetWalk {
	return offsetWalk{shape: shape, strides: strides, idx: make([]int, len(shape)), off: base}
}

// next moves to the following element in row-major order. After the last
// element the multi-index is back at zero and off at base.
func (w *offsetWalk) next() {
	for d := len(w.shape) - 1; d >= 0; d-- {
		w.idx[d]++
		w.off += w.strides[d]
		if w.idx[d] < w.shape[d] {
			return
		}
		w.off -= w.strides[d] * w.idx[d]
		w.idx[d] = 0
	}
}

// stridedOffsets returns, for every element of shape in row-major order,
// its source offset base + sum idx[d]*strides[d].
func stridedOffsets(shape, strides []int, base int) []int {
	offs := make([]int, numel(shape))
	r := len(shape)
	if r == 0 {
		offs[0] = base
		return offs
	}
	// Walk the rows; the innermost dim is a plain stride.
	n, st := shape[r-1], strides[r-1]
	w := newOffsetWalk(shape[:r-1], strides[:r-1], base)
	for k := 0; k < len(offs); k += n {
		row, off := offs[k:k+n], w.off
		for j := range row {
			row[j] = off
			off += st
		}
		w.next()
	}
	return offs
}

// forEachIndex calls fn for every multi-index of shape in row-major order.
// fn must not keep or change idx.
func forEachIndex(shape []int, fn func(k int, idx []int)) {
	n := numel(shape)
	w := newOffsetWalk(shape, make([]int, len(shape)), 0)
	for k := 0; k < n; k++ {
		fn(k, w.idx)
		w.next()
	}
}

// mappedOffsets returns, for every element of shape in row-major order,
// the offset of the element it copies in a source of shape src (of the
// same rank): position v of output dim d copies position at(d, v) of
// source dim d, or nothing when at returns a negative position (padding),
// and such elements get offset miss. at is called once per position of
// each dim, not per element.
func mappedOffsets(shape, src []int, miss int, at func(d, v int) int) []int {
	offs := make([]int, numel(shape))
	r := len(shape)
	if r == 0 {
		return offs
	}
	// tabs[d][v]: the offset contribution of position v of dim d, or -1.
	xs := strides(src)
	tabs := make([][]int, r)
	for d := range tabs {
		tabs[d] = make([]int, shape[d])
		for v := range tabs[d] {
			if p := at(d, v); p < 0 {
				tabs[d][v] = -1
			} else {
				tabs[d][v] = p * xs[d]
			}
		}
	}
	// Walk the rows: the outer dims give one offset per row (or a miss),
	// the innermost dim's table the rest.
	inner := tabs[r-1]
	n := len(inner)
	w := newOffsetWalk(shape[:r-1], make([]int, r-1), 0)
	for k := 0; k < len(offs); k += n {
		row, base := offs[k:k+n], 0
		for d, v := range w.idx {
			if c := tabs[d][v]; c < 0 {
				base = -1
				break
			} else {
				base += c
			}
		}
		for j, c := range inner {
			if base < 0 || c < 0 {
				row[j] = miss
			} else {
				row[j] = base + c
			}
		}
		w.next()
	}
	return offs
}

// zipBroadcast sets out[k] = f(a[ia[k]], b[ib[k]]) for every element k of
// a broadcast binary op, where ia and ib come from bcastIndex (nil: the
// identity).
func zipBroadcast[T, U any](out []U, a []T, ia []int, b []T, ib []int, f func(x, y T) U) {
	for k := range out {
		out[k] = f(a[at(ia, k)], b[at(ib, k)])
	}
}

// unravel writes into out the row-major multi-index of flat index q in a
// shape of dims (out has len(dims) entries).
func unravel(q int, dims, out []int) {
	for d := len(dims) - 1; d >= 0; d-- {
		out[d] = q % dims[d]
		q /= dims[d]
	}
}
