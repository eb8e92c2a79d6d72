package importer

// This file implements decoding of TypeProto and ValueInfoProto.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// maxTypeDepth bounds sequence-of-sequence-of-... nesting.
const maxTypeDepth = 32

// typeBodies lists TypeProto's value fields: the kind of type each is and
// the numbers of its body's fields that carry the element type (a varint:
// a map's key type), the shape and the nested TypeProto (a sequence's or
// optional's element, a map's value); 0 where the body has none.
var typeBodies = map[num]struct {
	kind               ir.TypeKind
	dtype, shape, elem num
}{
	typeTensor:       {ir.KindTensor, tensorTypeElemType, tensorTypeShape, 0},
	typeSparseTensor: {ir.KindSparse, tensorTypeElemType, tensorTypeShape, 0},
	typeSequence:     {ir.KindSequence, 0, 0, seqElemType},
	typeOptional:     {ir.KindOptional, 0, 0, seqElemType},
	typeMap:          {ir.KindMap, mapKeyType, 0, mapValueType},
}

func (d *decoder) typeProto(b []byte, depth int) (ir.Type, error) {
	var t ir.Type
	if depth > maxTypeDepth {
		return t, fmt.Errorf("type nested deeper than %d", maxTypeDepth)
	}
	err := eachField(b, func(f field) error {
		if f.num == typeDenotation {
			t.SetDenotation(f.doc())
			return nil
		}
		body, ok := typeBodies[f.num]
		if !ok {
			return nil
		}
		t.Kind = body.kind
		return eachField(f.b, func(g field) error {
			var err error
			switch g.num { // eachField never passes field 0: a 0 matches none
			case body.dtype:
				t.DType = ir.DType(int32(g.u))
			case body.shape:
				t.Shape, err = d.shapeProto(g.b)
			case body.elem:
				var e ir.Type
				e, err = d.typeProto(g.b, depth+1)
				t.Elem = &e
			}
			return err
		})
	})
	if err == nil && t.DType != ir.Undefined && !t.DType.Valid() {
		err = fmt.Errorf("unknown element type %d", int32(t.DType))
	}
	return t, err
}

func (d *decoder) shapeProto(b []byte) (ir.Shape, error) {
	s := ir.Shape{Known: true}
	err := eachField(b, func(f field) error {
		if f.num != shapeDim {
			return nil
		}
		dim := ir.Unknown()
		err := eachField(f.b, func(g field) error {
			switch g.num {
			case dimValue:
				v := int64(g.u)
				switch {
				case v == -1:
					// Some exporters (tract, old tf2onnx) write -1 for "unknown".
					dim = ir.Unknown()
				case v < 0:
					return fmt.Errorf("negative dimension %d", v)
				default:
					dim = ir.D(v)
				}
			case dimParam:
				name, err := g.str("dim_param")
				if err != nil {
					return err
				}
				if name != "" {
					dim = ir.S(name)
				}
			}
			return nil
		})
		s.Dims = append(s.Dims, dim)
		return err
	})
	return s, err
}

// valueInfo is a decoded ValueInfoProto.
type valueInfo struct {
	name     string
	typ      *ir.Type
	doc      string
	metadata []ir.StringPair
}

func (d *decoder) valueInfo(b []byte) (valueInfo, error) {
	var vi valueInfo
	err := eachField(b, func(f field) error {
		var err error
		switch f.num {
		case viName:
			vi.name, err = f.str("value name")
		case viType:
			var t ir.Type
			t, err = d.typeProto(f.b, 0)
			vi.typ = &t
		case viDocString:
			vi.doc = f.doc()
		case viMetadataProps:
			var kv ir.StringPair
			kv, err = d.entry(f.b)
			vi.metadata = append(vi.metadata, kv)
		}
		return err
	})
	if err != nil {
		return vi, fmt.Errorf("value %q: %v", vi.name, err)
	}
	return vi, nil
}
