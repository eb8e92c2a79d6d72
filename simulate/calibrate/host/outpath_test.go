package host

import (
	"strings"
	"testing"
)

func TestOutPath(t *testing.T) {
	for _, tc := range []struct {
		out     string
		threads int
		want    string
	}{{"local.json", 1, "local.json"}, {"local.json", 2, "local-2t.json"}, {"dir/fit", 4, "dir/fit-4t.json"}} {
		if got := OutPath(tc.out, tc.threads); got != tc.want {
			t.Errorf("OutPath(%q, %d) = %q, want %q", tc.out, tc.threads, got, tc.want)
		}
	}
}

// TestFitWarnings: a quiet fit has none; unsettled medians and a machine
// whose speed varied each say so, naming the thread count.
func TestFitWarnings(t *testing.T) {
	if w := (&FitResult{NoisePct: NoisyPct}).Warnings(1); len(w) != 0 {
		t.Errorf("quiet fit: %q", w)
	}
	f := &FitResult{Models: make([]ModelResult, 10), Unsettled: []Unsettled{{Name: "m", CIPct: 7}}, NoisePct: NoisyPct + 1, NoisyModels: 3}
	w := f.Warnings(2)
	if len(w) != 2 || !strings.HasPrefix(w[0], "2 thread(s): the machine was too noisy: 1 of 10 models' medians") || !strings.Contains(w[0], "(widest: m +-7%)") ||
		!strings.HasPrefix(w[1], "2 thread(s): the machine's speed varied while measuring") || !strings.Contains(w[1], "3 models by more than 10%") {
		t.Errorf("%q", w)
	}
}
