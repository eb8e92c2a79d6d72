package band

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// Every preset gets a band with a source; a GPU preset's comes from the
// published set, V100's (off by ~36% there) wider than H100's.
func TestEveryPresetHasBand(t *testing.T) {
	for _, h := range hw.Presets() {
		b := ForRun(h, map[string]float64{"matmul": 1, "conv": 2, "elementwise": 1}, 1)
		if !(b.Pct > 0) || b.Source == "" {
			t.Errorf("%s: band %+v", h.Name, b)
		}
		if h.Kind == "gpu" && !strings.Contains(b.Source, "published") {
			t.Errorf("%s: source %q does not name the published set", h.Name, b.Source)
		}
	}
	v, _ := hw.Preset("v100")
	h, _ := hw.Preset("h100")
	bv, bh := ForRun(v, map[string]float64{"matmul": 1}, 1), ForRun(h, map[string]float64{"matmul": 1}, 1)
	if bv.Pct <= bh.Pct {
		t.Errorf("v100 band %.3f not wider than h100's %.3f", bv.Pct, bh.Pct)
	}
	if LLM("megatron-2021").Pct <= 0 || LLM("nope").Pct != noEvidence {
		t.Error("LLM bands")
	}
}

// A calibrated CPU file's band is its own expected error for the
// prediction's size class; one that records none takes the
// family-held-out default, never the development-set figure.
func TestCalibratedCPUReadsExpectedError(t *testing.T) {
	h := &hw.Hardware{Name: "local.json", Kind: "cpu", Fitted: &hw.Fitted{ExpectedError: []hw.ErrorBand{
		{Class: "< 1 ms", MinMs: 0, MaxMs: 1, Pct: 31, P90Pct: 45, Models: 6, Source: "calibrate --host held-out suite"},
		{Class: ">= 1 ms", MinMs: 1, Pct: 12, P90Pct: 20, Models: 5, Source: "calibrate --host held-out suite"},
	}}}
	if b := ForRun(h, nil, 0.5); b.Pct != 0.31 || b.Cases != 6 || !strings.Contains(b.Source, "held-out") {
		t.Errorf("0.5 ms on a calibrated file: %+v", b)
	}
	if b := ForRun(h, nil, 4); b.Pct != 0.12 {
		t.Errorf("4 ms on a calibrated file: %+v", b)
	}
	bare := &hw.Hardware{Name: "old.json", Kind: "cpu", Fitted: &hw.Fitted{}}
	if b := ForRun(bare, nil, 4); b.Pct != calibratedCPUDefault {
		t.Errorf("a file without bands: %+v, want the family-held-out default", b)
	}
}
