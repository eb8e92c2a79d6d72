package host

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
)

// TestDRAMChainsFitted checks that the suite's GEMM chains past the L3
// that set hw dram_bandwidth_gbs (one row) and dram_stream_stall (16
// rows) are not at positions the fit's every-4th hold-out takes (a
// held-back chain leaves its parameter at the anchor), and that a 16-row
// one is held back to check the rule.
func TestDRAMChainsFitted(t *testing.T) {
	const hold = 4           // FitOptions.HoldEvery's default
	want := map[string]bool{ // name: fitted on
		"gemm_dram_1x2512x2512": true, "gemm_dram_16x2512x2512": false,
		"gemm_dram_1x2896x2896": true, "gemm_dram_16x2896x2896": true,
	}
	seen := 0
	for i, s := range modelgen.CalibrationSuite() {
		if !strings.HasPrefix(s.Name, "gemm_dram_") {
			continue
		}
		fit, ok := want[s.Name]
		if !ok {
			t.Errorf("%s: a DRAM chain this test does not place", s.Name)
			continue
		}
		seen++
		if held := i%hold == hold-1; held == fit {
			t.Errorf("%s at position %d: held back %v, want %v", s.Name, i, held, !fit)
		}
	}
	if seen != len(want) {
		t.Errorf("%d DRAM chains in the suite, want %d", seen, len(want))
	}
}
