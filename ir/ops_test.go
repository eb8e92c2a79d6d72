package ir

import "testing"

// TestRequired checks which input slots the table says a kernel may count
// on: those below the smallest minimum at any opset, less the rows'
// Optional slots.
func TestRequired(t *testing.T) {
	tests := []struct {
		op   OpKey
		slot int
		want bool
	}{
		{op("Add"), 1, true},
		{op("Clip"), 1, false},                   // optional from opset 11 on
		{op("ReduceMean"), 1, false},             // axes: an input only from opset 18, optional there
		{op("Loop"), 0, false},                   // M may be empty
		{op("Loop"), 1, false},                   // so may cond
		{op("Scan"), 0, false},                   // Scan-8's sequence_lens
		{opIn(msDomain, "QLinearAdd"), 2, false}, // A's zero point
		{opIn(msDomain, "QLinearAdd"), 3, true},
	}
	for _, tc := range tests {
		info := Info(tc.op)
		if info == nil {
			t.Fatalf("%s: no row", tc.op)
		}
		if got := info.Required(tc.slot); got != tc.want {
			t.Errorf("%s input %d: Required = %v, want %v", tc.op, tc.slot, got, tc.want)
		}
	}
}

// TestInputTypes checks the element types the table lets an input slot
// take: floats only where the op's spec says so at every opset, any type
// elsewhere.
func TestInputTypes(t *testing.T) {
	tests := []struct {
		op   OpKey
		slot int
		dt   DType
		want bool
	}{
		{op("Conv"), 0, Float32, true},
		{op("Conv"), 0, BFloat16, true},
		{op("Conv"), 0, Int8, false},
		{op("Conv"), 1, Int8, true}, // W is not declared: the kernel checks it
		{op("Softmax"), 0, Bool, false},
		{op("Erf"), 0, Int64, true}, // Erf takes every numeric type
		{op("MaxPool"), 0, Uint8, true},
		{op("Add"), 0, String, true},
		{opIn(msDomain, "SkipLayerNormalization"), 0, Int32, false},
		{op("Where"), 0, Bool, true},
		{op("Where"), 0, Uint8, false},
		{op("Where"), 1, String, true},
		{op("Compress"), 1, Bool, true},
		{op("Compress"), 1, Int64, false},
		{op("StringConcat"), 1, String, true},
		{op("BitwiseAnd"), 1, Float32, false},
	}
	for _, tc := range tests {
		info := Info(tc.op)
		if info == nil {
			t.Fatalf("%s: no row", tc.op)
		}
		if got := info.InputTypes(tc.slot).Has(tc.dt); got != tc.want {
			t.Errorf("%s input %d takes %s: %v, want %v", tc.op, tc.slot, tc.dt, got, tc.want)
		}
	}
	for _, s := range []struct {
		set  TypeSet
		want string
	}{{FloatTypes, "float"}, {IntTypes, "integer"}, {FloatTypes | IntTypes, "float or integer"}, {BoolType, "bool"}, {StringType, "string"}, {0, "any"}} {
		if got := s.set.String(); got != s.want {
			t.Errorf("TypeSet(%d) = %q, want %q", s.set, got, s.want)
		}
	}
}
