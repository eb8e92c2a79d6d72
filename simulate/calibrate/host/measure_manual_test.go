package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	opt := MeasureOptions{Dir: dir, Threads: []int{1, 2}, Progress: func(d, n int, l string) { t.Logf("%d/%d %s", d, n, l) }}
	if p := os.Getenv("HOSTCAL_ONLY"); p != "" { // a name prefix: measure only those models
		opt.Only = func(name string) bool { return strings.HasPrefix(name, p) }
		opt.Threads = []int{1} // the prefix's models may have no two-thread job
	}
	_, err = Measure(context.Background(), h, opt)
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

// TestManualVariants refits the measured folders in HOSTCAL_VARIANTS
// (comma-separated) with the direct fit's priors scaled, writing
// OUT/<variant>_<i>.json for checking the fits' agreement on models they
// did not see (bench/cpu_heldout.sh's validate step).
func TestManualVariants(t *testing.T) {
	dirs := os.Getenv("HOSTCAL_VARIANTS")
	out := os.Getenv("HOSTCAL_OUT")
	if dirs == "" || out == "" {
		t.Skip("manual")
	}
	base, _ := hw.Preset("cpu-1t")
	base.Fitted = nil
	variants := map[string]FitOptions{
		"p005": {Prior: 0.05},
		"p02":  {Prior: 0.2},
		"p08":  {Prior: 0.8},
		"p32":  {Prior: 3.2},
	}
	for i, dir := range strings.Split(dirs, ",") {
		man, err := ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range variants {
			v.Base, v.Name = base, "local"
			r, err := Fit(dir, man, v)
			if err != nil {
				t.Fatal(err)
			}
			describe(r, hw.HostCPU(), 1, man, time.Now())
			f, _ := os.Create(filepath.Join(out, fmt.Sprintf("%s_%d.json", name, i)))
			r.HW.WriteJSON(f)
			f.Close()
			data, _ := json.Marshal(r.Models)
			os.WriteFile(filepath.Join(out, fmt.Sprintf("%s_%d.models.json", name, i)), data, 0o644)
			t.Logf("%s %s: train %.1f%% held %.1f%%", dir, name, r.TrainMAPE, r.HeldMAPE)
		}
	}
}
