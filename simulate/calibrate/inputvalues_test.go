package calibrate

import (
	"testing"

	"github.com/wolong-dev/wolong/eval"
)

// TestInputValues: the values follow the harness's stream (one draw per
// element of every input in order, integers % 10, bools & 1, fills drawing
// none), and only small integer and bool inputs are given.
func TestInputValues(t *testing.T) {
	seven := 7.0
	l := &Latency{Inputs: []GraphInput{
		{Name: "x", DType: "float32", Shape: []int64{2}},
		{Name: "n", DType: "int64", Shape: []int64{}},
		{Name: "sr", DType: "int64", Shape: []int64{}, Fill: &seven},
		{Name: "c", DType: "bool", Shape: []int64{2}},
		{Name: "big", DType: "int64", Shape: []int64{100}},
	}}
	r := eval.NewRand(1)
	r.Next()
	r.Next() // x's two floats
	n := int64(r.Next() % 10)
	c0, c1 := int64(r.Next()&1), int64(r.Next()&1)
	got := l.InputValues()
	if len(got) != 3 || len(got["n"]) != 1 || got["n"][0] != n || got["sr"][0] != 7 || got["c"][0] != c0 || got["c"][1] != c1 {
		t.Fatalf("InputValues() = %v, want n=[%d] sr=[7] c=[%d %d]", got, n, c0, c1)
	}
	if _, ok := got["big"]; ok {
		t.Error("a 100-element input was given values")
	}
}
