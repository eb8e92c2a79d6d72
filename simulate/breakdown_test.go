package simulate

import (
	"math"
	"testing"
)

// checkBreakdown checks that r's causes sum to its total within 0.1% (in
// fact to rounding) and that no part is negative, and that the critical
// tasks' device times sum to the critical path.
func checkBreakdown(t *testing.T, r *Result) {
	t.Helper()
	var sum float64
	for _, p := range r.Breakdown() {
		if p.S < 0 || math.IsNaN(p.S) {
			t.Errorf("cause %s: %g s", p.Cause, p.S)
		}
		sum += p.S
	}
	if math.Abs(sum-r.TotalS) > 1e-3*r.TotalS {
		t.Errorf("causes sum to %g s, total %g s (%+.4f%%)", sum, r.TotalS, 100*(sum-r.TotalS)/r.TotalS)
	}
	if r.Options.Streams <= 1 { // the one-stream walk equals the general sweep
		g := *r
		g.Options.Streams = 2
		one, gen := r.Breakdown(), g.Breakdown()
		if len(one) != len(gen) {
			t.Errorf("one-stream causes %v, sweep %v", one, gen)
		}
		for i := range one {
			if i < len(gen) && (one[i].Cause != gen[i].Cause || math.Abs(one[i].S-gen[i].S) > 1e-9*r.TotalS) {
				t.Errorf("one-stream causes %v, sweep %v", one, gen)
			}
		}
	}
	var cp float64
	for i, f := range r.Facts() {
		if f.Critical && r.Tasks[i].Stream >= 0 {
			cp += r.Tasks[i].Est.DeviceS
		}
		if f.Achieved < 0 || f.Achieved > 1 {
			t.Errorf("%s: achieved %g of its %s peak", r.Tasks[i].Name(), f.Achieved, f.Bound)
		}
	}
	if math.Abs(cp-r.CriticalPathS) > 1e-9*math.Max(r.CriticalPathS, 1e-9) {
		t.Errorf("critical tasks sum to %g s, critical path %g s", cp, r.CriticalPathS)
	}
}
