package calibrate

import "testing"

// TestMeanMedian checks the shared summary statistics, and that Median
// leaves its input in order.
func TestMeanMedian(t *testing.T) {
	tests := []struct {
		xs           []float64
		mean, median float64
	}{
		{nil, 0, 0},
		{[]float64{3}, 3, 3},
		{[]float64{3, 1, 2}, 2, 2},
		{[]float64{4, 1, 3, 10}, 4.5, 3.5},
	}
	for _, tc := range tests {
		in := append([]float64(nil), tc.xs...)
		if got := Mean(tc.xs); got != tc.mean {
			t.Errorf("Mean(%v) = %v, want %v", tc.xs, got, tc.mean)
		}
		if got := Median(tc.xs); got != tc.median {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.median)
		}
		for i := range in {
			if in[i] != tc.xs[i] {
				t.Fatalf("Median reordered its input: %v, was %v", tc.xs, in)
			}
		}
	}
}
