package ir

import (
	"math/rand/v2"
	"testing"
)

// TestNumElementsMatchesDivision: NumElements' multiply test gives what
// the division test gave (IsStatic, then n > maxDimValue / d per dim),
// on dims around the overflow bound, zeros, symbolic and unknown dims.
func TestNumElementsMatchesDivision(t *testing.T) {
	want := func(s Shape) (int64, bool) {
		if !s.IsStatic() {
			return 0, false
		}
		n := int64(1)
		for _, d := range s.Dims {
			if d.Val != 0 && n > maxDimValue/d.Val {
				return 0, false
			}
			n *= d.Val
		}
		return n, true
	}
	vals := []int64{0, 1, 2, 3, 7, 1 << 20, 1 << 31, 1<<31 + 1, 1 << 32, 1 << 61, maxDimValue - 1, maxDimValue, maxDimValue + 1, 1<<63 - 1, -1}
	r := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 20000; i++ {
		s := Shape{Known: r.IntN(10) != 0}
		for k := r.IntN(5); k > 0; k-- {
			d := D(vals[r.IntN(len(vals))])
			if r.IntN(3) == 0 {
				d = D(r.Int64N(1 << 22))
			}
			if r.IntN(40) == 0 {
				d = S("batch")
			}
			s.Dims = append(s.Dims, d)
		}
		gn, gok := s.NumElements()
		wn, wok := want(s)
		if gn != wn || gok != wok {
			t.Fatalf("%v: NumElements = %d, %v; want %d, %v", s.Dims, gn, gok, wn, wok)
		}
	}
}
