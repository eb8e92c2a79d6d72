package ir

// This file implements shapes and value types.

// Shape is a tensor shape. The zero Shape has unknown rank; a scalar is a
// Shape with Known set and no Dims.
type Shape struct {
	Dims  []Dim
	Known bool // rank is known (Dims is meaningful)
}

// UnknownShape returns a shape of unknown rank.
func UnknownShape() Shape { return Shape{} }

// ShapeOf returns a fully concrete shape.
func ShapeOf(dims ...int64) Shape {
	s := Shape{Known: true, Dims: make([]Dim, len(dims))}
	for i, d := range dims {
		s.Dims[i] = D(d)
	}
	return s
}

// DimsShape returns a shape of known rank with the given dims.
func DimsShape(dims ...Dim) Shape {
	return Shape{Known: true, Dims: append([]Dim{}, dims...)}
}

// RankShape returns a shape of rank r whose dims are all unknown.
func RankShape(r int) Shape {
	s := Shape{Known: true, Dims: make([]Dim, r)}
	for i := range s.Dims {
		s.Dims[i] = Unknown()
	}
	return s
}

// Rank returns the rank, or -1 when it is unknown.
func (s Shape) Rank() int {
	if !s.Known {
		return -1
	}
	return len(s.Dims)
}

// IsStatic reports whether the rank and every dim are concrete.
func (s Shape) IsStatic() bool {
	if !s.Known {
		return false
	}
	for _, d := range s.Dims {
		if !d.IsConcrete() {
			return false
		}
	}
	return true
}

// IsFull reports whether the rank is known and no dim is unknown (dims may
// be symbolic).
func (s Shape) IsFull() bool {
	if !s.Known {
		return false
	}
	for _, d := range s.Dims {
		if d.IsUnknown() {
			return false
		}
	}
	return true
}

// NumElements returns the element count when the shape is static, and
// ok=false otherwise or on overflow.
func (s Shape) NumElements() (n int64, ok bool) {
	if !s.IsStatic() {
		return 0, false
	}
	n = 1
	for _, d := range s.Dims {
		if d.Val != 0 && n > maxDimValue/d.Val {
			return 0, false
		}
		n *= d.Val
	}
	return n, true
}

// Ints returns the dims as integers when the shape is static.
func (s Shape) Ints() ([]int64, bool) {
	if !s.IsStatic() {
		return nil, false
	}
	out := make([]int64, len(s.Dims))
	for i, d := range s.Dims {
		out[i] = d.Val
	}
	return out, true
}

// Clone returns a copy that shares no memory with s.
func (s Shape) Clone() Shape {
	return Shape{Known: s.Known, Dims: append([]Dim(nil), s.Dims...)}
}

// Equal reports whether both shapes have known rank and provably equal dims.
func (s Shape) Equal(t Shape) bool {
	if !s.Known || !t.Known || len(s.Dims) != len(t.Dims) {
		return false
	}
	for i := range s.Dims {
		if !s.Dims[i].Equal(t.Dims[i]) {
			return false
		}
	}
	return true
}

// Identical reports whether s and t print the same (unknown dims compare
// equal to unknown dims). Used by round-trip tests.
func (s Shape) Identical(t Shape) bool {
	if s.Known != t.Known || len(s.Dims) != len(t.Dims) {
		return false
	}
	for i := range s.Dims {
		if s.Dims[i] != t.Dims[i] {
			a, b := s.Dims[i], t.Dims[i]
			if !(a.IsUnknown() && b.IsUnknown()) {
				return false
			}
		}
	}
	return true
}

// String prints "[1,3,N,?]", or "?" for unknown rank.
func (s Shape) String() string { return string(s.AppendText(nil)) }

// AppendText appends String's text to b.
func (s Shape) AppendText(b []byte) []byte {
	if !s.Known {
		return append(b, '?')
	}
	b = append(b, '[')
	for i, d := range s.Dims {
		if i > 0 {
			b = append(b, ',')
		}
		b = d.appendText(b)
	}
	return append(b, ']')
}

// TypeKind says what kind of value a Type describes.
type TypeKind uint8

// Value kinds, after onnx.TypeProto's oneof.
const (
	KindUnknown  TypeKind = iota // nothing known
	KindTensor                   // tensor_type
	KindSparse                   // sparse_tensor_type
	KindSequence                 // sequence_type
	KindOptional                 // optional_type
	KindMap                      // map_type
)

// Type is the type of a value: a tensor's element type and shape, or a
// sequence / optional / map of element types. Types are values: a shape's
// Dims are never written once the shape is in a Type (code that derives a
// shape from another clones it first), so values may share a Type's Dims
// and a copy of a Type is a copy.
type Type struct {
	Kind  TypeKind
	DType DType // tensors: element type; maps: value is in Elem, key here
	Shape Shape // tensors and sparse tensors
	Elem  *Type // sequences, optionals and maps (value type)
	// denotation is onnx's denotation string for the type, kept for
	// export (Denotation, SetDenotation). It is out of line because
	// almost no type has one and a Value holds a Type: 56 bytes, not 64
	// (a Value 176, not 184, in the 176-byte size class, not 192).
	// Copies of a Type share it; it is replaced, never changed in place.
	denotation *string
}

// Denotation is t's onnx denotation string ("" for none).
func (t Type) Denotation() string {
	if t.denotation == nil {
		return ""
	}
	return *t.denotation
}

// SetDenotation sets t's denotation string ("" clears it).
func (t *Type) SetDenotation(s string) {
	t.denotation = nil
	if s != "" {
		t.denotation = &s
	}
}

// TensorType returns a tensor type.
func TensorType(dt DType, s Shape) Type { return Type{Kind: KindTensor, DType: dt, Shape: s} }

// IsTensor reports whether t is a (dense) tensor type.
func (t Type) IsTensor() bool { return t.Kind == KindTensor }

// Clone returns a deep copy of t.
func (t Type) Clone() Type {
	c := t
	c.Shape = t.Shape.Clone()
	if t.Elem != nil {
		e := t.Elem.Clone()
		c.Elem = &e
	}
	return c
}

// String prints "float32[1,3,224,224]", "seq(float32[?])", "opt(...)",
// "map(int64,float32)", or "?" when nothing is known.
func (t Type) String() string { return string(t.AppendText(nil)) }

// AppendText appends String's text to b (the hash writes every value's
// type, without a string per value).
func (t Type) AppendText(b []byte) []byte {
	elem := func(b []byte) []byte {
		if t.Elem == nil {
			return append(b, '?')
		}
		return t.Elem.AppendText(b)
	}
	switch t.Kind {
	case KindTensor:
		return t.appendShapeSuffix(append(b, t.DType.String()...))
	case KindSparse:
		b = t.appendShapeSuffix(append(append(b, "sparse("...), t.DType.String()...))
		return append(b, ')')
	case KindSequence:
		return append(elem(append(b, "seq("...)), ')')
	case KindOptional:
		return append(elem(append(b, "opt("...)), ')')
	case KindMap:
		b = append(append(append(b, "map("...), t.DType.String()...), ',')
		return append(elem(b), ')')
	}
	return append(b, '?')
}

func (t Type) appendShapeSuffix(b []byte) []byte {
	if !t.Shape.Known {
		return append(b, "[*]"...)
	}
	return t.Shape.AppendText(b)
}
