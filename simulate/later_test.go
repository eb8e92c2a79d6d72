package simulate

import (
	"reflect"
	"testing"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestRunMemoryLaterIsRun: RunMemoryLater then FinishMemory gives what
// RunReusing gives, field for field, reusing a result or not, and so does
// a RunDropped of a RunMemoryLater result once finished; before
// FinishMemory only the memory step's fields differ.
func TestRunMemoryLaterIsRun(t *testing.T) {
	h, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	var reused *Result
	for _, c := range shortCutShapes {
		m := builtShape(t, c.shape, c.nodes)
		opt := Options{Streams: 1, Mode: Inference, Batch: 2}
		want, err := Run(m, h, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := RunMemoryLater(m, h, opt, reused)
		if err != nil {
			t.Fatal(err)
		}
		if got.PeakMemoryBytes != 0 || got.WeightBytes != 0 || got.TotalS != want.TotalS || !reflect.DeepEqual(got.Warnings, want.Warnings) {
			t.Errorf("%s: before FinishMemory: peak %g B, weights %g B, %g s; want 0, 0, %g s", c.shape, got.PeakMemoryBytes, got.WeightBytes, got.TotalS, want.TotalS)
		}
		dropped, ok := RunDropped(m, h, opt, got)
		if !ok {
			t.Fatalf("%s: RunDropped refused a RunMemoryLater result", c.shape)
		}
		dropped.FinishMemory(m)
		dropped.FinishMemory(m) // a second call does nothing
		reused = dropped
		a, b := *dropped, *want
		a.fwd, a.mem, b.fwd, b.mem = fwdScratch{}, memScratch{}, fwdScratch{}, memScratch{}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: RunMemoryLater, RunDropped and FinishMemory differ from Run: peak %g B at %g s, weights %g B, %q; want %g B at %g s, %g B, %q", c.shape,
				a.PeakMemoryBytes, a.PeakMemoryAtS, a.WeightBytes, a.Assumptions, b.PeakMemoryBytes, b.PeakMemoryAtS, b.WeightBytes, b.Assumptions)
		}
	}
	// training runs the memory step at once
	m := builtShape(t, "cnn", 200)
	r, err := RunMemoryLater(m, h, Options{Mode: Train}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.memoryLater || r.PeakMemoryBytes == 0 {
		t.Errorf("training: the memory step was left for later (peak %g B)", r.PeakMemoryBytes)
	}
}
