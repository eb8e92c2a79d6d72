package host

import (
	"testing"

	"github.com/wolong-dev/wolong/simulate/calibrate"
)

func TestGroupErrors(t *testing.T) {
	ms := []ModelResult{
		{Name: "a", Group: "gemm", MeasuredUs: 100, PredictedUs: 110},
		{Name: "b", Group: "gemm", MeasuredUs: 100, PredictedUs: 70, HeldOut: true},
		{Name: "c", Group: "rnn", MeasuredUs: 100, PredictedUs: 100},
	}
	g := GroupErrors(ms)
	if len(g) != 2 || g[0].Group != "gemm" || g[0].N != 1 || g[0].NHeld != 1 || g[0].FitMAPE != 10 || g[0].HeldMAPE != 30 || g[1].FitMAPE != 0 {
		t.Errorf("%+v", g)
	}
	if Count(ms, true) != 1 || Count(ms, false) != 2 {
		t.Error("Count")
	}
}

// TestUnsettled: the models measured less well than TargetCIPct are the
// ones reported (widest first); a model known to within it, or whose
// record states no interval, is not.
func TestUnsettled(t *testing.T) {
	runs := []*suiteRun{
		{mm: ManifestModel{Name: "ok"}, lat: &calibrate.Latency{CIPct: 2.5}},
		{mm: ManifestModel{Name: "old"}, lat: &calibrate.Latency{}},
		{mm: ManifestModel{Name: "noisy"}, lat: &calibrate.Latency{CIPct: 4}},
		{mm: ManifestModel{Name: "noisier"}, lat: &calibrate.Latency{CIPct: 12}},
	}
	u := unsettled(runs)
	if len(u) != 2 || u[0].Name != "noisier" || u[1].Name != "noisy" {
		t.Errorf("unsettled = %+v, want noisier then noisy", u)
	}
}
