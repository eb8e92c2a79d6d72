package eval

import (
	"strings"
	"testing"
	"time"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestLoopScanOutputsCounted: a Loop's scan outputs count against
// MaxMemory while they accumulate (each piece with the evaluator's
// per-tensor overhead), so stacking them, which needs as much again, and
// millions of tiny pieces are both bounded.
func TestLoopScanOutputsCounted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trip    int64
		n       int
		max     int64
		wantErr string
	}{
		{"fits twice", 512, 256, 4 << 20, ""},
		{"pieces and stack over the bound", 512, 256, 768 << 10, "memory limit"},
		{"tiny pieces, overhead over the bound", 100000, 1, 2 << 20, "memory limit"},
		{"tiny pieces within the bound", 1000, 1, 2 << 20, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := ramp(tc.n)
			e := New(modelgen.ScanLoop(tc.trip, tc.n), Options{MaxMemory: tc.max})
			out, err := e.Run(map[string]Value{"x": x})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			y := out[0].(*Tensor)
			if len(y.Shape) != 2 || y.Shape[0] != int(tc.trip) || y.Shape[1] != tc.n {
				t.Fatalf("y is %v, want [%d %d]", y.Shape, tc.trip, tc.n)
			}
			if got, want := y.F[len(y.F)-1], -x.F[tc.n-1]; got != want {
				t.Errorf("last element %v, want %v", got, want)
			}
			if e.live.bytes != 0 {
				t.Errorf("after the run %d bytes are still counted live", e.live.bytes)
			}
		})
	}
}

// TestDeadline: a run stops with a one-line error once Options.Deadline
// has passed, checked before every node, subgraph nodes included (so a
// Loop of millions of cheap iterations stops between two of them).
func TestDeadline(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model *ir.Model
		in    *Tensor
		after time.Duration
	}{
		{"long loop", modelgen.ScanLoop(1<<23, 1), ramp(1), 100 * time.Millisecond},
		{"already passed", negChain(4, 3), ramp(4), -time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := Run(tc.model, map[string]Value{"x": tc.in}, Options{Deadline: start.Add(tc.after)})
			if err == nil || !strings.Contains(err.Error(), "time limit") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line about the time limit", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("stopped after %v", d)
			}
		})
	}
	if _, err := Run(negChain(4, 3), map[string]Value{"x": ramp(4)}, Options{Deadline: time.Now().Add(time.Hour)}); err != nil {
		t.Errorf("a run well within its deadline: %v", err)
	}
}
