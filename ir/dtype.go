package ir

// This file implements element data types.

import "fmt"

// DType is a tensor element type. Its numeric values are those of
// onnx.TensorProto.DataType, so the importer and exporter convert by a cast.
type DType int32

// Element types, numbered as in onnx.proto (TensorProto.DataType).
const (
	Undefined      DType = 0
	Float32        DType = 1
	Uint8          DType = 2
	Int8           DType = 3
	Uint16         DType = 4
	Int16          DType = 5
	Int32          DType = 6
	Int64          DType = 7
	String         DType = 8
	Bool           DType = 9
	Float16        DType = 10
	Float64        DType = 11
	Uint32         DType = 12
	Uint64         DType = 13
	Complex64      DType = 14
	Complex128     DType = 15
	BFloat16       DType = 16
	Float8E4M3FN   DType = 17
	Float8E4M3FNUZ DType = 18
	Float8E5M2     DType = 19
	Float8E5M2FNUZ DType = 20
	Uint4          DType = 21
	Int4           DType = 22
	Float4E2M1     DType = 23
	Float8E8M0     DType = 24
	Uint2          DType = 25
	Int2           DType = 26
)

type dtypeInfo struct {
	name string // wolong's name, used in text and JSON output
	bits int    // storage bits per element; 0 for variable-size (string)
	kind byte   // 'f' float, 'i' signed int, 'u' unsigned int, 'b' bool, 's' string, 'c' complex
}

var dtypes = [...]dtypeInfo{
	Undefined:      {"undefined", 0, 0},
	Float32:        {"float32", 32, 'f'},
	Uint8:          {"uint8", 8, 'u'},
	Int8:           {"int8", 8, 'i'},
	Uint16:         {"uint16", 16, 'u'},
	Int16:          {"int16", 16, 'i'},
	Int32:          {"int32", 32, 'i'},
	Int64:          {"int64", 64, 'i'},
	String:         {"string", 0, 's'},
	Bool:           {"bool", 8, 'b'},
	Float16:        {"float16", 16, 'f'},
	Float64:        {"float64", 64, 'f'},
	Uint32:         {"uint32", 32, 'u'},
	Uint64:         {"uint64", 64, 'u'},
	Complex64:      {"complex64", 64, 'c'},
	Complex128:     {"complex128", 128, 'c'},
	BFloat16:       {"bfloat16", 16, 'f'},
	Float8E4M3FN:   {"float8e4m3fn", 8, 'f'},
	Float8E4M3FNUZ: {"float8e4m3fnuz", 8, 'f'},
	Float8E5M2:     {"float8e5m2", 8, 'f'},
	Float8E5M2FNUZ: {"float8e5m2fnuz", 8, 'f'},
	Uint4:          {"uint4", 4, 'u'},
	Int4:           {"int4", 4, 'i'},
	Float4E2M1:     {"float4e2m1", 4, 'f'},
	Float8E8M0:     {"float8e8m0", 8, 'f'},
	Uint2:          {"uint2", 2, 'u'},
	Int2:           {"int2", 2, 'i'},
}

// Valid reports whether d is a known, defined element type.
func (d DType) Valid() bool { return d > 0 && int(d) < len(dtypes) }

// String returns wolong's name for d ("float32", "bfloat16", ...).
func (d DType) String() string {
	if d >= 0 && int(d) < len(dtypes) {
		return dtypes[d].name
	}
	return fmt.Sprintf("dtype(%d)", int32(d))
}

// Bits is the storage size of one element in bits (4 for int4); 0 for
// strings and undefined types.
func (d DType) Bits() int {
	if d >= 0 && int(d) < len(dtypes) {
		return dtypes[d].bits
	}
	return 0
}

// IsFloat reports whether d is a real floating-point type (any width).
func (d DType) IsFloat() bool { return d.Valid() && dtypes[d].kind == 'f' }

// IsInt reports whether d is a signed or unsigned integer type.
func (d DType) IsInt() bool { return d.Valid() && (dtypes[d].kind == 'i' || dtypes[d].kind == 'u') }

// IsSigned reports whether d is a signed integer or floating-point type.
func (d DType) IsSigned() bool { return d.Valid() && (dtypes[d].kind == 'i' || dtypes[d].kind == 'f') }

// IsComplex reports whether d is complex64 or complex128.
func (d DType) IsComplex() bool { return d.Valid() && dtypes[d].kind == 'c' }

// StorageBytes is the number of bytes n elements of d occupy when packed
// (sub-byte types round up). It returns -1 for strings or on overflow.
func (d DType) StorageBytes(n int64) int64 {
	b := int64(d.Bits())
	if b == 0 || n < 0 {
		return -1
	}
	if n > (1<<62)/b {
		return -1
	}
	return (n*b + 7) / 8
}

// ParseDType maps a name produced by String back to the DType. It also
// accepts the ONNX spellings ("float", "double", "half").
func ParseDType(s string) (DType, bool) {
	switch s {
	case "float":
		return Float32, true
	case "double":
		return Float64, true
	case "half":
		return Float16, true
	}
	for i, info := range dtypes {
		if i > 0 && info.name == s {
			return DType(i), true
		}
	}
	return Undefined, false
}
