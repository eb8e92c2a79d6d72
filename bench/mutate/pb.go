package main

// This file holds a small, lossless protobuf tree for ONNX files: every
// field is kept in file order (unknown ones included) and re-encoded as it
// was unless a mutation changed it. Length-delimited fields that the
// schema below knows to be messages are parsed into sub-trees, so a
// mutation can reach a Dim inside a Graph inside an If inside a Loop. A
// payload that does not parse as the message it should be stays raw bytes.

import (
	"errors"

	"github.com/wolong-dev/wolong/internal/pbwire"
)

// kind names an onnx.proto message type.
type kind uint8

const (
	kLeaf kind = iota // no known sub-messages (OperatorSetId, StringStringEntry, ...)
	kModel
	kGraph
	kNode
	kAttr
	kTensor
	kSparse
	kValueInfo
	kType
	kTensorType
	kSeqType // Sequence and Optional
	kMapType
	kShape
	kDim
	kFunction
)

// ONNX field numbers used by the mutations (the importer's importer/fields.go
// lists them all; they are fixed by onnx.proto).
const (
	fModelIR, fModelGraph, fModelOpset, fModelFunctions = 1, 7, 8, 25
	fOpsetDomain, fOpsetVersion                         = 1, 2
	fGraphNode, fGraphName, fGraphInit                  = 1, 2, 5
	fGraphInput, fGraphOutput, fGraphValueInfo          = 11, 12, 13
	fGraphSparseInit                                    = 15
	fNodeInput, fNodeOutput, fNodeName                  = 1, 2, 3
	fNodeOpType, fNodeAttr, fNodeDomain                 = 4, 5, 7
	fAttrName, fAttrF, fAttrI, fAttrS, fAttrT, fAttrG   = 1, 2, 3, 4, 5, 6
	fAttrFloats, fAttrInts, fAttrStrings, fAttrGraphs   = 7, 8, 9, 11
	fAttrType                                           = 20
	fVIName, fVIType                                    = 1, 2
	fTypeTensor, fTensorElem, fTensorShape, fShapeDim   = 1, 1, 2, 1
	fDimValue, fDimParam                                = 1, 2
	fTDims, fTType, fTSegment, fTFloat, fTInt32         = 1, 2, 3, 4, 5
	fTInt64, fTName, fTRaw, fTDouble                    = 7, 8, 9, 10
	fTExternal, fTLocation                              = 13, 14
	fSparseValues, fSparseIndices, fSparseDims          = 1, 2, 3
	fFnName, fFnInput, fFnOutput, fFnNode, fFnOpset     = 1, 4, 5, 7, 9
	fFnDomain                                           = 10
	fEntryKey, fEntryValue                              = 1, 2
)

// schema maps a message kind and a field number to the kind of the
// sub-message that field holds.
var schema = map[kind]map[pbwire.Number]kind{
	kModel:      {fModelGraph: kGraph, fModelOpset: kLeaf, 14: kLeaf, fModelFunctions: kFunction},
	kGraph:      {fGraphNode: kNode, fGraphInit: kTensor, fGraphInput: kValueInfo, fGraphOutput: kValueInfo, fGraphValueInfo: kValueInfo, fGraphSparseInit: kSparse, 16: kLeaf},
	kNode:       {fNodeAttr: kAttr, 9: kLeaf},
	kAttr:       {fAttrT: kTensor, fAttrG: kGraph, 10: kTensor, fAttrGraphs: kGraph, 14: kType, 15: kType, 22: kSparse, 23: kSparse},
	kTensor:     {fTSegment: kLeaf, fTExternal: kLeaf, 16: kLeaf},
	kSparse:     {fSparseValues: kTensor, fSparseIndices: kTensor},
	kValueInfo:  {fVIType: kType, 4: kLeaf},
	kType:       {fTypeTensor: kTensorType, 4: kSeqType, 5: kMapType, 8: kTensorType, 9: kSeqType},
	kTensorType: {fTensorShape: kShape},
	kSeqType:    {1: kType},
	kMapType:    {2: kType},
	kShape:      {fShapeDim: kDim},
	kFunction:   {fFnNode: kNode, fFnOpset: kLeaf, 11: kAttr, 12: kValueInfo, 14: kLeaf},
}

// field is one protobuf field. v holds varint and fixed values; raw is a
// length-delimited payload, or sub its parsed form when it is a message.
type field struct {
	num pbwire.Number
	typ pbwire.Type
	v   uint64
	raw []byte
	sub *msg
}

// msg is a parsed message: its kind and its fields in file order.
type msg struct {
	kind   kind
	fields []field
}

// maxParseDepth bounds recursion into nested messages; deeper payloads stay raw.
const maxParseDepth = 64

// parse decodes b as a message of kind k. It fails only when b is not a
// sequence of well-formed fields (groups included).
func parse(k kind, b []byte) (*msg, bool) { return parseDepth(k, b, 0) }

// errGroup stops parse at a group: the tree keeps no group fields, so a
// payload holding one stays raw bytes.
var errGroup = errors.New("group field")

func parseDepth(k kind, b []byte, depth int) (*msg, bool) {
	m := &msg{kind: k}
	err := pbwire.Each(b, func(pf pbwire.Field) error {
		if pf.Typ == pbwire.StartGroupType {
			return errGroup
		}
		f := field{num: pf.Num, typ: pf.Typ, v: pf.U, raw: pf.B}
		if f.typ == pbwire.BytesType && depth < maxParseDepth {
			if sk, ok := schema[k][f.num]; ok {
				if s, ok := parseDepth(sk, f.raw, depth+1); ok {
					f.sub, f.raw = s, nil
				}
			}
		}
		m.fields = append(m.fields, f)
		return nil
	})
	if err != nil {
		return nil, false
	}
	return m, true
}

// encode appends the wire form of m to b.
func (m *msg) encode(b []byte) []byte {
	for _, f := range m.fields {
		b = pbwire.AppendTag(b, f.num, f.typ)
		switch f.typ {
		case pbwire.VarintType:
			b = pbwire.AppendVarint(b, f.v)
		case pbwire.Fixed32Type:
			b = pbwire.AppendFixed32(b, uint32(f.v))
		case pbwire.Fixed64Type:
			b = pbwire.AppendFixed64(b, f.v)
		default:
			if f.sub != nil {
				b = pbwire.AppendBytes(b, f.sub.encode(nil))
			} else {
				b = pbwire.AppendBytes(b, f.raw)
			}
		}
	}
	return b
}

// clone returns a deep copy of m.
func (m *msg) clone() *msg {
	c := &msg{kind: m.kind, fields: make([]field, len(m.fields))}
	for i, f := range m.fields {
		if f.sub != nil {
			f.sub = f.sub.clone()
		} else if f.raw != nil {
			f.raw = append([]byte(nil), f.raw...)
		}
		c.fields[i] = f
	}
	return c
}

// get returns the first field numbered n, or nil.
func (m *msg) get(n pbwire.Number) *field {
	for i := range m.fields {
		if m.fields[i].num == n {
			return &m.fields[i]
		}
	}
	return nil
}

// str returns the string value of the first field numbered n.
func (m *msg) str(n pbwire.Number) string {
	if f := m.get(n); f != nil && f.typ == pbwire.BytesType && f.sub == nil {
		return string(f.raw)
	}
	return ""
}

// strs returns the string values of every field numbered n.
func (m *msg) strs(n pbwire.Number) []string {
	var out []string
	for _, f := range m.fields {
		if f.num == n && f.typ == pbwire.BytesType && f.sub == nil {
			out = append(out, string(f.raw))
		}
	}
	return out
}

// addStr appends a string field.
func (m *msg) addStr(n pbwire.Number, s string) {
	m.fields = append(m.fields, field{num: n, typ: pbwire.BytesType, raw: []byte(s)})
}

// addInt appends a varint field.
func (m *msg) addInt(n pbwire.Number, v int64) {
	m.fields = append(m.fields, field{num: n, typ: pbwire.VarintType, v: uint64(v)})
}

// addSub appends a message field.
func (m *msg) addSub(n pbwire.Number, s *msg) {
	m.fields = append(m.fields, field{num: n, typ: pbwire.BytesType, sub: s})
}

// set replaces the first field numbered n (or appends one) with f.
func (m *msg) set(f field) {
	if g := m.get(f.num); g != nil {
		*g = f
		return
	}
	m.fields = append(m.fields, f)
}

// drop removes every field numbered n.
func (m *msg) drop(n pbwire.Number) {
	out := m.fields[:0]
	for _, f := range m.fields {
		if f.num != n {
			out = append(out, f)
		}
	}
	m.fields = out
}

// site is one field somewhere in the tree: the message holding it, its
// index there, and the kinds of the messages above it.
type site struct {
	m     *msg
	i     int
	depth int
}

func (s site) f() *field { return &s.m.fields[s.i] }

// walk calls fn for every field of the tree, parents before children.
func (m *msg) walk(fn func(s site)) { m.walkDepth(0, fn) }

func (m *msg) walkDepth(depth int, fn func(s site)) {
	for i := range m.fields {
		fn(site{m: m, i: i, depth: depth})
		if i < len(m.fields) && m.fields[i].sub != nil {
			m.fields[i].sub.walkDepth(depth+1, fn)
		}
	}
}

// messages returns every message of kind k in the tree, parents first.
func (m *msg) messages(k kind) []*msg {
	var out []*msg
	if m.kind == k {
		out = append(out, m)
	}
	m.walk(func(s site) {
		if sub := s.f().sub; sub != nil && sub.kind == k {
			out = append(out, sub)
		}
	})
	return out
}

// packedInts decodes a field holding int64s: packed (bytes) or one varint.
func packedInts(f *field) []int64 {
	if f.typ == pbwire.VarintType {
		return []int64{int64(f.v)}
	}
	var out []int64
	b := f.raw
	for len(b) > 0 {
		v, l := pbwire.ConsumeVarint(b)
		if l < 0 {
			break
		}
		out = append(out, int64(v))
		b = b[l:]
	}
	return out
}

// setPackedInts stores vs in f as a packed varint list.
func setPackedInts(f *field, vs []int64) {
	var b []byte
	for _, v := range vs {
		b = pbwire.AppendVarint(b, uint64(v))
	}
	f.typ, f.raw, f.sub, f.v = pbwire.BytesType, b, nil, 0
	if b == nil {
		f.raw = []byte{}
	}
}
