package eval

// This file implements reading and writing runtime values as protobuf
// files, the ONNX test-data format: TensorProto (decoded by the importer),
// SequenceProto and OptionalProto of tensors.

import (
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/safefile"
	"github.com/wolong-dev/wolong/ir"
)

// maxFileBytes bounds value files read from disk.
const maxFileBytes = 1 << 34

// EncodeTensor serializes t as an onnx.TensorProto named name (raw_data
// for numbers, string_data for strings).
func EncodeTensor(t *Tensor, name string) ([]byte, error) {
	it, err := t.ToIR(name)
	if err != nil {
		return nil, err
	}
	var b []byte
	if len(it.Dims) > 0 {
		var packed []byte
		for _, d := range it.Dims {
			packed = protowire.AppendVarint(packed, uint64(d))
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, packed)
	}
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(it.DType))
	for _, s := range it.Strings {
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		b = protowire.AppendBytes(b, s)
	}
	if name != "" {
		b = protowire.AppendTag(b, 8, protowire.BytesType)
		b = protowire.AppendString(b, name)
	}
	if it.DType != ir.String {
		b = protowire.AppendTag(b, 9, protowire.BytesType)
		b = protowire.AppendBytes(b, it.Raw)
	}
	return b, nil
}

// SequenceProto / OptionalProto elem_type values.
const (
	elemTensor   = 1
	elemSequence = 3
	elemOptional = 5
)

// EncodeValue serializes a tensor, sequence or optional of tensors.
func EncodeValue(v Value, name string) ([]byte, error) {
	switch x := v.(type) {
	case *Tensor:
		return EncodeTensor(x, name)
	case *Sequence:
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, name)
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, elemTensor)
		for _, t := range x.Items {
			tb, err := EncodeTensor(t, "")
			if err != nil {
				return nil, err
			}
			b = protowire.AppendTag(b, 3, protowire.BytesType)
			b = protowire.AppendBytes(b, tb)
		}
		return b, nil
	case *Optional:
		var b []byte
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, name)
		switch e := x.Value.(type) {
		case nil:
			b = protowire.AppendTag(b, 2, protowire.VarintType)
			b = protowire.AppendVarint(b, 0)
		case *Tensor:
			tb, err := EncodeTensor(e, "")
			if err != nil {
				return nil, err
			}
			b = protowire.AppendTag(b, 2, protowire.VarintType)
			b = protowire.AppendVarint(b, elemTensor)
			b = protowire.AppendTag(b, 3, protowire.BytesType)
			b = protowire.AppendBytes(b, tb)
		case *Sequence:
			sb, err := EncodeValue(e, "")
			if err != nil {
				return nil, err
			}
			b = protowire.AppendTag(b, 2, protowire.VarintType)
			b = protowire.AppendVarint(b, elemSequence)
			b = protowire.AppendTag(b, 5, protowire.BytesType)
			b = protowire.AppendBytes(b, sb)
		default:
			return nil, fmt.Errorf("eval: cannot encode optional of %T", e)
		}
		return b, nil
	}
	return nil, fmt.Errorf("eval: cannot encode %T", v)
}

// fieldsOf iterates over the fields of a message.
func fieldsOf(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch typ {
		case protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			if err := fn(num, typ, v, 0); err != nil {
				return err
			}
			b = b[m:]
		case protowire.VarintType:
			x, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			if err := fn(num, typ, nil, x); err != nil {
				return err
			}
			b = b[m:]
		default:
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			b = b[m:]
		}
	}
	return nil
}

func decodeTensorBytes(b []byte, maxBytes int64) (*Tensor, error) {
	it, err := importer.DecodeTensor(b)
	if err != nil {
		return nil, err
	}
	return FromIR(it, maxBytes)
}

// DecodeValue decodes a serialized value of the given kind (tensor,
// sequence or optional). KindUnknown is read as a tensor.
func DecodeValue(b []byte, kind ir.TypeKind, maxBytes int64) (Value, error) {
	switch kind {
	case ir.KindSequence:
		seq := &Sequence{}
		err := fieldsOf(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
			switch {
			case num == 2 && typ == protowire.VarintType && x != elemTensor && x != 0:
				return fmt.Errorf("sequence of element type %d is not supported", x)
			case num == 3 && typ == protowire.BytesType:
				t, err := decodeTensorBytes(v, maxBytes)
				if err != nil {
					return err
				}
				seq.Items = append(seq.Items, t)
				seq.Elem = t.DType
			case (num == 4 || num == 5 || num == 6 || num == 7) && typ == protowire.BytesType:
				return fmt.Errorf("sequence of non-tensor values is not supported")
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("eval: sequence: %v", err)
		}
		return seq, nil
	case ir.KindOptional:
		opt := &Optional{}
		err := fieldsOf(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
			if typ != protowire.BytesType {
				return nil
			}
			switch num {
			case 3:
				t, err := decodeTensorBytes(v, maxBytes)
				if err != nil {
					return err
				}
				opt.Value = t
			case 5:
				s, err := DecodeValue(v, ir.KindSequence, maxBytes)
				if err != nil {
					return err
				}
				opt.Value = s
			case 4, 6, 7:
				return fmt.Errorf("optional of a sparse tensor, map or optional is not supported")
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("eval: optional: %v", err)
		}
		return opt, nil
	case ir.KindTensor, ir.KindUnknown:
		t, err := decodeTensorBytes(b, maxBytes)
		if err != nil {
			return nil, fmt.Errorf("eval: %v", err)
		}
		return t, nil
	}
	return nil, fmt.Errorf("eval: values of kind %d are not supported", kind)
}

// ReadValueFile reads a value file of the given kind.
func ReadValueFile(path string, kind ir.TypeKind, maxBytes int64) (Value, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %v", err)
	}
	limit := int64(maxFileBytes)
	if maxBytes > 0 && maxBytes < limit/4 {
		// Decoded tensors take at most 4x their packed size here
		// (bools and int8 widen to int64); the file is bounded so that
		// reading it cannot exceed the memory limit either.
		limit = 4*maxBytes + 1<<20
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("eval: %s: file of %d bytes exceeds the limit of %d bytes", path, st.Size(), limit)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %v", err)
	}
	v, err := DecodeValue(b, kind, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%v (%s)", err, path)
	}
	return v, nil
}

// WriteValueFile writes v to path atomically, with mode 0644 (see
// internal/safefile).
func WriteValueFile(path string, v Value, name string) error {
	b, err := EncodeValue(v, name)
	if err != nil {
		return err
	}
	return safefile.Write(path, nil, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// KindOf returns the kind of a graph value: its inferred type's kind, or
// the declared one when inference has not run.
func KindOf(v *ir.Value) ir.TypeKind {
	if v.Type.Kind != ir.KindUnknown {
		return v.Type.Kind
	}
	if v.Declared != nil {
		return v.Declared.Kind
	}
	return ir.KindUnknown
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
