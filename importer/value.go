package importer

// This file encodes and decodes the messages of the ONNX test-data
// format that hold runtime values: TensorProto, and SequenceProto and
// OptionalProto of tensors. Packages that read and write value files
// (eval) go through it and never see a field number. Sparse tensors,
// maps and optionals of optionals are not supported.

import (
	"errors"
	"fmt"

	"github.com/wolong-dev/wolong/internal/pbwire"

	"github.com/wolong-dev/wolong/ir"
)

// EncodeTensor serializes t as a TensorProto: dims (packed), data_type,
// string_data for a string tensor, name when not empty, and raw_data for
// any other type.
func EncodeTensor(t *ir.Tensor, name string) []byte {
	var b []byte
	if len(t.Dims) > 0 {
		var packed []byte
		for _, d := range t.Dims {
			packed = pbwire.AppendVarint(packed, uint64(d))
		}
		b = appendBytesField(b, tensorDims, packed)
	}
	b = appendVarintField(b, tensorDataType, uint64(t.DType))
	for _, s := range t.Strings() {
		b = appendBytesField(b, tensorStringData, s)
	}
	if name != "" {
		b = appendBytesField(b, tensorName, []byte(name))
	}
	if t.DType != ir.String {
		b = appendBytesField(b, tensorRawData, t.Raw)
	}
	return b
}

// EncodeSequence serializes a SequenceProto named name of tensors, each
// an encoded TensorProto (EncodeTensor).
func EncodeSequence(name string, tensors [][]byte) []byte {
	b := appendBytesField(nil, valName, []byte(name))
	b = appendVarintField(b, valElemType, elemTensor)
	for _, t := range tensors {
		b = appendBytesField(b, valTensorValue, t)
	}
	return b
}

// EncodeOptional serializes an OptionalProto named name holding elem:
// an encoded TensorProto (kind ir.KindTensor), an encoded SequenceProto
// (ir.KindSequence), or nothing (elem nil: no value).
func EncodeOptional(name string, kind ir.TypeKind, elem []byte) ([]byte, error) {
	b := appendBytesField(nil, valName, []byte(name))
	switch {
	case elem == nil:
		return appendVarintField(b, valElemType, 0), nil
	case kind == ir.KindTensor:
		b = appendVarintField(b, valElemType, elemTensor)
		return appendBytesField(b, valTensorValue, elem), nil
	case kind == ir.KindSequence:
		b = appendVarintField(b, valElemType, elemSequence)
		return appendBytesField(b, valSequenceValue, elem), nil
	}
	return nil, fmt.Errorf("cannot encode an optional of kind %d", kind)
}

// DecodeSequence calls tensor with each element of the SequenceProto in
// b, an encoded TensorProto (DecodeTensor), in order. A sequence of other
// elements is an error, as is one that tensor returns.
func DecodeSequence(b []byte, tensor func(elem []byte) error) error {
	return eachField(b, func(f field) error {
		switch {
		case f.num == valElemType && f.typ == pbwire.VarintType && f.u != elemTensor && f.u != 0:
			return fmt.Errorf("sequence of element type %d is not supported", f.u)
		case f.num == valTensorValue && f.typ == pbwire.BytesType:
			return tensor(f.b)
		case (f.num == valSparseValue || f.num == valSequenceValue || f.num == valMapValue || f.num == valOptionalValue) && f.typ == pbwire.BytesType:
			return errors.New("sequence of non-tensor values is not supported")
		}
		return nil
	})
}

// DecodeOptional calls elem with each element field of the OptionalProto
// in b (in a valid message, at most one): kind ir.KindTensor for an
// encoded TensorProto, ir.KindSequence for an encoded SequenceProto. An
// optional of a sparse tensor, map or optional is an error, as is one
// that elem returns.
func DecodeOptional(b []byte, elem func(kind ir.TypeKind, v []byte) error) error {
	return eachField(b, func(f field) error {
		if f.typ != pbwire.BytesType {
			return nil
		}
		switch f.num {
		case valTensorValue:
			return elem(ir.KindTensor, f.b)
		case valSequenceValue:
			return elem(ir.KindSequence, f.b)
		case valSparseValue, valMapValue, valOptionalValue:
			return errors.New("optional of a sparse tensor, map or optional is not supported")
		}
		return nil
	})
}

func appendBytesField(b []byte, n num, v []byte) []byte {
	b = pbwire.AppendTag(b, n, pbwire.BytesType)
	return pbwire.AppendBytes(b, v)
}

func appendVarintField(b []byte, n num, v uint64) []byte {
	b = pbwire.AppendTag(b, n, pbwire.VarintType)
	return pbwire.AppendVarint(b, v)
}
