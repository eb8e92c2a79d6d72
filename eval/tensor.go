package eval

// This file implements the evaluator's dense tensor and its conversions
// from and to ir.Tensor.

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/wolong-dev/wolong/ir"
)

// Tensor is a dense tensor in row-major order. Its elements live in the one
// slice that matches its storage class:
//   - F: float32, float16, bfloat16, the 8-bit and 4-bit floats (computed
//     in float32, rounded to the storage type after every node);
//   - D: float64;
//   - I: every integer type (uint64 as its bit pattern; 4- and 2-bit types
//     unpacked, one element per entry);
//   - B: bool;
//   - S: string.
type Tensor struct {
	DType ir.DType
	Shape []int
	F     []float32
	D     []float64
	I     []int64
	B     []bool
	S     []string
}

// class is a tensor's storage class.
type class uint8

const (
	clsF class = iota
	clsD
	clsI
	clsB
	clsS
	clsBad
)

func classOf(dt ir.DType) class {
	switch {
	case dt == ir.Float64:
		return clsD
	case dt.IsFloat():
		return clsF
	case dt.IsInt():
		return clsI
	case dt == ir.Bool:
		return clsB
	case dt == ir.String:
		return clsS
	}
	return clsBad
}

func (t *Tensor) cls() class { return classOf(t.DType) }

// Len returns the number of elements.
func (t *Tensor) Len() int {
	switch t.cls() {
	case clsF:
		return len(t.F)
	case clsD:
		return len(t.D)
	case clsI:
		return len(t.I)
	case clsB:
		return len(t.B)
	case clsS:
		return len(t.S)
	}
	return 0
}

// Rank returns len(Shape).
func (t *Tensor) Rank() int { return len(t.Shape) }

// String describes the tensor's type, e.g. "float32[2,3]".
func (t *Tensor) String() string { return t.DType.String() + shapeString(t.Shape) }

func shapeString(s []int) string {
	b := []byte{'['}
	for i, d := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%d", d)
	}
	return string(append(b, ']'))
}

// numel returns the product of shape, or -1 on a negative dim or overflow.
func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		if d != 0 && n > math.MaxInt32*int(1<<20)/d {
			return -1
		}
		n *= d
	}
	return n
}

// elemBytes is the in-memory size of one element of a storage class.
func elemBytes(dt ir.DType) int64 {
	switch classOf(dt) {
	case clsF:
		return 4
	case clsB:
		return 1
	case clsS:
		return 16
	}
	return 8
}

// newTensor allocates a zero tensor without any memory check; callers in
// kernels use Ctx.alloc.
func newTensor(dt ir.DType, shape []int) *Tensor {
	n := numel(shape)
	if n < 0 {
		n = 0
	}
	t := &Tensor{DType: dt, Shape: append([]int{}, shape...)}
	switch classOf(dt) {
	case clsF:
		t.F = make([]float32, n)
	case clsD:
		t.D = make([]float64, n)
	case clsI:
		t.I = make([]int64, n)
	case clsB:
		t.B = make([]bool, n)
	case clsS:
		t.S = make([]string, n)
	}
	return t
}

// NewFloat32 returns a float32 tensor of shape holding data (not copied).
func NewFloat32(shape []int, data []float32) *Tensor {
	return &Tensor{DType: ir.Float32, Shape: shape, F: data}
}

// NewInt64 returns an int64 tensor of shape holding data (not copied).
func NewInt64(shape []int, data []int64) *Tensor {
	return &Tensor{DType: ir.Int64, Shape: shape, I: data}
}

// Scalar helpers used by kernels.
func scalarI(v int64) *Tensor { return &Tensor{DType: ir.Int64, Shape: []int{}, I: []int64{v}} }

// Float64s returns the elements widened to float64 (bools as 0/1; strings
// are not numbers and give nil).
func (t *Tensor) Float64s() []float64 {
	switch t.cls() {
	case clsF:
		out := make([]float64, len(t.F))
		for i, v := range t.F {
			out[i] = float64(v)
		}
		return out
	case clsD:
		return t.D
	case clsI:
		out := make([]float64, len(t.I))
		if t.DType == ir.Uint64 {
			for i, v := range t.I {
				out[i] = float64(uint64(v))
			}
			return out
		}
		for i, v := range t.I {
			out[i] = float64(v)
		}
		return out
	case clsB:
		return boolsAs[float64](t.B)
	}
	return nil
}

// boolsAs returns bools as numbers: 1 for true, 0 for false.
func boolsAs[T float64 | int64](b []bool) []T {
	out := make([]T, len(b))
	for i, v := range b {
		if v {
			out[i] = 1
		}
	}
	return out
}

// Int64s returns the elements as int64 (floats truncated toward zero).
func (t *Tensor) Int64s() []int64 {
	switch t.cls() {
	case clsI:
		return t.I
	case clsB:
		return boolsAs[int64](t.B)
	case clsF, clsD:
		f := t.Float64s()
		out := make([]int64, len(f))
		for i, v := range f {
			out[i] = int64(v)
		}
		return out
	}
	return nil
}

// setFloat64s stores vals into a float tensor (F or D class).
func (t *Tensor) setF(i int, v float64) {
	if t.DType == ir.Float64 {
		t.D[i] = v
	} else {
		t.F[i] = float32(v)
	}
}

// fromFloat64s makes a tensor of type dt from vals (shared when dt is
// float64). Kernels compute in float64 and return their input's type;
// when that is not a float type (an invalid model) the tensor is still
// consistent: integers truncated toward zero (NaN as 0, out of range
// saturated), bools true for non-zero, strings formatted.
func fromFloat64s(dt ir.DType, shape []int, vals []float64) *Tensor {
	t := &Tensor{DType: dt, Shape: shape}
	switch classOf(dt) {
	case clsD:
		t.D = vals
	case clsI:
		t.I = make([]int64, len(vals))
		for i, v := range vals {
			switch {
			case v != v:
			case v >= math.MaxInt64:
				t.I[i] = math.MaxInt64
			case v <= math.MinInt64:
				t.I[i] = math.MinInt64
			default:
				t.I[i] = int64(v)
			}
		}
	case clsB:
		t.B = make([]bool, len(vals))
		for i, v := range vals {
			t.B[i] = v != 0
		}
	case clsS:
		t.S = make([]string, len(vals))
		for i, v := range vals {
			t.S[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
	default:
		t.F = make([]float32, len(vals))
		for i, v := range vals {
			t.F[i] = float32(v)
		}
	}
	return t
}

// Clone returns a deep copy.
func (t *Tensor) Clone() *Tensor {
	c := &Tensor{DType: t.DType, Shape: append([]int{}, t.Shape...)}
	c.F = append([]float32(nil), t.F...)
	c.D = append([]float64(nil), t.D...)
	c.I = append([]int64(nil), t.I...)
	c.B = append([]bool(nil), t.B...)
	c.S = append([]string(nil), t.S...)
	return c
}

// copyData copies src's elements into dst, a tensor of the same storage
// class, as copy does (the shorter length).
func copyData(dst, src *Tensor) {
	copy(dst.F, src.F)
	copy(dst.D, src.D)
	copy(dst.I, src.I)
	copy(dst.B, src.B)
	copy(dst.S, src.S)
}

// reshaped returns a tensor sharing t's data with a new shape.
func (t *Tensor) reshaped(shape []int) *Tensor {
	c := *t
	c.Shape = append([]int{}, shape...)
	return &c
}

// normalize rounds the elements to the storage type: half, bfloat16 and
// minifloat values to their nearest representable value, narrow integers
// wrapped to their width.
func (t *Tensor) normalize() {
	switch t.DType {
	case ir.Float16:
		for i, v := range t.F {
			t.F[i] = ir.HalfToFloat32(ir.Float32ToHalf(v))
		}
	case ir.BFloat16:
		for i, v := range t.F {
			t.F[i] = ir.BFloat16ToFloat32(ir.Float32ToBFloat16(v))
		}
	case ir.Float8E4M3FN, ir.Float8E4M3FNUZ, ir.Float8E5M2, ir.Float8E5M2FNUZ, ir.Float4E2M1, ir.Float8E8M0:
		f := minifloatFor(t.DType)
		for i, v := range t.F {
			t.F[i] = f.decode(f.encode(float64(v), false))
		}
	case ir.Int8, ir.Uint8, ir.Int16, ir.Uint16, ir.Int32, ir.Uint32, ir.Int4, ir.Uint4, ir.Int2, ir.Uint2:
		for i, v := range t.I {
			t.I[i] = wrapInt(t.DType, v)
		}
	}
}

// wrapInt wraps v to the range of integer type dt (two's complement).
func wrapInt(dt ir.DType, v int64) int64 {
	switch dt {
	case ir.Int8:
		return int64(int8(v))
	case ir.Uint8:
		return int64(uint8(v))
	case ir.Int16:
		return int64(int16(v))
	case ir.Uint16:
		return int64(uint16(v))
	case ir.Int32:
		return int64(int32(v))
	case ir.Uint32:
		return int64(uint32(v))
	case ir.Int4:
		return int64(int8(v<<4) >> 4)
	case ir.Uint4:
		return v & 0xF
	case ir.Int2:
		return int64(int8(v<<6) >> 6)
	case ir.Uint2:
		return v & 3
	}
	return v
}

// intRange returns the representable range of integer type dt, from
// its width and sign (int64's for a type that is not an integer).
func intRange(dt ir.DType) (lo, hi float64) {
	b := dt.Bits()
	switch {
	case !dt.IsInt() || b == 0 || b > 64:
		return math.MinInt64, math.MaxInt64
	case dt.IsSigned():
		return -math.Ldexp(1, b-1), math.Ldexp(1, b-1) - 1
	}
	return 0, math.Ldexp(1, b) - 1
}

// FromIR converts a constant ir.Tensor into an evaluator tensor. It
// refuses tensors over maxBytes (in evaluator memory) before allocating.
func FromIR(t *ir.Tensor, maxBytes int64) (*Tensor, error) {
	n64, ok := t.NumElements()
	if !ok {
		return nil, fmt.Errorf("tensor %q: invalid dims %v", t.Name, t.Dims)
	}
	if classOf(t.DType) == clsBad {
		return nil, fmt.Errorf("tensor %q: data type %s is not supported", t.Name, t.DType)
	}
	if maxBytes > 0 && n64*elemBytes(t.DType) > maxBytes {
		return nil, fmt.Errorf("tensor %q: %s%v needs %d bytes, over the memory limit of %d bytes", t.Name, t.DType, t.Dims, n64*elemBytes(t.DType), maxBytes)
	}
	if err := t.CheckData(); err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	if t.Raw == nil && t.Src != nil {
		// data computed on demand (a derived weight): read it once, within
		// the size just checked
		raw, err := t.Packed(t.DType.StorageBytes(n64))
		if err != nil {
			return nil, fmt.Errorf("%v", err)
		}
		c := *t
		c.Raw, c.Src = raw, nil
		t = &c
	}
	n := int(n64)
	shape := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		shape[i] = int(d)
	}
	out := newTensor(t.DType, shape)
	switch t.DType {
	case ir.String:
		if len(t.Strings()) < n {
			return nil, fmt.Errorf("tensor %q: %d strings for %d elements", t.Name, len(t.Strings()), n)
		}
		for i := 0; i < n; i++ {
			out.S[i] = string(t.Strings()[i])
		}
		return out, nil
	case ir.Float32:
		if t.Raw != nil {
			for i := 0; i < n; i++ {
				out.F[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Raw[4*i:]))
			}
			return out, nil
		}
		if len(t.Floats()) >= n {
			copy(out.F, t.Floats())
			return out, nil
		}
	case ir.Float8E4M3FN, ir.Float8E4M3FNUZ, ir.Float8E5M2, ir.Float8E5M2FNUZ, ir.Float4E2M1, ir.Float8E8M0,
		ir.Int4, ir.Uint4, ir.Int2, ir.Uint2:
		bits, err := packedBits(t, n)
		if err != nil {
			return nil, err
		}
		if out.cls() == clsF {
			f := minifloatFor(t.DType)
			for i, b := range bits {
				out.F[i] = f.decode(b)
			}
		} else {
			for i, b := range bits {
				out.I[i] = wrapInt(t.DType, int64(b))
			}
		}
		return out, nil
	}
	switch out.cls() {
	case clsF, clsD:
		vals, err := t.Float64Values(n64)
		if err != nil {
			return nil, fmt.Errorf("%v", err)
		}
		for i, v := range vals {
			out.setF(i, v)
		}
	case clsI, clsB:
		vals, err := t.Int64Values(n64)
		if err != nil {
			return nil, fmt.Errorf("%v", err)
		}
		if out.cls() == clsI {
			copy(out.I, vals)
		} else {
			for i, v := range vals {
				out.B[i] = v != 0
			}
		}
	}
	return out, nil
}

// packedBits returns the per-element bit patterns of a sub-byte or 8-bit
// float tensor.
func packedBits(t *ir.Tensor, n int) ([]uint8, error) {
	bits := t.DType.Bits()
	per := 8 / bits
	out := make([]uint8, n)
	get := func(j int) (uint8, bool) { return 0, false }
	switch {
	case t.Raw != nil:
		get = func(j int) (uint8, bool) {
			if j >= len(t.Raw) {
				return 0, false
			}
			return t.Raw[j], true
		}
	case t.Int32s() != nil:
		get = func(j int) (uint8, bool) {
			if j >= len(t.Int32s()) {
				return 0, false
			}
			return uint8(t.Int32s()[j]), true
		}
	default:
		if n == 0 {
			return out, nil
		}
		return nil, fmt.Errorf("tensor %q: no data", t.Name)
	}
	mask := uint8(1<<bits - 1)
	for i := 0; i < n; i++ {
		b, ok := get(i / per)
		if !ok {
			return nil, fmt.Errorf("tensor %q: too little data", t.Name)
		}
		out[i] = b >> (uint(bits) * uint(i%per)) & mask
	}
	return out, nil
}

// ToIR converts t to an ir.Tensor named name with packed little-endian Raw
// data (strings in Strings).
func (t *Tensor) ToIR(name string) (*ir.Tensor, error) {
	out := &ir.Tensor{Name: name, DType: t.DType, Dims: make([]int64, len(t.Shape))}
	for i, d := range t.Shape {
		out.Dims[i] = int64(d)
	}
	n := t.Len()
	if t.DType == ir.String {
		out.SetStrings(make([][]byte, n))
		for i, s := range t.S {
			out.Strings()[i] = []byte(s)
		}
		return out, nil
	}
	size := t.DType.StorageBytes(int64(n))
	if size < 0 {
		return nil, fmt.Errorf("tensor %q: cannot store %s", name, t.DType)
	}
	raw := make([]byte, size)
	switch t.DType {
	case ir.Float32:
		for i, v := range t.F {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
		}
	case ir.Float64:
		for i, v := range t.D {
			binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
		}
	case ir.Float16:
		for i, v := range t.F {
			binary.LittleEndian.PutUint16(raw[2*i:], ir.Float32ToHalf(v))
		}
	case ir.BFloat16:
		for i, v := range t.F {
			binary.LittleEndian.PutUint16(raw[2*i:], ir.Float32ToBFloat16(v))
		}
	case ir.Float8E4M3FN, ir.Float8E4M3FNUZ, ir.Float8E5M2, ir.Float8E5M2FNUZ, ir.Float4E2M1, ir.Float8E8M0:
		f := minifloatFor(t.DType)
		bits := t.DType.Bits()
		per := 8 / bits
		for i, v := range t.F {
			raw[i/per] |= f.encode(float64(v), true) << (uint(bits) * uint(i%per))
		}
	case ir.Int4, ir.Uint4, ir.Int2, ir.Uint2:
		bits := t.DType.Bits()
		per := 8 / bits
		mask := int64(1<<bits - 1)
		for i, v := range t.I {
			raw[i/per] |= uint8(v&mask) << (uint(bits) * uint(i%per))
		}
	case ir.Bool:
		for i, v := range t.B {
			if v {
				raw[i] = 1
			}
		}
	case ir.Int8, ir.Uint8:
		for i, v := range t.I {
			raw[i] = uint8(v)
		}
	case ir.Int16, ir.Uint16:
		for i, v := range t.I {
			binary.LittleEndian.PutUint16(raw[2*i:], uint16(v))
		}
	case ir.Int32, ir.Uint32:
		for i, v := range t.I {
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
		}
	case ir.Int64, ir.Uint64:
		for i, v := range t.I {
			binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
		}
	default:
		return nil, fmt.Errorf("tensor %q: cannot store %s", name, t.DType)
	}
	out.Raw = raw
	return out, nil
}
