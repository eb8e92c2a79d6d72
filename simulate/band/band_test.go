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
		b := ForRun(h, map[string]float64{"matmul": 1, "conv": 2, "elementwise": 1})
		if !(b.Pct > 0) || b.Source == "" {
			t.Errorf("%s: band %+v", h.Name, b)
		}
		if h.Kind == "gpu" && !strings.Contains(b.Source, "published") {
			t.Errorf("%s: source %q does not name the published set", h.Name, b.Source)
		}
	}
	v, _ := hw.Preset("v100")
	h, _ := hw.Preset("h100")
	bv, bh := ForRun(v, map[string]float64{"matmul": 1}), ForRun(h, map[string]float64{"matmul": 1})
	if bv.Pct <= bh.Pct {
		t.Errorf("v100 band %.3f not wider than h100's %.3f", bv.Pct, bh.Pct)
	}
	if LLM("megatron-2021").Pct <= 0 || LLM("nope").Pct != noEvidence {
		t.Error("LLM bands")
	}
}
