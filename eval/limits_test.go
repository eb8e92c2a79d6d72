package eval

import (
	"math"
	"runtime"
	"runtime/debug"
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

// TestWorkingCopyUnderMemoryLimit: a kernel's float64 working copy of a
// large input counts against the process's memory limit (the runtime's
// soft limit, which wolong sets to --max-memory): a Conv over a 32 MiB
// float32 input, whose copy needs 64 MiB, is refused with 48 MiB of room
// and runs without a limit.
func TestWorkingCopyUnderMemoryLimit(t *testing.T) {
	g := ir.NewGraph("conv")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(1, 1, 4096, 2048)))
	w := g.AddInitializer((&ir.Tensor{Name: "w", DType: ir.Float32, Dims: []int64{1, 1, 1, 1}}).SetFloats([]float32{2}))
	g.Outputs = []*ir.Value{g.AddNode("Conv", "", "conv", []*ir.Value{x, w}, []string{"y"}).Outputs[0]}
	m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	in := map[string]Value{"x": NewFloat32([]int{1, 1, 4096, 2048}, make([]float32, 4096*2048))}

	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	runtime.GC()
	debug.SetMemoryLimit(heapInUse() + 48<<20)
	_, err := Run(m, in, Options{})
	if err == nil || !strings.Contains(err.Error(), "memory limit") || strings.Contains(err.Error(), "internal error") {
		t.Fatalf("with 48 MiB of room: err = %v, want the working copy refused", err)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if _, err := Run(m, in, Options{}); err != nil {
		t.Fatalf("without a limit: %v", err)
	}
}
