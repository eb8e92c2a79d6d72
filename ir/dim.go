package ir

// This file implements dimensions: concrete, symbolic or unknown, and the
// small amount of symbolic arithmetic that shape inference needs.

import (
	"strconv"
	"strings"
)

// Dim is one dimension of a shape. Exactly one of three states holds:
//   - concrete: Sym == "" and Val >= 0;
//   - symbolic: Sym != "" (a name such as "N", or an expression such as
//     "batch*2" built by DimMul and friends); Val is -1;
//   - unknown: Sym == "" and Val < 0.
type Dim struct {
	Val int64
	Sym string
}

// D returns a concrete dimension.
func D(v int64) Dim { return Dim{Val: v} }

// S returns a symbolic dimension; an empty name gives an unknown dimension.
func S(name string) Dim { return Dim{Val: -1, Sym: name} }

// Unknown returns an unknown dimension.
func Unknown() Dim { return Dim{Val: -1} }

// IsConcrete reports whether d has a known integer value.
func (d Dim) IsConcrete() bool { return d.Sym == "" && d.Val >= 0 }

// IsSymbolic reports whether d is a named or expression dimension.
func (d Dim) IsSymbolic() bool { return d.Sym != "" }

// IsUnknown reports whether nothing is known about d.
func (d Dim) IsUnknown() bool { return d.Sym == "" && d.Val < 0 }

// String prints a concrete dim as its value, a symbolic one as its
// expression and an unknown one as "?".
func (d Dim) String() string {
	switch {
	case d.Sym != "":
		return d.Sym
	case d.Val >= 0:
		return strconv.FormatInt(d.Val, 10)
	}
	return "?"
}

// appendText appends String's text to b.
func (d Dim) appendText(b []byte) []byte {
	if d.Sym == "" && d.Val >= 0 {
		return strconv.AppendInt(b, d.Val, 10)
	}
	return append(b, d.String()...)
}

// Equal reports whether a and b are provably the same dimension: equal
// values, or the same symbolic expression. Unknown dims are never equal.
func (a Dim) Equal(b Dim) bool {
	if a.IsUnknown() || b.IsUnknown() {
		return false
	}
	return a.Val == b.Val && a.Sym == b.Sym
}

// isAtom reports whether an expression needs no parentheses as an operand.
func isAtom(s string) bool { return !strings.ContainsAny(s, "+-*/% ") }

func paren(s string) string {
	if isAtom(s) {
		return s
	}
	return "(" + s + ")"
}

// maxDimValue bounds products of concrete dims: beyond it arithmetic gives
// an unknown dim rather than overflowing.
const maxDimValue = int64(1) << 62

// DimMul returns a*b, folding constants and the identity 1.
func DimMul(a, b Dim) Dim {
	switch {
	case a.IsConcrete() && b.IsConcrete():
		if a.Val != 0 && b.Val > maxDimValue/a.Val {
			return Unknown()
		}
		return D(a.Val * b.Val)
	case a.IsConcrete() && a.Val == 0, b.IsConcrete() && b.Val == 0:
		return D(0)
	case a.IsConcrete() && a.Val == 1:
		return b
	case b.IsConcrete() && b.Val == 1:
		return a
	case a.IsUnknown() || b.IsUnknown():
		return Unknown()
	}
	// Put the constant factor first for a canonical form: "2*N".
	if b.IsConcrete() {
		a, b = b, a
	}
	return S(mulOperand(a.String()) + "*" + mulOperand(b.String()))
}

func mulOperand(s string) string {
	if strings.ContainsAny(s, "+-/% ") {
		return "(" + s + ")"
	}
	return s
}

// DimAdd returns a+b, folding constants and the identity 0.
func DimAdd(a, b Dim) Dim {
	switch {
	case a.IsConcrete() && b.IsConcrete():
		if a.Val > maxDimValue-b.Val {
			return Unknown()
		}
		return D(a.Val + b.Val)
	case a.IsConcrete() && a.Val == 0:
		return b
	case b.IsConcrete() && b.Val == 0:
		return a
	case a.IsUnknown() || b.IsUnknown():
		return Unknown()
	}
	return S(a.String() + "+" + b.String())
}

// DimSub returns a-b (unknown if a concrete result would be negative).
func DimSub(a, b Dim) Dim {
	switch {
	case a.IsConcrete() && b.IsConcrete():
		if a.Val < b.Val {
			return Unknown()
		}
		return D(a.Val - b.Val)
	case b.IsConcrete() && b.Val == 0:
		return a
	case a.Equal(b):
		return D(0)
	case a.IsUnknown() || b.IsUnknown():
		return Unknown()
	}
	return S(a.String() + "-" + paren(b.String()))
}

// DimDiv returns floor(a/b) for concrete values; for a symbolic a it gives
// the expression "a/b". Division by zero gives an unknown dim.
func DimDiv(a, b Dim) Dim {
	switch {
	case b.IsConcrete() && b.Val == 0:
		return Unknown()
	case a.IsConcrete() && b.IsConcrete():
		return D(a.Val / b.Val)
	case b.IsConcrete() && b.Val == 1:
		return a
	case a.Equal(b):
		return D(1)
	case a.IsUnknown() || b.IsUnknown():
		return Unknown()
	}
	return S(paren(a.String()) + "/" + paren(b.String()))
}

// DimCeilDiv returns ceil(a/b).
func DimCeilDiv(a, b Dim) Dim {
	if a.IsConcrete() && b.IsConcrete() && b.Val > 0 {
		return D((a.Val + b.Val - 1) / b.Val)
	}
	if b.IsConcrete() && b.Val == 1 {
		return a
	}
	if a.IsUnknown() || b.IsUnknown() || (b.IsConcrete() && b.Val <= 0) {
		return Unknown()
	}
	return S("ceil(" + a.String() + "/" + b.String() + ")")
}
