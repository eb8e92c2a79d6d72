package report

import "testing"

// TestTypesOfBounded: a node of thousands of inputs keeps its --nodes
// table cell to maxCellTypes types and a count.
func TestTypesOfBounded(t *testing.T) {
	var ins []string
	for i := 0; i < 800000; i++ {
		ins = append(ins, "x: float32[1,2]")
	}
	got := typesOf(ins)
	if len(got) != maxCellTypes+1 || got[0] != "float32[1,2]" || got[maxCellTypes] != "... (800000 in all)" {
		t.Errorf("typesOf(800000 inputs) = %d entries, last %q", len(got), got[len(got)-1])
	}
	if got := typesOf([]string{"a: int64[3]", "b: float32[]"}); len(got) != 2 || got[1] != "float32[]" {
		t.Errorf("typesOf(2 inputs) = %q", got)
	}
}
