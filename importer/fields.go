package importer

// This file lists the onnx.proto field numbers that the decoder and the
// exporter use (onnx/onnx.in.proto, IR version 11).

import "github.com/wolong-dev/wolong/internal/pbwire"

type num = pbwire.Number

// ModelProto.
const (
	modelIRVersion       num = 1
	modelProducerName    num = 2
	modelProducerVersion num = 3
	modelDomain          num = 4
	modelModelVersion    num = 5
	modelDocString       num = 6
	modelGraph           num = 7
	modelOpsetImport     num = 8
	modelMetadataProps   num = 14
	modelTrainingInfo    num = 20
	modelFunctions       num = 25
)

// OperatorSetIdProto and StringStringEntryProto.
const (
	opsetDomain  num = 1
	opsetVersion num = 2
	entryKey     num = 1
	entryValue   num = 2
)

// GraphProto.
const (
	graphNode                   num = 1
	graphName                   num = 2
	graphInitializer            num = 5
	graphDocString              num = 10
	graphInput                  num = 11
	graphOutput                 num = 12
	graphValueInfo              num = 13
	graphQuantizationAnnotation num = 14
	graphSparseInitializer      num = 15
	graphMetadataProps          num = 16
)

// NodeProto.
const (
	nodeInput         num = 1
	nodeOutput        num = 2
	nodeName          num = 3
	nodeOpType        num = 4
	nodeAttribute     num = 5
	nodeDocString     num = 6
	nodeDomain        num = 7
	nodeOverload      num = 8
	nodeMetadataProps num = 9
)

// AttributeProto.
const (
	attrName          num = 1
	attrF             num = 2
	attrI             num = 3
	attrS             num = 4
	attrT             num = 5
	attrG             num = 6
	attrFloats        num = 7
	attrInts          num = 8
	attrStrings       num = 9
	attrTensors       num = 10
	attrGraphs        num = 11
	attrDocString     num = 13
	attrTP            num = 14
	attrTypeProtos    num = 15
	attrType          num = 20
	attrRefAttrName   num = 21
	attrSparseTensor  num = 22
	attrSparseTensors num = 23
)

// ValueInfoProto.
const (
	viName          num = 1
	viType          num = 2
	viDocString     num = 3
	viMetadataProps num = 4
)

// TypeProto and its members.
const (
	typeTensor       num = 1
	typeSequence     num = 4
	typeMap          num = 5
	typeDenotation   num = 6
	typeSparseTensor num = 8
	typeOptional     num = 9

	tensorTypeElemType num = 1 // also SparseTensor
	tensorTypeShape    num = 2
	seqElemType        num = 1 // also Optional
	mapKeyType         num = 1
	mapValueType       num = 2

	shapeDim         num = 1
	dimValue         num = 1
	dimParam         num = 2
	dimDenotationNum num = 3
)

// TensorProto.
const (
	tensorDims          num = 1
	tensorDataType      num = 2
	tensorSegment       num = 3
	tensorFloatData     num = 4
	tensorInt32Data     num = 5
	tensorStringData    num = 6
	tensorInt64Data     num = 7
	tensorName          num = 8
	tensorRawData       num = 9
	tensorDoubleData    num = 10
	tensorUint64Data    num = 11
	tensorDocString     num = 12
	tensorExternalData  num = 13
	tensorDataLocation  num = 14
	tensorMetadataProps num = 16

	segmentBegin num = 1
	segmentEnd   num = 2
)

// SparseTensorProto.
const (
	sparseValues  num = 1
	sparseIndices num = 2
	sparseDims    num = 3
)

// FunctionProto.
const (
	fnName           num = 1
	fnInput          num = 4
	fnOutput         num = 5
	fnAttribute      num = 6
	fnNode           num = 7
	fnDocString      num = 8
	fnOpsetImport    num = 9
	fnDomain         num = 10
	fnAttributeProto num = 11
	fnValueInfo      num = 12
	fnOverload       num = 13
	fnMetadataProps  num = 14
)

// SequenceProto and OptionalProto (onnx/onnx-ml.proto; the ONNX test-data
// format for values that are not tensors). The element fields have the
// same numbers in both.
const (
	valName          num = 1
	valElemType      num = 2
	valTensorValue   num = 3
	valSparseValue   num = 4
	valSequenceValue num = 5
	valMapValue      num = 6
	valOptionalValue num = 7
)

// SequenceProto / OptionalProto elem_type values.
const (
	elemTensor   = 1
	elemSequence = 3
)
