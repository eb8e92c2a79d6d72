// Command hostcheck measures the host-calibration suite and the shared
// models in one interleaved ONNX Runtime run (so the machine's slow spells
// fall on both alike and are divided out), fits a hardware file on the
// suite as `wolong calibrate --host` does, and leaves the shared models'
// latency records beside it for `wolong validate --ort-latency DIR`: the
// fit's error on real models it did not see.
//
//	go run ./bench/hostcheck -o DIR [-max-seconds 0.3] [-models ../shared/models]
//	go run ./bench/hostcheck -from DIR      # refit a folder measured before
//	wolong validate --hw DIR/local.json --ort-latency DIR/shared --models ../shared/models
//
// Models come from testdata/ort/manifest.json (their inputs and fills);
// run it from the repository root. One thread.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/simulate/calibrate/host"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func main() {
	out := flag.String("o", "", "folder to measure into")
	from := flag.String("from", "", "refit a folder measured before")
	models := flag.String("models", "../shared/models", "shared models folder")
	manifest := flag.String("manifest", "testdata/ort/manifest.json", "models and their inputs")
	maxSec := flag.Float64("max-seconds", 0.3, "measuring budget per model (s)")
	flag.Float64Var(&modelWeight, "model-weight", 0, "weight of the complete models' runs in the fit (0: host's default)")
	flag.Float64Var(&jointPrior, "joint-prior", 0, "pull of the joint refinement toward the staged fit (0: default)")
	flag.Float64Var(&minKernel, "min-kernel-us", 0, "profiled kernels shorter than this are left out of the kernel fit (0: default)")
	flag.StringVar(&only, "only", "", "measure only the suite models whose name matches this regexp (and no shared models)")
	flag.BoolVar(&joint, "joint", false, "fit with the staged and joint fit (calibrate.Fit) instead of the direct fit")
	flag.Parse()
	if err := run(*out, *from, *models, *manifest, *maxSec); err != nil {
		fmt.Fprintln(os.Stderr, "hostcheck:", err)
		os.Exit(1)
	}
}

var modelWeight, jointPrior, minKernel float64
var joint bool
var only string

func run(out, from, models, manifest string, maxSec float64) error {
	dir := from
	if dir == "" {
		if out == "" {
			return fmt.Errorf("give -o DIR or -from DIR")
		}
		if err := os.MkdirAll(filepath.Join(out, "shared"), 0o755); err != nil {
			return err
		}
		var extra []ortbench.Job
		var keep func(string) bool
		if only != "" {
			re, err := regexp.Compile(only)
			if err != nil {
				return err
			}
			keep = re.MatchString
		} else {
			var err error
			if extra, err = sharedJobs(models, manifest); err != nil {
				return err
			}
		}
		h, err := ortbench.Open(context.Background(), ortbench.Options{})
		if err != nil {
			return err
		}
		_, err = host.Measure(context.Background(), h, host.MeasureOptions{
			Dir: out, Threads: []int{1}, MaxSeconds: maxSec, Extra: extra, Only: keep,
			Progress: func(d, n int, l string) { fmt.Fprintf(os.Stderr, "%d/%d %s\n", d, n, l) },
		})
		if err != nil {
			return err
		}
		dir = out
	}
	man, err := host.ReadManifest(dir)
	if err != nil {
		return err
	}
	base, err := hw.Preset("cpu-1t")
	if err != nil {
		return err
	}
	base.Fitted = nil
	fo := host.FitOptions{Base: base, Threads: 1, Name: "hostcheck", JointPrior: jointPrior, MinKernelUs: minKernel, Joint: joint}
	if modelWeight > 0 {
		fo.GroupWeight = map[string]float64{"model": modelWeight}
	}
	f, err := host.Fit(dir, man, fo)
	if err != nil {
		return err
	}
	for _, m := range f.Models {
		fmt.Printf("%-40s %-12s held=%-5v measured %10.1f us predicted %10.1f us %+7.1f%%\n", m.Name, m.Group, m.HeldOut, m.MeasuredUs, m.PredictedUs, m.ErrorPct())
	}
	fmt.Printf("suite: MAPE %.1f%% fitted on, %.1f%% held out; profiler %.2f us/node, %.2f us inside kernels\n", f.TrainMAPE, f.HeldMAPE, f.ProfilerNodeUs, f.KernelInflationUs)
	file := filepath.Join(dir, "local.json")
	w, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := f.HW.WriteJSON(w); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Printf("wrote %s; now: wolong validate --hw %s --ort-latency %s --models %s\n", file, file, filepath.Join(dir, "shared"), models)
	return nil
}

// sharedJobs lists the manifest's models present under models.
func sharedJobs(models, manifest string) ([]ortbench.Job, error) {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return nil, err
	}
	var man struct {
		Models []struct {
			Model  string           `json:"model"`
			Seed   int              `json:"seed"`
			Inputs []ortbench.Input `json:"inputs"`
		} `json:"models"`
	}
	if err := json.Unmarshal(data, &man); err != nil {
		return nil, fmt.Errorf("%s: %v", manifest, err)
	}
	abs, err := filepath.Abs(models)
	if err != nil {
		return nil, err
	}
	var jobs []ortbench.Job
	for _, m := range man.Models {
		p := filepath.Join(abs, m.Model)
		if _, err := os.Stat(p); err != nil || ortFails(m.Model) {
			continue
		}
		jobs = append(jobs, ortbench.Job{Model: p, Inputs: m.Inputs, Seed: m.Seed,
			Out: "shared/" + strings.ReplaceAll(strings.TrimSuffix(m.Model, ".onnx"), "/", "__") + ".json"})
	}
	return jobs, nil
}

// ortFails reports whether testdata/ort records that ONNX Runtime cannot
// run model.
func ortFails(model string) bool {
	data, err := os.ReadFile(filepath.Join("testdata", "ort", strings.ReplaceAll(strings.TrimSuffix(model, ".onnx"), "/", "__")+".json"))
	if err != nil {
		return false
	}
	var rec struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(data, &rec) == nil && rec.Error != ""
}
