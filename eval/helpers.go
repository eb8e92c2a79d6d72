package eval

// This file implements shared kernel helpers: broadcasting, strides,
// axis normalization and element gathering.

import (
	"fmt"
)

// broadcastShapes returns the numpy-broadcast shape of its arguments.
func broadcastShapes(shapes ...[]int) ([]int, error) {
	rank := 0
	for _, s := range shapes {
		if len(s) > rank {
			rank = len(s)
		}
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			o := out[off+i]
			switch {
			case d == o || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				return nil, fmt.Errorf("cannot broadcast shapes %v", shapes)
			}
		}
	}
	return out, nil
}

// strides returns row-major strides of shape.
func strides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}

// bcastIndex maps every element of out (row-major) to the index of the
// element of a tensor of shape in that broadcasts to it. It returns nil when
// the shapes are equal (the identity map).
func bcastIndex(out, in []int) []int {
	if equalInts(out, in) {
		return nil
	}
	n := numel(out)
	idx := make([]int, n)
	r := len(out)
	off := r - len(in)
	ist := make([]int, r)
	s := 1
	for i := len(in) - 1; i >= 0; i-- {
		if in[i] != 1 {
			ist[off+i] = s
		}
		s *= in[i]
	}
	ctr := make([]int, r)
	cur := 0
	for k := 0; k < n; k++ {
		idx[k] = cur
		for d := r - 1; d >= 0; d-- {
			ctr[d]++
			cur += ist[d]
			if ctr[d] < out[d] {
				break
			}
			cur -= ist[d] * ctr[d]
			ctr[d] = 0
		}
	}
	return idx
}

func at(idx []int, k int) int {
	if idx == nil {
		return k
	}
	return idx[k]
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(axis int64, rank int) (int, error) {
	a := int(axis)
	if a < 0 {
		a += rank
	}
	if a < 0 || a >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	return a, nil
}

// axesAttr reads the axes attribute, each normalized for rank (nil when
// the list is empty); ok is false when the node has no axes attribute.
func axesAttr(c *Ctx, rank int) (axes []int, ok bool, err error) {
	a, ok := c.Ints("axes")
	for _, v := range a {
		ax, err := normAxis(v, rank)
		if err != nil {
			return nil, ok, err
		}
		axes = append(axes, ax)
	}
	return axes, ok, nil
}

// take returns a tensor of shape whose element k is src's element idx[k].
func (c *Ctx) take(src *Tensor, shape []int, idx []int) (*Tensor, error) {
	out, err := c.alloc(src.DType, shape)
	if err != nil {
		return nil, err
	}
	if len(idx) != out.Len() {
		return nil, fmt.Errorf("internal error: take %d of %d", len(idx), out.Len())
	}
	switch src.cls() {
	case clsF:
		takeInto(out.F, src.F, idx)
	case clsD:
		takeInto(out.D, src.D, idx)
	case clsI:
		takeInto(out.I, src.I, idx)
	case clsB:
		takeInto(out.B, src.B, idx)
	case clsS:
		takeInto(out.S, src.S, idx)
	}
	return out, nil
}

// takeInto sets dst[k] = src[idx[k]] for every k.
func takeInto[T any](dst, src []T, idx []int) {
	for k, i := range idx {
		dst[k] = src[i]
	}
}

// copyElem sets dst[i] = src[j] (same storage class).
func copyElem(dst *Tensor, i int, src *Tensor, j int) {
	switch dst.cls() {
	case clsF:
		dst.F[i] = src.F[j]
	case clsD:
		dst.D[i] = src.D[j]
	case clsI:
		dst.I[i] = src.I[j]
	case clsB:
		dst.B[i] = src.B[j]
	case clsS:
		dst.S[i] = src.S[j]
	}
}

// need checks that input i is present. A kernel calls it only for a
// slot ir's op table does not mark Required at every opset: the required
// ones were checked once before the kernel ran (checkInputs), and the
// kernel reads them as in[i].
func need(in []*Tensor, i int, what string) (*Tensor, error) {
	if i >= len(in) || in[i] == nil {
		return nil, fmt.Errorf("missing input %d (%s)", i, what)
	}
	return in[i], nil
}

// ints reads an integer tensor's values (shape inputs, axes).
func ints(t *Tensor, what string) ([]int64, error) {
	if t.cls() != clsI {
		return nil, fmt.Errorf("%s must be an integer tensor, got %s", what, t)
	}
	return t.I, nil
}

// scalarFloat reads a one-element numeric tensor.
func scalarFloat(t *Tensor, what string) (float64, error) {
	if t.Len() != 1 {
		return 0, fmt.Errorf("%s must have one element, got %s", what, t)
	}
	f := t.f64()
	if f == nil {
		return 0, fmt.Errorf("%s must be numeric, got %s", what, t)
	}
	return f[0], nil
}

func isFloatCls(t *Tensor) bool { return t.cls() == clsF || t.cls() == clsD }

func requireFloat(t *Tensor, what string) error {
	if !isFloatCls(t) {
		return fmt.Errorf("%s must be a float tensor, got %s", what, t)
	}
	return nil
}

func toInts(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

func sameDType(a, b *Tensor, what string) error {
	if a.DType != b.DType {
		return fmt.Errorf("%s: mismatched types %s and %s", what, a.DType, b.DType)
	}
	return nil
}

type kernelError struct{ msg string }

// Error implements error.
func (e *kernelError) Error() string { return e.msg }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
