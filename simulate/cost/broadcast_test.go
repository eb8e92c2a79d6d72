package cost

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestBroadcastSpans: the spans ONNX Runtime's broadcasting loop runs a
// binary op over, and their time on cpu-1t: a TF export's per-channel
// scale on an NHWC tensor ([1,256,128,3] x [3]) took 0.30 ms in ONNX
// Runtime's profile (one thread, AMD VM, 2026-12-07: 32,768 spans of 3,
// 9.2 ns each), where its bytes alone take a few microseconds.
func TestBroadcastSpans(t *testing.T) {
	for _, c := range []struct {
		a, b  []int64
		spans float64
	}{
		{[]int64{1, 256, 128, 3}, []int64{3}, 32768},
		{[]int64{1, 128, 64, 16}, []int64{1, 1, 1, 16}, 8192},
		{[]int64{1, 16, 64, 64}, []int64{16, 1, 1}, 16}, // NCHW bias: a span per channel
		{[]int64{2, 3, 4}, []int64{2, 3, 4}, 1},
		{[]int64{2, 3, 4}, []int64{1}, 1},
		{[]int64{4, 1}, []int64{1, 5}, 4}, // an outer product: a span per row
	} {
		g := ir.NewGraph("b")
		n := one(g, "Mul", "mul", []*ir.Value{in(g, "a", ir.Float32, c.a...), in(g, "b", ir.Float32, c.b...)})
		g.Outputs = append(g.Outputs, n.Outputs[0])
		m := New(preset(t, "cpu-1t"), model(t, g, 17), Options{})
		e := m.Node(n)
		if e.Spans != c.spans && !(c.spans == 1 && e.Spans <= 1) {
			t.Errorf("%v x %v: %g spans, want %g", c.a, c.b, e.Spans, c.spans)
		}
		if c.spans == 32768 {
			if ms := (e.DeviceS + e.HostS) * 1e3; ms < 0.2 || ms > 0.4 {
				t.Errorf("%v x %v on cpu-1t: %.3f ms, measured 0.30", c.a, c.b, ms)
			}
		}
	}
}
