package ir

import (
	"math"
	"testing"
)

// TestRangeLen: Range's length in exact arithmetic, including start and
// limit at opposite ends of int64, where int64 arithmetic wraps.
func TestRangeLen(t *testing.T) {
	for _, c := range []struct {
		start, limit, delta, want int64
		ok                        bool
	}{
		{0, 10, 1, 10, true},
		{0, 10, 3, 4, true},
		{10, 0, -3, 4, true},
		{10, 0, 1, 0, true},
		{0, 10, -1, 0, true},
		{5, 5, 1, 0, true},
		{math.MinInt64, math.MaxInt64, 1, 0, false},
		{math.MinInt64, math.MaxInt64, 2, 0, false}, // 2^63 elements
		{math.MinInt64, math.MaxInt64, 3, 6148914691236517205, true},
		{math.MaxInt64, math.MinInt64, -1, 0, false},
		{math.MaxInt64 - 1, math.MaxInt64, math.MaxInt64, 1, true},
		{0, math.MaxInt64, math.MaxInt64, 1, true},
	} {
		got, ok := rangeLen(c.start, c.limit, c.delta)
		if got != c.want || ok != c.ok {
			t.Errorf("rangeLen(%d, %d, %d) = %d, %v; want %d, %v", c.start, c.limit, c.delta, got, ok, c.want, c.ok)
		}
	}
}
