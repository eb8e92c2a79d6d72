package importer

import (
	"bytes"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestTypeProtoKinds writes a type of every kind (nested ones included)
// as a TypeProto and reads it back: kind, element type, shape, nested
// type and denotation survive, each body read by its own field numbers.
func TestTypeProtoKinds(t *testing.T) {
	f32 := ir.TensorType(ir.Float32, ir.DimsShape(ir.S("N"), ir.D(3)))
	i64 := ir.TensorType(ir.Int64, ir.UnknownShape())
	denoted := ir.Type{Kind: ir.KindMap, DType: ir.String, Elem: &f32}
	denoted.SetDenotation("TENSOR")
	for _, want := range []ir.Type{
		f32,
		{Kind: ir.KindSparse, DType: ir.Float16, Shape: ir.DimsShape(ir.D(4), ir.D(5))},
		{Kind: ir.KindSequence, Elem: &f32},
		{Kind: ir.KindOptional, Elem: &ir.Type{Kind: ir.KindSequence, Elem: &i64}},
		denoted,
	} {
		var buf bytes.Buffer
		if err := typeMsg(&want).writeTo(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := (&decoder{}).typeProto(buf.Bytes(), 0)
		if err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		if got.String() != want.String() || got.Denotation() != want.Denotation() {
			t.Errorf("read %s (denotation %q), wrote %s (%q)", got, got.Denotation(), want, want.Denotation())
		}
	}
}
