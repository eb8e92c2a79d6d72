package importer

// This file implements decoding of TypeProto and ValueInfoProto.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// maxTypeDepth bounds sequence-of-sequence-of-... nesting.
const maxTypeDepth = 32

// typeKinds maps TypeProto's value fields to the kind of type each is.
var typeKinds = map[num]ir.TypeKind{
	typeTensor: ir.KindTensor, typeSparseTensor: ir.KindSparse, typeSequence: ir.KindSequence,
	typeOptional: ir.KindOptional, typeMap: ir.KindMap,
}

func (d *decoder) typeProto(b []byte, depth int) (ir.Type, error) {
	var t ir.Type
	if depth > maxTypeDepth {
		return t, fmt.Errorf("type nested deeper than %d", maxTypeDepth)
	}
	err := eachField(b, func(f field) error {
		var err error
		switch f.num {
		case typeTensor, typeSparseTensor:
			t.Kind = typeKinds[f.num]
			err = eachField(f.b, func(g field) error {
				switch g.num {
				case tensorTypeElemType:
					t.DType = ir.DType(int32(g.u))
				case tensorTypeShape:
					var err error
					t.Shape, err = d.shapeProto(g.b)
					return err
				}
				return nil
			})
		case typeSequence, typeOptional:
			t.Kind = typeKinds[f.num]
			err = eachField(f.b, func(g field) error {
				if g.num == seqElemType {
					e, err := d.typeProto(g.b, depth+1)
					t.Elem = &e
					return err
				}
				return nil
			})
		case typeMap:
			t.Kind = typeKinds[f.num]
			err = eachField(f.b, func(g field) error {
				switch g.num {
				case mapKeyType:
					t.DType = ir.DType(int32(g.u))
				case mapValueType:
					e, err := d.typeProto(g.b, depth+1)
					t.Elem = &e
					return err
				}
				return nil
			})
		case typeDenotation:
			t.Denotation = f.doc()
		}
		return err
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
