package mulberry

import "testing"

// TestStream: the first values of seed 1 are mulberry32's reference
// stream (the JavaScript harness draws the same).
func TestStream(t *testing.T) {
	r := New(1)
	want := []uint32{2693262067, 11749833, 2265367787} // x 2^-32: 0.6270739405881613, ... as mulberry32(1)() in JavaScript
	for i, w := range want {
		if got := r.Next(); got != w {
			t.Fatalf("value %d: got %d, want %d", i, got, w)
		}
	}
}
