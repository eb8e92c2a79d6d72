package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestValueRoundTrip encodes tensors, sequences and optionals and decodes
// them back as their kind.
func TestValueRoundTrip(t *testing.T) {
	a := fromFloat64s(ir.Float32, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
	b := fromFloat64s(ir.Int64, []int{1}, []float64{-7})
	seq := &Sequence{Items: []*Tensor{a, b}, Elem: ir.Int64}
	for _, tc := range []struct {
		name string
		v    Value
		kind ir.TypeKind
	}{
		{"tensor", a, ir.KindTensor},
		{"sequence", seq, ir.KindSequence},
		{"empty sequence", &Sequence{}, ir.KindSequence},
		{"optional tensor", &Optional{Value: b}, ir.KindOptional},
		{"optional sequence", &Optional{Value: seq}, ir.KindOptional},
		{"optional none", &Optional{}, ir.KindOptional},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := EncodeValue(tc.v, "x")
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeValue(enc, tc.kind, DefaultMaxMemory)
			if err != nil {
				t.Fatal(err)
			}
			if want, have := describe(tc.v), describe(got); want != have {
				t.Errorf("got %s, want %s", have, want)
			}
		})
	}
}

// describe spells a value out: its kind, each tensor's type, shape and
// elements.
func describe(v Value) string {
	switch x := v.(type) {
	case *Tensor:
		return fmt.Sprint(x.DType, x.Shape, x.f64())
	case *Sequence:
		parts := []string{"seq["}
		for _, t := range x.Items {
			parts = append(parts, describe(t))
		}
		return strings.Join(append(parts, "]"), " ")
	case *Optional:
		if x.Value == nil {
			return "none"
		}
		return "opt(" + describe(x.Value) + ")"
	}
	return fmt.Sprintf("%T", v)
}

// TestDecodeValueRefuses checks the one-line errors for sequences and
// optionals of what eval does not hold.
func TestDecodeValueRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		kind ir.TypeKind
		want string
	}{
		// SequenceProto elem_type 2 (sparse tensor)
		{"sequence of sparse", []byte{0x10, 2}, ir.KindSequence, "element type 2 is not supported"},
		// SequenceProto map_values (field 6), empty
		{"sequence of maps", []byte{0x32, 0}, ir.KindSequence, "non-tensor values"},
		// OptionalProto optional_value (field 7), empty
		{"optional of optional", []byte{0x3a, 0}, ir.KindOptional, "sparse tensor, map or optional"},
		{"truncated", []byte{0x1a, 5, 1}, ir.KindSequence, "sequence:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeValue(tc.b, tc.kind, DefaultMaxMemory)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
