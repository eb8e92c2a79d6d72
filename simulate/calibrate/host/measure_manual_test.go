package host

import (
	"context"
	"os"
	"testing"

	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func TestManualMeasure(t *testing.T) {
	dir := os.Getenv("HOSTCAL_DIR")
	if dir == "" {
		t.Skip("manual")
	}
	h, err := ortbench.Open(context.Background(), ortbench.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Measure(context.Background(), h, MeasureOptions{Dir: dir, Threads: []int{1, 2}, Progress: func(d, n int, l string) { t.Logf("%d/%d %s", d, n, l) }})
	if err != nil {
		t.Fatal(err)
	}
}

func TestManualFit(t *testing.T) {
	dir := os.Getenv("HOSTCAL_FIT")
	if dir == "" {
		t.Skip("manual")
	}
	man, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := hw.Preset("cpu-1t")
	r, err := Fit(dir, man, FitOptions{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Models {
		t.Logf("%-40s %-12s held=%v measured %10.1f predicted %10.1f %+7.1f%%", m.Name, m.Group, m.HeldOut, m.MeasuredUs, m.PredictedUs, m.ErrorPct())
	}
	t.Logf("train MAPE %.1f%% held %.1f%% profiler/node %.2f inflation %.2f", r.TrainMAPE, r.HeldMAPE, r.ProfilerNodeUs, r.KernelInflationUs)
	for _, h := range r.Calib.Host {
		t.Logf("host %s %g -> %g", h.Name, h.Before, h.After)
	}
	for _, c := range r.Calib.Classes {
		t.Logf("class %s n=%d %+v -> %+v mape %.1f -> %.1f", c.Class, c.N, c.Before, c.After, c.MAPEBefore, c.MAPEAfter)
	}
	f, _ := os.Create("/tmp/local.json")
	r.HW.WriteJSON(f)
	f.Close()
}
