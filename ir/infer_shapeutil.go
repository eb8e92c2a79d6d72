package ir

// This file implements small helpers shared by the shape-manipulation,
// gather, generator, control-flow, sequence and ai.onnx.ml inference
// functions: axis normalisation, reading integer inputs (propagated Known
// values or constants), symbolic products with cancellation, and merging
// the types of alternative values (If branches, Loop iterations).

import (
	"sort"
	"strconv"
	"strings"
)

// smAxis normalises axis a (negative counts from the end) for rank r.
func smAxis(a int64, r int) (int, error) {
	if a < -int64(r) || a >= int64(r) {
		return 0, errorf(CodeAxis, "axis %d out of range for rank %d", a, r)
	}
	if a < 0 {
		a += int64(r)
	}
	return int(a), nil
}

// smAxes normalises a list of axes for rank r and rejects duplicates.
func smAxes(axes []int64, r int) ([]int, error) {
	out := make([]int, len(axes))
	seen := make(map[int]bool, len(axes))
	for i, a := range axes {
		ax, err := smAxis(a, r)
		if err != nil {
			return nil, err
		}
		if seen[ax] {
			return nil, errorf(CodeAxis, "axis %d repeated", a)
		}
		seen[ax] = true
		out[i] = ax
	}
	return out, nil
}

// smInts returns the integer values of input i: its propagated Known values
// when all are concrete, else its constant data (bounded by MaxKnown).
func smInts(c *InferContext, i int) ([]int64, bool) {
	if v, ok := c.KnownInts(i); ok {
		return v, true
	}
	t := c.Const(i)
	if t == nil || !(t.DType.IsInt() || t.DType == Bool) {
		return nil, false
	}
	v, err := t.Int64Values(c.MaxKnown())
	return v, err == nil
}

// smInt returns a scalar (or one-element) integer input.
func smInt(c *InferContext, i int) (int64, bool) {
	v, ok := smInts(c, i)
	if !ok || len(v) != 1 {
		return 0, false
	}
	return v[0], true
}

// smKnownDims returns input i's propagated values, which may be symbolic.
func smKnownDims(c *InferContext, i int) ([]Dim, bool) {
	if k, ok := c.Known(i); ok {
		return k, true
	}
	if v, ok := smInts(c, i); ok {
		return smIntsToDims(v), true
	}
	return nil, false
}

// smIntsToDims turns integer values into Known elements (negative values
// are kept as Val with no symbol, the Known convention).
func smIntsToDims(v []int64) []Dim {
	out := make([]Dim, len(v))
	for i, x := range v {
		out[i] = Dim{Val: x}
	}
	return out
}

// smFullDims returns a copy of s's dims when the rank is known and no dim is
// unknown: the values a Shape op would produce.
func smFullDims(s Shape) ([]Dim, bool) {
	if !s.IsFull() {
		return nil, false
	}
	return append([]Dim{}, s.Dims...), true
}

// smAddInt returns d+v for a possibly negative v.
func smAddInt(d Dim, v int64) Dim {
	if v >= 0 {
		return DimAdd(d, D(v))
	}
	return DimSub(d, D(-v))
}

// smProd is a product of dims: a concrete coefficient times a multiset of
// symbolic factors, so that N*3*4 / (N*4) cancels to 3.
type smProd struct {
	k    int64
	syms []string // sorted
	ok   bool     // false when a factor is unknown or the product overflows
}

// smFactors splits a symbolic dim into its factors when it is a plain
// product ("2*N*seq"); otherwise the whole expression is one factor.
func smFactors(sym string) (k int64, syms []string) {
	k = 1
	if strings.ContainsAny(sym, "+-/%() ") {
		return 1, []string{sym}
	}
	for _, f := range strings.Split(sym, "*") {
		if v, err := strconv.ParseInt(f, 10, 64); err == nil && v >= 0 {
			if v != 0 && k > maxDimValue/v {
				return 1, []string{sym}
			}
			k *= v
			continue
		}
		syms = append(syms, f)
	}
	return k, syms
}

func smProdOf(dims []Dim) smProd {
	p := smProd{k: 1, ok: true}
	for _, d := range dims {
		switch {
		case d.IsConcrete():
			if d.Val != 0 && p.k > maxDimValue/d.Val {
				return smProd{}
			}
			p.k *= d.Val
		case d.IsSymbolic():
			k, syms := smFactors(d.Sym)
			if k != 0 && p.k > maxDimValue/k {
				return smProd{}
			}
			p.k *= k
			p.syms = append(p.syms, syms...)
		default:
			return smProd{}
		}
	}
	sort.Strings(p.syms)
	return p
}

// dim returns the product as a Dim ("k*a*b" with the factors sorted).
func (p smProd) dim() Dim {
	if !p.ok {
		return Unknown()
	}
	if p.k == 0 {
		return D(0)
	}
	if len(p.syms) == 0 {
		return D(p.k)
	}
	var b strings.Builder
	if p.k != 1 {
		b.WriteString(strconv.FormatInt(p.k, 10))
	}
	for _, s := range p.syms {
		if b.Len() > 0 {
			b.WriteByte('*')
		}
		b.WriteString(s)
	}
	return S(b.String())
}

// div returns p/q when q's factors all cancel into p exactly; else unknown.
func (p smProd) div(q smProd) Dim {
	if !p.ok || !q.ok || q.k == 0 {
		return Unknown()
	}
	if p.k%q.k != 0 {
		if len(p.syms) == 0 && len(q.syms) == 0 {
			return Unknown() // not divisible: the caller reports it
		}
		return Unknown()
	}
	rest := append([]string(nil), p.syms...)
	for _, s := range q.syms {
		found := false
		for j, r := range rest {
			if r == s {
				rest = append(rest[:j], rest[j+1:]...)
				found = true
				break
			}
		}
		if !found {
			return Unknown()
		}
	}
	return smProd{k: p.k / q.k, syms: rest, ok: true}.dim()
}

// smMulDims returns the product of dims with symbolic factors collected.
func smMulDims(dims []Dim) Dim { return smProdOf(dims).dim() }

// smDivDim returns a/b exactly (cancelling symbolic factors) or unknown.
func smDivDim(a, b Dim) Dim {
	return smProdOf([]Dim{a}).div(smProdOf([]Dim{b}))
}

// smMergeDim merges two observations of the same dim: equal dims stay,
// anything else becomes unknown.
func smMergeDim(a, b Dim) Dim {
	if a.Equal(b) {
		return a
	}
	return Unknown()
}

// smMergeShape merges two shapes that a value may take: same rank keeps
// the agreeing dims, different ranks give an unknown rank.
func smMergeShape(a, b Shape) Shape {
	if !a.Known || !b.Known || len(a.Dims) != len(b.Dims) {
		return UnknownShape()
	}
	out := make([]Dim, len(a.Dims))
	for i := range out {
		out[i] = smMergeDim(a.Dims[i], b.Dims[i])
	}
	return Shape{Known: true, Dims: out}
}

// smMergeType merges two types a value may take (If branches, loop
// iterations, sequence elements). An unknown type may be anything of the
// other's kind and element type (ONNX requires those to agree), so the
// result keeps them but drops the shape.
func smMergeType(a, b Type) Type {
	switch {
	case a.Kind == KindUnknown && b.Kind == KindUnknown:
		return Type{}
	case a.Kind == KindUnknown:
		return smShapeless(b)
	case b.Kind == KindUnknown:
		return smShapeless(a)
	case a.Kind != b.Kind:
		return Type{}
	}
	t := a.Clone()
	if a.DType != b.DType {
		if a.DType == Undefined {
			t.DType = b.DType
		} else if b.DType != Undefined {
			t.DType = Undefined
		}
	}
	t.Shape = smMergeShape(a.Shape, b.Shape)
	if a.Elem != nil || b.Elem != nil {
		var ea, eb Type
		if a.Elem != nil {
			ea = *a.Elem
		}
		if b.Elem != nil {
			eb = *b.Elem
		}
		e := smMergeType(ea, eb)
		t.Elem = &e
	}
	return t
}

// smShapeless returns t with every shape (its own, its elements')
// unknown.
func smShapeless(t Type) Type {
	c := t.Clone()
	c.Shape = UnknownShape()
	if c.Elem != nil {
		e := smShapeless(*c.Elem)
		c.Elem = &e
	}
	return c
}

// smSeq returns a sequence type of elem.
func smSeq(elem Type) Type {
	e := elem.Clone()
	return Type{Kind: KindSequence, Elem: &e}
}

// smElem returns the element type of a sequence or optional (unknown if
// none is recorded).
func smElem(t Type) Type {
	if t.Elem == nil {
		return Type{}
	}
	return t.Elem.Clone()
}

// smSliceDim returns the length of data[start:end:step] along a dim of
// length d (ONNX Slice clamping rules).
func smSliceDim(d Dim, start, end, step int64) Dim {
	if step == 0 {
		return Unknown()
	}
	if !d.IsConcrete() {
		if d.IsSymbolic() && step == 1 && start >= 0 && end >= smBigIndex {
			return DimSub(d, D(start))
		}
		return Unknown()
	}
	s, e, st := smSliceBounds(d.Val, start, end, step)
	n := int64(0)
	if st > 0 && e > s {
		n = (e - s + st - 1) / st
	} else if st < 0 && s > e {
		n = (s - e + (-st) - 1) / (-st)
	}
	return D(n)
}

// smBigIndex is the smallest end value treated as "to the end" for
// symbolic dims (exporters write INT_MAX or INT64_MAX).
const smBigIndex = int64(1) << 30

// smSliceBounds clamps start and end for a dim of length n.
func smSliceBounds(n, start, end, step int64) (s, e, st int64) {
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if step > 0 {
		start = ClampInt(start, 0, n)
		end = ClampInt(end, 0, n)
	} else {
		start = ClampInt(start, 0, n-1)
		end = ClampInt(end, -1, n-1)
	}
	return start, end, step
}

// ClampInt limits v to [lo, hi]: lo when v < lo, else hi when v > hi
// (so hi when hi < lo <= v, as ONNX's Slice clamping reads). eval's
// kernels clamp with it too.
func ClampInt(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// smAttrTensorDType returns the dtype of a TENSOR attribute, or def.
func smAttrTensorDType(c *InferContext, name string, def DType) DType {
	if t := c.Node.AttrTensor(name); t != nil {
		return t.DType
	}
	return def
}

// smDTypeAttr reads an element-type attribute ("dtype", "to"), checking it
// is a valid ONNX element type.
func smDTypeAttr(c *InferContext, name string, def DType) (DType, error) {
	a := c.Attr(name)
	if a == nil {
		return def, nil
	}
	dt := DType(a.I)
	if !dt.Valid() {
		return Undefined, errorf(CodeDType, "attribute %s: invalid element type %d", name, a.I)
	}
	return dt, nil
}

// smMaxSelect bounds the element count smSelect will produce.
const smMaxSelect = 1 << 16

// smSelect gathers the elements of a row-major tensor of static dims whose
// index along each axis is taken from sel[axis] (nil: every index), the
// data propagation of Slice and Gather on N-D Known values.
func smSelect(vals []Dim, dims []int64, sel [][]int64) ([]Dim, bool) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	if int64(len(vals)) != n || len(sel) != len(dims) {
		return nil, false
	}
	idx := make([][]int64, len(dims))
	total := int64(1)
	for a, d := range dims {
		if sel[a] != nil {
			idx[a] = sel[a]
		} else {
			idx[a] = make([]int64, d)
			for i := range idx[a] {
				idx[a][i] = int64(i)
			}
		}
		for _, i := range idx[a] {
			if i < 0 || i >= d {
				return nil, false
			}
		}
		total *= int64(len(idx[a]))
		if total > smMaxSelect {
			return nil, false
		}
	}
	strides := rowMajorStrides(dims)
	out := make([]Dim, 0, total)
	pos := make([]int, len(dims))
	for k := int64(0); k < total; k++ {
		off := int64(0)
		for a := range dims {
			off += idx[a][pos[a]] * strides[a]
		}
		out = append(out, vals[off])
		for a := len(dims) - 1; a >= 0; a-- {
			pos[a]++
			if pos[a] < len(idx[a]) {
				break
			}
			pos[a] = 0
		}
	}
	return out, true
}

// rowMajorStrides is the element stride of each axis of a row-major
// tensor of dims.
func rowMajorStrides(dims []int64) []int64 {
	strides := make([]int64, len(dims))
	s := int64(1)
	for a := len(dims) - 1; a >= 0; a-- {
		strides[a] = s
		s *= dims[a]
	}
	return strides
}

// smTransposeKnown permutes a row-major tensor's Known values.
func smTransposeKnown(vals []Dim, dims []int64, perm []int) ([]Dim, bool) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	if int64(len(vals)) != n || len(perm) != len(dims) {
		return nil, false
	}
	strides := rowMajorStrides(dims)
	outDims := make([]int64, len(dims))
	for i, p := range perm {
		outDims[i] = dims[p]
	}
	out := make([]Dim, 0, n)
	pos := make([]int64, len(dims))
	for k := int64(0); k < n; k++ {
		off := int64(0)
		for i, p := range perm {
			off += pos[i] * strides[p]
		}
		out = append(out, vals[off])
		for a := len(dims) - 1; a >= 0; a-- {
			pos[a]++
			if pos[a] < outDims[a] {
				break
			}
			pos[a] = 0
		}
	}
	return out, true
}

// smMaxRank bounds ranks taken from data (the length of a shape input), so
// a hostile declared size never drives an allocation.
const smMaxRank = 256

// smRankShape returns a shape of rank r with unknown dims, or an unknown
// rank when r is negative or beyond smMaxRank.
func smRankShape(r int64) Shape {
	if r < 0 || r > smMaxRank {
		return UnknownShape()
	}
	return RankShape(int(r))
}
