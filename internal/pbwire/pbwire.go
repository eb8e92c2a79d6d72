// Package pbwire walks the fields of a protobuf message in wire format: the
// one loop that the ONNX importer and bench/mutate's lossless tree read
// files with.
package pbwire

import (
	"errors"
)

// Field is one field. For varint and fixed wire types U holds the value;
// for a length-delimited field B is a view of the payload; for a group (a
// deprecated wire type ONNX never uses) B is a view of its encoded body,
// the end tag included.
type Field struct {
	Num Number
	Typ Type
	U   uint64
	B   []byte
}

// ErrTruncated is Each's error for bytes that are not a sequence of
// well-formed fields.
var ErrTruncated = errors.New("truncated or malformed protobuf")

// Each calls fn for every field of the message in b, in file order. It
// returns fn's first error, or ErrTruncated where b stops holding a
// well-formed field (fn has had the fields before it).
func Each(b []byte, fn func(Field) error) error {
	for len(b) > 0 {
		n, t, l := ConsumeTag(b)
		if l < 0 {
			return ErrTruncated
		}
		b = b[l:]
		f := Field{Num: n, Typ: t}
		switch t {
		case VarintType:
			f.U, l = ConsumeVarint(b)
		case Fixed32Type:
			var v uint32
			v, l = ConsumeFixed32(b)
			f.U = uint64(v)
		case Fixed64Type:
			f.U, l = ConsumeFixed64(b)
		case BytesType:
			f.B, l = ConsumeBytes(b)
		default:
			if l = ConsumeFieldValue(n, t, b); l >= 0 {
				f.B = b[:l]
			}
		}
		if l < 0 {
			return ErrTruncated
		}
		b = b[l:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}
