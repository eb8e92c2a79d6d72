package host

import (
	"slices"
	"strings"
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

// TestCacheProbeShare: the shared share is over every probed pass; the
// models with no quiet pass pooled are listed and, while they are the
// fewer, weigh as unquietNoisePct in the fit (a settled one keeps its
// interval); once most are, every run keeps its own interval (the
// machine is fitted as it ran). Records without a probe count in neither.
func TestCacheProbeShare(t *testing.T) {
	lat := func(ci float64, quiet, fastQuiet int) *calibrate.Latency {
		return &calibrate.Latency{CIPct: ci, CacheProbeKB: 2048, PassCacheProbe: make([]float64, 12), QuietPasses: quiet, FastQuietPasses: fastQuiet}
	}
	runs := []*suiteRun{
		{mm: ManifestModel{Name: "quiet"}, lat: lat(2, 12, 3)},
		{mm: ManifestModel{Name: "mixed"}, lat: lat(2.5, 6, 3)},
		{mm: ManifestModel{Name: "shared"}, lat: lat(2, 0, 0)},
		{mm: ManifestModel{Name: "unprobed"}, lat: &calibrate.Latency{CIPct: 4}},
	}
	var res FitResult
	cacheShare(&res, runs)
	if want := 100 * 18.0 / 36; res.CacheSharedPct != want || len(res.CacheUnquiet) != 1 || res.CacheUnquiet[0] != "shared" {
		t.Errorf("shared %.1f%%, unquiet %v: want %.1f%% and [shared]", res.CacheSharedPct, res.CacheUnquiet, want)
	}
	if got, want := runNoises(runs), []float64{2, 2.5, unquietNoisePct, 4}; !slices.Equal(got, want) {
		t.Errorf("noises %v, want %v", got, want)
	}
	runs[0].lat, runs[1].lat = lat(2, 0, 0), lat(2.5, 0, 0) // most unquiet
	if got, want := runNoises(runs), []float64{2, 2.5, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("most unquiet: noises %v, want %v (each its own)", got, want)
	}
	if w := (&FitResult{Models: make([]ModelResult, 4), CacheUnquiet: []string{"a", "b", "c"}, CacheSharedPct: 80}).Warnings(1); len(w) != 1 || !strings.Contains(w[0], "cache shared") {
		t.Errorf("warnings %q: want one saying the fit is of the machine with its cache shared", w)
	}
}
