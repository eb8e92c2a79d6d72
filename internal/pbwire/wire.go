package pbwire

// This file holds the protobuf wire-format primitives wolong reads and
// writes ONNX files with: the subset of google.golang.org/protobuf's
// encoding/protowire it used, with the same contracts (a Consume function
// returns a negative length on malformed input). Importing protowire
// linked the protobuf module's initialisers into every command's start-up
// (among them one that reads the executable file), about 0.5 ms of
// `wolong --help`'s (issue 25); FuzzWire checks these against protowire,
// which stays a test-only dependency.

import "math/bits"

// Number is a field number.
type Number int32

// Type is a wire type.
type Type int8

// The wire types.
const (
	VarintType     Type = 0
	Fixed32Type    Type = 5
	Fixed64Type    Type = 1
	BytesType      Type = 2
	StartGroupType Type = 3
	EndGroupType   Type = 4
)

// Field numbers outside [minNumber, maxNumber] are invalid in a tag.
const (
	minNumber Number = 1
	maxNumber Number = 1<<29 - 1
)

// The negative lengths Consume functions return.
const (
	errTruncated = -1
	errFieldNum  = -2
	errOverflow  = -3
	errReserved  = -4
	errEndGroup  = -5
	errRecursion = -6
)

// recursionLimit bounds nested groups (protowire's default).
const recursionLimit = 10000

// AppendVarint appends v as a varint.
func AppendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// SizeVarint is the encoded size of v as a varint.
func SizeVarint(v uint64) int {
	return int(9*uint32(bits.Len64(v))+64) / 64
}

// ConsumeVarint parses a varint, returning its length (negative on error).
func ConsumeVarint(b []byte) (v uint64, n int) {
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, errTruncated
		}
		c := b[i]
		if i == 9 && c > 1 {
			return 0, errOverflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, errOverflow
}

// AppendTag appends a field's tag.
func AppendTag(b []byte, num Number, typ Type) []byte {
	return AppendVarint(b, uint64(num)<<3|uint64(typ&7))
}

// ConsumeTag parses a tag, returning its length (negative on error: a
// field number under 1 or over 2^31-1 included, as protowire).
func ConsumeTag(b []byte) (Number, Type, int) {
	v, n := ConsumeVarint(b)
	if n < 0 {
		return 0, 0, n
	}
	if v>>3 > uint64(1<<31-1) {
		return 0, 0, errFieldNum
	}
	num, typ := Number(v>>3), Type(v&7)
	if num < minNumber {
		return 0, 0, errFieldNum
	}
	return num, typ, n
}

// AppendFixed32 appends v little-endian.
func AppendFixed32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// AppendFixed64 appends v little-endian.
func AppendFixed64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

// ConsumeFixed32 parses a fixed32, returning its length (negative on error).
func ConsumeFixed32(b []byte) (uint32, int) {
	if len(b) < 4 {
		return 0, errTruncated
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, 4
}

// ConsumeFixed64 parses a fixed64, returning its length (negative on error).
func ConsumeFixed64(b []byte) (uint64, int) {
	if len(b) < 8 {
		return 0, errTruncated
	}
	lo, _ := ConsumeFixed32(b)
	hi, _ := ConsumeFixed32(b[4:])
	return uint64(lo) | uint64(hi)<<32, 8
}

// AppendBytes appends v length-prefixed.
func AppendBytes(b []byte, v []byte) []byte {
	return append(AppendVarint(b, uint64(len(v))), v...)
}

// AppendString appends v length-prefixed.
func AppendString(b []byte, v string) []byte {
	return append(AppendVarint(b, uint64(len(v))), v...)
}

// ConsumeBytes parses a length-prefixed payload, returning a view of it
// and the field value's length (negative on error).
func ConsumeBytes(b []byte) ([]byte, int) {
	m, n := ConsumeVarint(b)
	if n < 0 {
		return nil, n
	}
	if m > uint64(len(b[n:])) {
		return nil, errTruncated
	}
	return b[n:][:m], n + int(m)
}

// ConsumeFieldValue returns the length of the value of a field numbered
// num of wire type typ at the start of b (for a group, up to and
// including its end tag), negative on error.
func ConsumeFieldValue(num Number, typ Type, b []byte) int {
	return consumeFieldValue(num, typ, b, recursionLimit)
}

func consumeFieldValue(num Number, typ Type, b []byte, depth int) int {
	switch typ {
	case VarintType:
		_, n := ConsumeVarint(b)
		return n
	case Fixed32Type:
		_, n := ConsumeFixed32(b)
		return n
	case Fixed64Type:
		_, n := ConsumeFixed64(b)
		return n
	case BytesType:
		_, n := ConsumeBytes(b)
		return n
	case StartGroupType:
		if depth < 0 {
			return errRecursion
		}
		n0 := len(b)
		for {
			num2, typ2, n := ConsumeTag(b)
			if n < 0 {
				return n
			}
			b = b[n:]
			if typ2 == EndGroupType {
				if num != num2 {
					return errEndGroup
				}
				return n0 - len(b)
			}
			n = consumeFieldValue(num2, typ2, b, depth-1)
			if n < 0 {
				return n
			}
			b = b[n:]
		}
	case EndGroupType:
		return errEndGroup
	default:
		return errReserved
	}
}
