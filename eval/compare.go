package eval

// This file implements the comparison of two runtime values with
// relative and absolute tolerances, for conformance tests and verify.

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// Tolerance bounds the allowed difference |got-want| <= ATol + RTol*|want|.
type Tolerance struct {
	RTol, ATol float64
}

// DefaultTolerance is rtol 1e-4, atol 1e-5.
var DefaultTolerance = Tolerance{RTol: 1e-4, ATol: 1e-5}

// ForType loosens t for low-precision float types (float16, bfloat16 and
// the 8-bit floats), whose results are only defined to their precision.
func (t Tolerance) ForType(dt ir.DType) Tolerance {
	switch dt {
	case ir.Float16:
		return Tolerance{RTol: math.Max(t.RTol, 1e-3), ATol: math.Max(t.ATol, 1e-3)}
	case ir.BFloat16:
		return Tolerance{RTol: math.Max(t.RTol, 1e-2), ATol: math.Max(t.ATol, 1e-2)}
	}
	return t
}

// Diff is the outcome of comparing two values.
type Diff struct {
	MaxAbs     float64 // largest absolute difference of elements
	MaxRel     float64 // largest |got-want|/|want| (want != 0)
	Mismatches int     // elements outside the tolerance
	Elements   int     // elements compared
	Problem    string  // a type, shape or structure mismatch ("" if none)
}

// OK reports whether the values matched.
func (d Diff) OK() bool { return d.Problem == "" && d.Mismatches == 0 }

// String summarizes the difference.
func (d Diff) String() string {
	if d.Problem != "" {
		return d.Problem
	}
	return fmt.Sprintf("max abs err %.3g, max rel err %.3g, %d of %d elements mismatch", d.MaxAbs, d.MaxRel, d.Mismatches, d.Elements)
}

// Compare compares got against want.
func Compare(got, want Value, tol Tolerance) Diff {
	switch w := want.(type) {
	case *Tensor:
		g, ok := got.(*Tensor)
		if !ok {
			return Diff{Problem: fmt.Sprintf("got %s, want a tensor", valueKind(got))}
		}
		return compareTensors(g, w, tol)
	case *Sequence:
		g, ok := got.(*Sequence)
		if !ok {
			return Diff{Problem: fmt.Sprintf("got %s, want a sequence", valueKind(got))}
		}
		if len(g.Items) != len(w.Items) {
			return Diff{Problem: fmt.Sprintf("got a sequence of %d, want %d", len(g.Items), len(w.Items))}
		}
		var d Diff
		for i := range w.Items {
			e := compareTensors(g.Items[i], w.Items[i], tol)
			if e.Problem != "" {
				return Diff{Problem: fmt.Sprintf("item %d: %s", i, e.Problem)}
			}
			d.merge(e)
		}
		return d
	case *Optional:
		g, ok := got.(*Optional)
		if !ok {
			return Diff{Problem: fmt.Sprintf("got %s, want an optional", valueKind(got))}
		}
		if (g.Value == nil) != (w.Value == nil) {
			return Diff{Problem: "optional presence differs"}
		}
		if w.Value == nil {
			return Diff{}
		}
		return Compare(g.Value, w.Value, tol)
	}
	return Diff{Problem: fmt.Sprintf("cannot compare %T", want)}
}

func (d *Diff) merge(e Diff) {
	d.MaxAbs = math.Max(d.MaxAbs, e.MaxAbs)
	d.MaxRel = math.Max(d.MaxRel, e.MaxRel)
	d.Mismatches += e.Mismatches
	d.Elements += e.Elements
}

func compareTensors(g, w *Tensor, tol Tolerance) Diff {
	if g.DType != w.DType {
		return Diff{Problem: fmt.Sprintf("got %s, want %s", g, w)}
	}
	if !equalInts(g.Shape, w.Shape) {
		return Diff{Problem: fmt.Sprintf("got shape %v, want %v", g.Shape, w.Shape)}
	}
	n := w.Len()
	d := Diff{Elements: n}
	if g.Len() != n {
		return Diff{Problem: fmt.Sprintf("got %d elements, want %d", g.Len(), n)}
	}
	tol = tol.ForType(w.DType)
	switch w.cls() {
	case clsS:
		for i := range w.S {
			if g.S[i] != w.S[i] {
				d.Mismatches++
			}
		}
		return d
	case clsB:
		for i := range w.B {
			if g.B[i] != w.B[i] {
				d.Mismatches++
				d.MaxAbs = 1
			}
		}
		return d
	case clsI:
		for i := range w.I {
			if g.I[i] != w.I[i] {
				d.Mismatches++
				a := math.Abs(float64(g.I[i]) - float64(w.I[i]))
				d.MaxAbs = math.Max(d.MaxAbs, a)
				if w.I[i] != 0 {
					d.MaxRel = math.Max(d.MaxRel, a/math.Abs(float64(w.I[i])))
				}
			}
		}
		return d
	}
	gf, wf := g.Float64s(), w.Float64s()
	for i := range wf {
		a, b := gf[i], wf[i]
		if math.IsNaN(a) || math.IsNaN(b) {
			if math.IsNaN(a) != math.IsNaN(b) {
				d.Mismatches++
				d.MaxAbs = math.Inf(1)
			}
			continue
		}
		if math.IsInf(b, 0) || math.IsInf(a, 0) {
			if a != b {
				d.Mismatches++
				d.MaxAbs = math.Inf(1)
			}
			continue
		}
		e := math.Abs(a - b)
		d.MaxAbs = math.Max(d.MaxAbs, e)
		if b != 0 {
			d.MaxRel = math.Max(d.MaxRel, e/math.Abs(b))
		}
		if e > tol.ATol+tol.RTol*math.Abs(b) {
			d.Mismatches++
		}
	}
	return d
}
