package simulate

import (
	"math"
	"testing"
)

// TestFmaxIsMathMax: schedule's fmax agrees with math.Max bit for bit on
// the special values (NaN, the infinities, signed zeros; the builtin max
// alone gives NaN for +Inf and NaN) and on ordinary ones, in both orders.
func TestFmaxIsMathMax(t *testing.T) {
	negZero := math.Copysign(0, -1)
	vals := []float64{0, negZero, 1, -1, 1e-9, 3.5, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64}
	for _, x := range vals {
		for _, y := range vals {
			got, want := fmax(x, y), math.Max(x, y)
			if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("fmax(%v, %v) = %v, math.Max gives %v", x, y, got, want)
			}
		}
	}
}
