package cost

import "testing"

// TestReduceFastKind: ONNX Runtime 1.30's choice between its fast
// reduction kernels and its generic loop (reduction_ops.cc,
// CommonFastReduceSwitch), on one thread and on four.
func TestReduceFastKind(t *testing.T) {
	for _, c := range []struct {
		dims    []int64
		axes    []int
		threads int
		fast    bool
	}{
		{[]int64{1, 3, 480, 640}, []int{1, 2, 3}, 1, true}, // R
		{[]int64{1, 3, 480, 640}, []int{2, 3}, 1, true},    // KR
		{[]int64{512, 1000}, []int{1}, 1, true},            // KR
		{[]int64{64, 4096}, []int{0}, 1, true},             // RK: 64 rows > 16
		{[]int64{3, 307200}, []int{0}, 1, false},           // RK: 3 rows
		{[]int64{1, 3, 480, 640}, []int{1}, 1, false},      // RK after the 1 is dropped
		{[]int64{1, 16, 240, 320}, []int{1}, 1, false},     // RK: 16 rows, not more
		{[]int64{1, 32, 64, 64}, []int{1}, 1, true},        // RK: 32 rows
		{[]int64{1, 32, 64, 64}, []int{1}, 4, false},       // RK: 32 rows, not > 64
		{[]int64{2, 8, 100}, []int{1}, 1, true},            // KRK: 2 blocks
		{[]int64{1, 8, 100, 4}, []int{1, 2}, 1, true},      // RK: the 1 dropped, 8x100 merged into 800 rows
		{[]int64{8, 100, 4}, []int{0, 2}, 1, true},         // RKR: 100 kept
		{[]int64{8, 100, 4, 5}, []int{0, 2}, 1, false},     // RKRK: generic
	} {
		red := make([]bool, len(c.dims))
		for _, a := range c.axes {
			red[a] = true
		}
		if got := reduceFastKind(c.dims, red, c.threads); got != c.fast {
			t.Errorf("%v over %v, %d threads: fast %v, want %v", c.dims, c.axes, c.threads, got, c.fast)
		}
	}
}
