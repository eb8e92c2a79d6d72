package ir

// This file implements constant tensors (initializers, Constant values and
// tensor attributes).

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Location says where a tensor's bytes live in the files wolong read. Raw
// is a view into a memory mapping of File at Offset, never a copy.
type Location struct {
	File     string // the model file, or the external-data file
	Offset   int64  // byte offset of the data within File
	Length   int64  // byte length of the data
	External bool   // data_location == EXTERNAL
	// ext is what an external location says besides where its bytes are
	// (ExternalPath, Checksum), nil for the rest: out of line, as most
	// tensors are not external (a Location is 48 bytes, not 72).
	ext *externalNames
}

// externalNames are an external location's path as written in the model
// and its checksum entry. Locations share one; it is never changed.
type externalNames struct{ path, checksum string }

// ExternalLocation is the location of external data: File at Offset,
// Length bytes, written in the model as path, with its external_data
// "checksum" entry ("" if none).
func ExternalLocation(file string, offset, length int64, path, checksum string) Location {
	l := Location{File: file, Offset: offset, Length: length, External: true}
	if path != "" || checksum != "" {
		l.ext = &externalNames{path: path, checksum: checksum}
	}
	return l
}

// ExternalPath is the location as written in the model (external data
// only), kept for export.
func (l Location) ExternalPath() string {
	if l.ext == nil {
		return ""
	}
	return l.ext.path
}

// Checksum is the external_data "checksum" entry, if present.
func (l Location) Checksum() string {
	if l.ext == nil {
		return ""
	}
	return l.ext.checksum
}

// Tensor is a constant tensor. Its data is in exactly one of Raw and the
// typed lists, mirroring onnx.TensorProto: Raw holds packed little-endian
// bytes (raw_data or external data, as a view into the mapped file), and
// the typed lists (Floats, Int32s, Int64s, Float64s, Uint64s, Strings and
// their setters) hold the repeated *_data fields of small tensors.
type Tensor struct {
	Name  string
	DType DType
	Dims  []int64

	Raw []byte // raw_data or external data (a view, not a copy)
	// lists holds the typed lists, nil for a tensor with none: out of
	// line, as few tensors have any (a Tensor is 152 bytes, the 160-byte
	// size class, not 288). Copies of a Tensor share it: it is replaced
	// by the setters, never changed in place.
	lists *tensorLists

	Loc Location // where Raw came from (File empty when Raw is owned)
	// Src, when set, reads the same packed bytes as Raw without touching
	// them; Raw is then nil for data computed on demand (see Source).
	// Code that gives a tensor other data must clear Src and Loc.
	Src Source
	// Info is what few tensors carry from the file for export (a doc
	// string, a segment, metadata_props), nil for the rest: see Doc,
	// Segment, Metadata and SetInfo. It is kept out of line, as Value's
	// and Node's are, because a model has a Tensor per initializer and
	// almost none has any (with Location's names and the typed lists out
	// of line too, a Tensor is 152 bytes, not 352).
	Info *TensorInfo
}

// TensorInfo is a tensor's doc string, TensorProto.segment and
// metadata_props. It is replaced (SetInfo), never changed in place:
// tensors may share one.
type TensorInfo struct {
	Doc      string
	Segment  *[2]int64
	Metadata []StringPair
}

// Doc returns t's doc string.
func (t *Tensor) Doc() string {
	if t.Info == nil {
		return ""
	}
	return t.Info.Doc
}

// Segment returns t's segment (nil: none).
func (t *Tensor) Segment() *[2]int64 {
	if t.Info == nil {
		return nil
	}
	return t.Info.Segment
}

// Metadata returns t's metadata_props.
func (t *Tensor) Metadata() []StringPair {
	if t.Info == nil {
		return nil
	}
	return t.Info.Metadata
}

// SetInfo sets t's doc string, segment and metadata (nil Info when all
// are empty).
func (t *Tensor) SetInfo(doc string, segment *[2]int64, md []StringPair) {
	t.Info = nil
	if doc != "" || segment != nil || len(md) > 0 {
		t.Info = &TensorInfo{Doc: doc, Segment: segment, Metadata: md}
	}
}

// Source reads a tensor's packed little-endian bytes on demand, so that no
// stage has to hold a large weight in memory. The importer gives every
// tensor it maps one that reads the file (pread: streaming a weight through
// it, as export does, leaves the weight out of resident memory, where
// touching the mapping would page it in); passes that derive large weights
// (BatchNorm folded into Conv, concatenated GEMM weights) give theirs one
// that computes the bytes piece by piece from the weights they came from.
type Source interface {
	io.ReaderAt
	Size() int64 // the number of bytes
}

// HasPacked reports whether t's data is packed bytes (Raw or Src), as
// opposed to the typed *_data fields.
func (t *Tensor) HasPacked() bool { return t.Raw != nil || t.Src != nil }

// PackedSize is the length of t's packed data (Raw or Src), or -1 when it
// has none.
func (t *Tensor) PackedSize() int64 {
	switch {
	case t.Raw != nil:
		return int64(len(t.Raw))
	case t.Src != nil:
		return t.Src.Size()
	}
	return -1
}

// Packed returns t's packed bytes: Raw itself, or, for data held only by
// Src, a copy read from it. It refuses to read more than max bytes, so a
// caller never pulls a large weight into memory unless it asked to; it
// returns nil, nil when t has no packed data (typed fields).
func (t *Tensor) Packed(max int64) ([]byte, error) {
	if t.Raw != nil || t.Src == nil {
		return t.Raw, nil
	}
	n := t.Src.Size()
	if n > max {
		return nil, fmt.Errorf("tensor %q: %d bytes of data exceed the limit %d", t.Name, n, max)
	}
	b := make([]byte, n)
	if _, err := t.Src.ReadAt(b, 0); err != nil && !(err == io.EOF && n == 0) {
		return nil, fmt.Errorf("tensor %q: reading data: %v", t.Name, err)
	}
	return b, nil
}

// Reader returns a Source over t's packed data: Src when set (reading it
// leaves a mapping untouched), else Raw; nil when t has no packed data.
func (t *Tensor) Reader() Source {
	switch {
	case t.Src != nil:
		return t.Src
	case t.Raw != nil:
		return bytes.NewReader(t.Raw)
	}
	return nil
}

// NumElements returns the element count from Dims (1 for a scalar) and
// false on negative dims or overflow.
func (t *Tensor) NumElements() (int64, bool) {
	n := int64(1)
	for _, d := range t.Dims {
		if d < 0 {
			return 0, false
		}
		if d != 0 && n > maxDimValue/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// Shape returns the tensor's (static) shape.
func (t *Tensor) Shape() Shape { return ShapeOf(t.Dims...) }

// Type returns the tensor type of t.
func (t *Tensor) Type() Type { return TensorType(t.DType, t.Shape()) }

// ByteSize is the packed size of the data in bytes (strings: the sum of
// their lengths).
func (t *Tensor) ByteSize() int64 {
	if t.DType == String {
		var s int64
		for _, b := range t.Strings() {
			s += int64(len(b))
		}
		return s
	}
	n, ok := t.NumElements()
	if !ok {
		return 0
	}
	return t.DType.StorageBytes(n)
}

// CheckData reports an error when the data present does not match the
// declared dims and type (too little data; a raw size that is not exact).
func (t *Tensor) CheckData() error {
	n, ok := t.NumElements()
	if !ok {
		return fmt.Errorf("tensor %q: invalid dims %v", t.Name, t.Dims)
	}
	if !t.DType.Valid() {
		return fmt.Errorf("tensor %q: invalid data type %d", t.Name, int32(t.DType))
	}
	have := t.dataCount()
	if t.HasPacked() || t.Loc.External {
		want := t.DType.StorageBytes(n)
		if t.DType == String {
			return fmt.Errorf("tensor %q: string tensor with raw data", t.Name)
		}
		if got := max(t.PackedSize(), 0); got != want {
			return fmt.Errorf("tensor %q: %s%v needs %d bytes, raw data has %d", t.Name, t.DType, t.Dims, want, got)
		}
		return nil
	}
	if have < 0 {
		return nil
	}
	want := n
	switch t.DType {
	case Complex64, Complex128:
		want = 2 * n
	case Int4, Uint4, Float4E2M1:
		want = (n + 1) / 2
	case Int2, Uint2:
		want = (n + 3) / 4
	}
	if have != want && !(have == 0 && n == 0) {
		if have == 0 {
			return fmt.Errorf("tensor %q: %s%v has no data", t.Name, t.DType, t.Dims)
		}
		return fmt.Errorf("tensor %q: %s%v needs %d elements, has %d", t.Name, t.DType, t.Dims, want, have)
	}
	// a file may fill more than one typed field; the readers pick one by
	// their own order, so every field present must hold the data
	for _, c := range t.typedCounts() {
		if c >= 0 && c != want {
			return fmt.Errorf("tensor %q: %s%v needs %d elements, a second data field has %d", t.Name, t.DType, t.Dims, want, c)
		}
	}
	return nil
}

// typedCounts returns the length of each typed data field, -1 for one
// that is absent (nil).
func (t *Tensor) typedCounts() [6]int64 {
	count := func(present bool, n int) int64 {
		if !present {
			return -1
		}
		return int64(n)
	}
	return [6]int64{count(t.Floats() != nil, len(t.Floats())), count(t.Int32s() != nil, len(t.Int32s())), count(t.Int64s() != nil, len(t.Int64s())),
		count(t.Float64s() != nil, len(t.Float64s())), count(t.Uint64s() != nil, len(t.Uint64s())), count(t.Strings() != nil, len(t.Strings()))}
}

// dataCount returns the number of entries in the typed field that holds
// the data, or -1 if none holds any.
func (t *Tensor) dataCount() int64 {
	switch {
	case len(t.Floats()) > 0:
		return int64(len(t.Floats()))
	case len(t.Int32s()) > 0:
		return int64(len(t.Int32s()))
	case len(t.Int64s()) > 0:
		return int64(len(t.Int64s()))
	case len(t.Float64s()) > 0:
		return int64(len(t.Float64s()))
	case len(t.Uint64s()) > 0:
		return int64(len(t.Uint64s()))
	case len(t.Strings()) > 0:
		return int64(len(t.Strings()))
	}
	return 0
}

// Int64Values decodes an integer (or bool) tensor's elements. It refuses
// tensors of more than max elements so callers never allocate without bound.
func (t *Tensor) Int64Values(max int64) ([]int64, error) {
	n, raw, err := t.boundedData(max)
	if err != nil {
		return nil, err
	}
	out := make([]int64, n)
	switch {
	case raw != nil:
		for i := int64(0); i < n; i++ {
			v, ok := rawInt(t.DType, raw, i)
			if !ok {
				return nil, fmt.Errorf("tensor %q: %s is not an integer type", t.Name, t.DType)
			}
			out[i] = v
		}
	case t.Int64s() != nil:
		copy(out, t.Int64s())
	case t.Int32s() != nil && (t.DType.IsInt() || t.DType == Bool) && t.DType.Bits() >= 8:
		widen(out, t.Int32s())
	case t.Uint64s() != nil:
		widen(out, t.Uint64s())
	default:
		if n == 0 {
			return out, nil
		}
		return nil, fmt.Errorf("tensor %q: cannot read %s as integers", t.Name, t.DType)
	}
	return out, nil
}

// Float64Values decodes a float or integer tensor's elements as float64
// (half and 8-bit floats are widened). It refuses more than max elements.
func (t *Tensor) Float64Values(max int64) ([]float64, error) {
	n, raw, err := t.boundedData(max)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	if n == 0 {
		return out, nil
	}
	switch {
	case raw != nil:
		for i := int64(0); i < n; i++ {
			v, ok := rawFloat(t.DType, raw, i)
			if !ok {
				return nil, fmt.Errorf("tensor %q: cannot read %s as numbers", t.Name, t.DType)
			}
			out[i] = v
		}
	case t.Floats() != nil:
		widen(out, t.Floats())
	case t.Float64s() != nil:
		copy(out, t.Float64s())
	case t.Int64s() != nil:
		widen(out, t.Int64s())
	case t.Uint64s() != nil:
		widen(out, t.Uint64s())
	case t.Int32s() != nil:
		for i := range out {
			v := t.Int32s()[i]
			switch t.DType {
			case Float16:
				out[i] = float64(HalfToFloat32(uint16(v)))
			case BFloat16:
				out[i] = float64(BFloat16ToFloat32(uint16(v)))
			default:
				if t.DType.IsFloat() || t.DType.Bits() < 8 {
					return nil, fmt.Errorf("tensor %q: cannot read %s as numbers", t.Name, t.DType)
				}
				out[i] = float64(v)
			}
		}
	default:
		return nil, fmt.Errorf("tensor %q: no data", t.Name)
	}
	return out, nil
}

// boundedData checks that t has at most max elements and data that fits
// them, and returns the count and the packed raw bytes (nil when the data
// is in typed fields).
func (t *Tensor) boundedData(max int64) (int64, []byte, error) {
	n, ok := t.NumElements()
	if !ok || n > max {
		return 0, nil, fmt.Errorf("tensor %q: %v elements exceed the limit %d", t.Name, t.Dims, max)
	}
	if err := t.CheckData(); err != nil {
		return 0, nil, err
	}
	raw, err := t.Packed(t.DType.StorageBytes(n))
	if err != nil {
		return 0, nil, err
	}
	return n, raw, nil
}

// widen sets dst[i] to src[i] converted, for every i of dst.
func widen[D int64 | float64, S int32 | int64 | uint64 | float32](dst []D, src []S) {
	for i := range dst {
		dst[i] = D(src[i])
	}
}

func rawInt(dt DType, b []byte, i int64) (int64, bool) {
	switch dt {
	case Int64:
		return int64(binary.LittleEndian.Uint64(b[8*i:])), true
	case Uint64:
		return int64(binary.LittleEndian.Uint64(b[8*i:])), true
	case Int32:
		return int64(int32(binary.LittleEndian.Uint32(b[4*i:]))), true
	case Uint32:
		return int64(binary.LittleEndian.Uint32(b[4*i:])), true
	case Int16:
		return int64(int16(binary.LittleEndian.Uint16(b[2*i:]))), true
	case Uint16:
		return int64(binary.LittleEndian.Uint16(b[2*i:])), true
	case Int8:
		return int64(int8(b[i])), true
	case Uint8, Bool:
		return int64(b[i]), true
	case Int4:
		v := b[i/2] >> (4 * (i % 2)) & 0xF
		return int64(int8(v<<4) >> 4), true
	case Uint4:
		return int64(b[i/2] >> (4 * (i % 2)) & 0xF), true
	}
	return 0, false
}

func rawFloat(dt DType, b []byte, i int64) (float64, bool) {
	switch dt {
	case Float32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))), true
	case Float64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])), true
	case Float16:
		return float64(HalfToFloat32(binary.LittleEndian.Uint16(b[2*i:]))), true
	case BFloat16:
		return float64(BFloat16ToFloat32(binary.LittleEndian.Uint16(b[2*i:]))), true
	case Uint64:
		return float64(binary.LittleEndian.Uint64(b[8*i:])), true
	}
	if v, ok := rawInt(dt, b, i); ok {
		return float64(v), true
	}
	return 0, false
}

// HalfToFloat32 converts IEEE 754 binary16 bits to float32.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		mant &= 0x3ff
		return math.Float32frombits(sign | e<<23 | mant<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// Float32ToHalf converts float32 to IEEE 754 binary16 bits, rounding to
// nearest even.
func Float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return sign | 0x7e00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		half := uint32(1) << (shift - 1)
		r := mant >> shift
		rem := mant & (1<<shift - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++
	}
	return sign | uint16(r)
}

// BFloat16ToFloat32 converts bfloat16 bits to float32.
func BFloat16ToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// Float32ToBFloat16 converts float32 to bfloat16 bits, rounding to nearest
// even.
func Float32ToBFloat16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// tensorLists are a tensor's typed data lists (Tensor.lists).
type tensorLists struct {
	floats   []float32 // float_data: float32, complex64 (pairs)
	int32s   []int32   // int32_data: int32, int16, int8, uint16, uint8, bool, float16, bfloat16, float8, int4/uint4 (packed)
	int64s   []int64   // int64_data
	float64s []float64 // double_data: float64, complex128 (pairs)
	uint64s  []uint64  // uint64_data: uint32, uint64
	strings  [][]byte  // string_data
}

// Floats is t's float_data: float32, complex64 (pairs).
func (t *Tensor) Floats() []float32 {
	if t.lists == nil {
		return nil
	}
	return t.lists.floats
}

// Int32s is t's int32_data: int32, int16, int8, uint16, uint8, bool,
// float16, bfloat16, float8, int4/uint4 (packed).
func (t *Tensor) Int32s() []int32 {
	if t.lists == nil {
		return nil
	}
	return t.lists.int32s
}

// Int64s is t's int64_data.
func (t *Tensor) Int64s() []int64 {
	if t.lists == nil {
		return nil
	}
	return t.lists.int64s
}

// Float64s is t's double_data: float64, complex128 (pairs).
func (t *Tensor) Float64s() []float64 {
	if t.lists == nil {
		return nil
	}
	return t.lists.float64s
}

// Uint64s is t's uint64_data: uint32, uint64.
func (t *Tensor) Uint64s() []uint64 {
	if t.lists == nil {
		return nil
	}
	return t.lists.uint64s
}

// Strings is t's string_data.
func (t *Tensor) Strings() [][]byte {
	if t.lists == nil {
		return nil
	}
	return t.lists.strings
}

// setLists gives t the lists l with set applied: a new tensorLists (a
// copy of t's may share the old one), nil when all its lists are nil.
func (t *Tensor) setLists(set func(l *tensorLists)) *Tensor {
	var l tensorLists
	if t.lists != nil {
		l = *t.lists
	}
	set(&l)
	t.lists = &l
	if l.floats == nil && l.int32s == nil && l.int64s == nil && l.float64s == nil && l.uint64s == nil && l.strings == nil {
		t.lists = nil
	}
	return t
}

// SetFloats sets t's float_data (the other lists kept) and returns t.
func (t *Tensor) SetFloats(v []float32) *Tensor {
	return t.setLists(func(l *tensorLists) { l.floats = v })
}

// SetInt32s sets t's int32_data (the other lists kept) and returns t.
func (t *Tensor) SetInt32s(v []int32) *Tensor {
	return t.setLists(func(l *tensorLists) { l.int32s = v })
}

// SetInt64s sets t's int64_data (the other lists kept) and returns t.
func (t *Tensor) SetInt64s(v []int64) *Tensor {
	return t.setLists(func(l *tensorLists) { l.int64s = v })
}

// SetFloat64s sets t's double_data (the other lists kept) and returns t.
func (t *Tensor) SetFloat64s(v []float64) *Tensor {
	return t.setLists(func(l *tensorLists) { l.float64s = v })
}

// SetUint64s sets t's uint64_data (the other lists kept) and returns t.
func (t *Tensor) SetUint64s(v []uint64) *Tensor {
	return t.setLists(func(l *tensorLists) { l.uint64s = v })
}

// SetStrings sets t's string_data (the other lists kept) and returns t.
func (t *Tensor) SetStrings(v [][]byte) *Tensor {
	return t.setLists(func(l *tensorLists) { l.strings = v })
}
