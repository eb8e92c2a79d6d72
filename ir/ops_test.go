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
