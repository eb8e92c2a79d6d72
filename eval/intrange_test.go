package eval

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestIntRange checks the saturation bounds of every integer type, read
// from its width and sign.
func TestIntRange(t *testing.T) {
	tests := []struct {
		dt     ir.DType
		lo, hi float64
	}{
		{ir.Int2, -2, 1}, {ir.Uint2, 0, 3}, {ir.Int4, -8, 7}, {ir.Uint4, 0, 15},
		{ir.Int8, -128, 127}, {ir.Uint8, 0, 255}, {ir.Int16, -32768, 32767}, {ir.Uint16, 0, 65535},
		{ir.Int32, math.MinInt32, math.MaxInt32}, {ir.Uint32, 0, math.MaxUint32},
		{ir.Int64, math.MinInt64, math.MaxInt64}, {ir.Uint64, 0, math.MaxUint64},
		{ir.Bool, math.MinInt64, math.MaxInt64}, // not an integer type
	}
	for _, tc := range tests {
		if lo, hi := intRange(tc.dt); lo != tc.lo || hi != tc.hi {
			t.Errorf("intRange(%s) = %v, %v; want %v, %v", tc.dt, lo, hi, tc.lo, tc.hi)
		}
	}
}
