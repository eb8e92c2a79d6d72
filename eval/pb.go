package eval

// This file implements reading and writing runtime values as files of the
// ONNX test-data format: a TensorProto, or a SequenceProto or
// OptionalProto of tensors. The importer, which owns the wire format,
// encodes and decodes the messages.

import (
	"fmt"
	"io"
	"os"

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
	return importer.EncodeTensor(it, name), nil
}

// EncodeValue serializes a tensor, sequence or optional of tensors.
func EncodeValue(v Value, name string) ([]byte, error) {
	switch x := v.(type) {
	case *Tensor:
		return EncodeTensor(x, name)
	case *Sequence:
		items := make([][]byte, 0, len(x.Items))
		for _, t := range x.Items {
			tb, err := EncodeTensor(t, "")
			if err != nil {
				return nil, err
			}
			items = append(items, tb)
		}
		return importer.EncodeSequence(name, items), nil
	case *Optional:
		switch e := x.Value.(type) {
		case nil:
			return importer.EncodeOptional(name, ir.KindUnknown, nil)
		case *Tensor:
			tb, err := EncodeTensor(e, "")
			if err != nil {
				return nil, err
			}
			return importer.EncodeOptional(name, ir.KindTensor, tb)
		case *Sequence:
			sb, err := EncodeValue(e, "")
			if err != nil {
				return nil, err
			}
			return importer.EncodeOptional(name, ir.KindSequence, sb)
		default:
			return nil, fmt.Errorf("cannot encode optional of %T", e)
		}
	}
	return nil, fmt.Errorf("cannot encode %T", v)
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
		err := importer.DecodeSequence(b, func(v []byte) error {
			t, err := decodeTensorBytes(v, maxBytes)
			if err != nil {
				return err
			}
			seq.Items = append(seq.Items, t)
			seq.Elem = t.DType
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("sequence: %v", err)
		}
		return seq, nil
	case ir.KindOptional:
		opt := &Optional{}
		err := importer.DecodeOptional(b, func(k ir.TypeKind, v []byte) error {
			var err error
			if k == ir.KindTensor {
				opt.Value, err = decodeTensorBytes(v, maxBytes)
			} else {
				opt.Value, err = DecodeValue(v, ir.KindSequence, maxBytes)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("optional: %v", err)
		}
		return opt, nil
	case ir.KindTensor, ir.KindUnknown:
		t, err := decodeTensorBytes(b, maxBytes)
		if err != nil {
			return nil, fmt.Errorf("%v", err)
		}
		return t, nil
	}
	return nil, fmt.Errorf("values of kind %d are not supported", kind)
}

// ReadValueFile reads a value file of the given kind.
func ReadValueFile(path string, kind ir.TypeKind, maxBytes int64) (Value, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	limit := int64(maxFileBytes)
	if maxBytes > 0 && maxBytes < limit/4 {
		// Decoded tensors take at most 4x their packed size here
		// (bools and int8 widen to int64); the file is bounded so that
		// reading it cannot exceed the memory limit either.
		limit = 4*maxBytes + 1<<20
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: file of %d bytes exceeds the limit of %d bytes", path, st.Size(), limit)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%v", err)
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
