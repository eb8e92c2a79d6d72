package importer

// This file implements the low-level walk over protobuf fields.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/wolong-dev/wolong/internal/pbwire"
)

// field is one decoded field: for varint and fixed wire types u holds the
// value; for length-delimited fields b is a view of the payload.
type field struct {
	num num
	typ pbwire.Type
	u   uint64
	b   []byte
}

var errTruncated = pbwire.ErrTruncated

// eachField calls fn for every field of the message in b, in order.
// Groups (a deprecated wire type ONNX never uses) are skipped.
func eachField(b []byte, fn func(f field) error) error {
	return pbwire.Each(b, func(f pbwire.Field) error {
		if f.Typ == pbwire.StartGroupType {
			return nil
		}
		return fn(field{num: f.Num, typ: f.Typ, u: f.U, b: f.B})
	})
}

// str returns a length-delimited field as a string, refusing invalid UTF-8.
func (f field) str(what string) (string, error) {
	if f.typ != pbwire.BytesType {
		return "", fmt.Errorf("%s: wrong wire type", what)
	}
	if !utf8.Valid(f.b) {
		return "", fmt.Errorf("%s %q is not valid UTF-8", what, truncate(string(f.b)))
	}
	return string(f.b), nil
}

// doc returns a doc string, replacing invalid UTF-8 rather than failing.
func (f field) doc() string {
	if utf8.Valid(f.b) {
		return string(f.b)
	}
	return string([]rune(string(f.b)))
}

func (f field) int64() (int64, error) {
	if f.typ != pbwire.VarintType {
		return 0, errors.New("wrong wire type for an integer")
	}
	return int64(f.u), nil
}

// appendInt64s decodes a repeated int64 field in packed or unpacked form.
func appendInt64s(dst []int64, f field) ([]int64, error) { return appendVarints(dst, f) }

// appendVarints decodes a repeated varint field (int64, int32 or uint64;
// packed or not), each value converted from its int64 reading, straight
// into dst: int32_data holds the weights of 8- and 16-bit tensors, so no
// temporary copy.
func appendVarints[T int64 | int32 | uint64](dst []T, f field) ([]T, error) {
	switch f.typ {
	case pbwire.VarintType:
		return append(dst, T(int64(f.u))), nil
	case pbwire.BytesType:
		b := f.b
		// one allocation: a packed list holds one value per byte with
		// the high bit clear (a list of millions would otherwise grow
		// through a dozen copies)
		n := 0
		for _, c := range b {
			if c < 0x80 {
				n++
			}
		}
		dst = slices.Grow(dst, n)
		for len(b) > 0 {
			v, l := pbwire.ConsumeVarint(b)
			if l < 0 {
				return dst, errTruncated
			}
			dst = append(dst, T(int64(v)))
			b = b[l:]
		}
		return dst, nil
	}
	return dst, errors.New("wrong wire type for repeated int64")
}

// appendFloats decodes a repeated float field (fixed32, packed or not).
func appendFloats(dst []float32, f field) ([]float32, error) {
	return appendFixed(dst, f, pbwire.Fixed32Type, "float", func(u uint64) float32 { return math.Float32frombits(uint32(u)) })
}

// appendDoubles decodes a repeated double field (fixed64, packed or not).
func appendDoubles(dst []float64, f field) ([]float64, error) {
	return appendFixed(dst, f, pbwire.Fixed64Type, "double", math.Float64frombits)
}

// appendFixed decodes a repeated field of wire type wt (Fixed32Type or
// Fixed64Type), one value or packed, each value's bits converted by conv;
// what names the type in the error for any other wire type.
func appendFixed[T any](dst []T, f field, wt pbwire.Type, what string, conv func(u uint64) T) ([]T, error) {
	switch f.typ {
	case wt:
		return append(dst, conv(f.u)), nil
	case pbwire.BytesType:
		size := 8
		if wt == pbwire.Fixed32Type {
			size = 4
		}
		if len(f.b)%size != 0 {
			return dst, errTruncated
		}
		for i := 0; i < len(f.b); i += size {
			var u uint64
			if size == 4 {
				v, _ := pbwire.ConsumeFixed32(f.b[i:])
				u = uint64(v)
			} else {
				u, _ = pbwire.ConsumeFixed64(f.b[i:])
			}
			dst = append(dst, conv(u))
		}
		return dst, nil
	}
	return dst, errors.New("wrong wire type for repeated " + what)
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
