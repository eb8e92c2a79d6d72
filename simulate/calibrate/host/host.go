package host

// This file is the whole host calibration: measure (or read a measured
// folder), fit each thread count, and describe the result.

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// Options steer Calibrate.
type Options struct {
	Name    string // name of the fitted hardware (default "local")
	Threads []int  // thread counts (default 1 and 2)
	// Dir keeps the suite's models and measurements there (default: a
	// temporary folder, removed); From refits a folder measured before
	// instead of measuring (no ONNX Runtime needed).
	Dir, From  string
	MaxSeconds float64 // per model and thread count
	HarnessDir string  // ONNX Runtime harness folder (default: the user's cache)
	Progress   func(done, total int, line string)
	// Now stamps the result (default time.Now).
	Now func() time.Time
	// Joint fits with calibrate.Fit's staged and joint fit instead of the
	// direct fit (see FitOptions.Joint).
	Joint bool
}

// Result is one fitted hardware file per thread count.
type Result struct {
	Fits    []*FitResult // in Options.Threads order
	Dir     string       // the measured folder ("" once removed)
	Harness string       // the harness folder used
}

// Calibrate measures this machine with the suite (or reads opt.From) and
// fits a CPU hardware file per thread count: the first from the cpu-1t
// preset, the others from the first with its cores and peaks scaled.
func Calibrate(ctx context.Context, opt Options) (*Result, error) {
	if opt.Name == "" {
		opt.Name = "local"
	}
	if len(opt.Threads) == 0 {
		opt.Threads = []int{1, 2}
	}
	if opt.Threads[0] != 1 {
		return nil, fmt.Errorf("the first thread count must be 1 (the others start from its fit)")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	res := &Result{}
	dir := opt.From
	var man *Manifest
	var err error
	if dir != "" {
		if man, err = ReadManifest(dir); err != nil {
			return nil, err
		}
		have := map[int]bool{}
		for _, t := range man.Threads {
			have[t] = true
		}
		for _, t := range opt.Threads {
			if !have[t] {
				return nil, fmt.Errorf("%s holds no measurements at %d thread(s) (it has %v)", dir, t, man.Threads)
			}
		}
	} else {
		h, err := ortbench.Open(ctx, ortbench.Options{Dir: opt.HarnessDir})
		if err != nil {
			return nil, err
		}
		res.Harness = h.Dir
		dir = opt.Dir
		if dir == "" {
			if dir, err = os.MkdirTemp("", "wolong-hostcal-"); err != nil {
				return nil, err
			}
			defer os.RemoveAll(dir)
		} else if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if man, err = Measure(ctx, h, MeasureOptions{Dir: dir, Threads: opt.Threads, MaxSeconds: opt.MaxSeconds, Progress: opt.Progress}); err != nil {
			return nil, err
		}
		if opt.Dir != "" {
			res.Dir = dir
		}
	}
	cpu := hw.HostCPU()
	base, err := hw.Preset("cpu-1t")
	if err != nil {
		return nil, err
	}
	base.Fitted = nil
	for _, t := range opt.Threads {
		name := opt.Name
		fo := FitOptions{Base: base, Threads: t, Name: name, Joint: opt.Joint}
		if t > 1 {
			// the multi-thread suite has no host models: keep the one-thread
			// host times, fit the kernels
			fo.Name = fmt.Sprintf("%s-%dt", opt.Name, t)
			fo.Base, fo.FixHost = scaleThreads(res.Fits[0].HW, t), true
		}
		f, err := Fit(dir, man, fo)
		if err != nil {
			return nil, fmt.Errorf("%d thread(s): %v", t, err)
		}
		describe(f, cpu, t, man, opt.Now())
		res.Fits = append(res.Fits, f)
	}
	return res, nil
}

// measuredAt is when f's runs were measured: the latest record's date
// (a fit of a saved folder is dated by its measurement, not by the fit),
// else now.
func measuredAt(f *FitResult, now time.Time) string {
	if t, err := time.Parse(time.RFC3339, f.MeasuredAt); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	return now.UTC().Format(time.RFC3339)
}

// CacheWorkingSet is the hw cache_working_set calibrate --host fits
// with (a variable for the manual comparison of the two placements).
var CacheWorkingSet = true

// scaleThreads is h run on t cores: t times the peaks and the cores.
func scaleThreads(h *hw.Hardware, t int) *hw.Hardware {
	c := h.Clone()
	k := float64(t) / float64(max(h.SMs, 1))
	p := &c.PeakTFLOPS
	for _, v := range []*float64{&p.FP64, &p.FP32, &p.TF32, &p.FP16, &p.BF16, &p.FP8, &p.INT8} {
		*v *= k
	}
	c.SMs = t
	c.Fitted = nil
	return c
}

// describe sets f's hardware name, description, sources, assumptions and
// Fitted record from the machine and the measurement.
func describe(f *FitResult, cpu hw.CPUInfo, threads int, man *Manifest, now time.Time) {
	h := f.HW
	n := 0
	for _, m := range man.Models {
		if threads == 1 || m.TwoThreads {
			n++
		}
	}
	h.Kind = "cpu"
	h.Description = fmt.Sprintf("this machine (%s, %d logical CPUs), a runtime on %d thread(s): fitted by wolong calibrate --host", cpu.Model, cpu.Cores, threads)
	if l2 := cpu.L2KB; l2 > 0 {
		h.L2MB = float64(l2) * 1024 / 1e6
	}
	if h.L3MB <= 0 {
		h.DRAMBandwidthGBs, h.DRAMStreamStall = 0, 0 // no L3 read: the tier has nothing to start from
	}
	h.Fitted = &hw.Fitted{
		CPU: cpu.Model, CPUID: cpu.ID, Cores: cpu.Cores, Threads: threads, L1dKB: cpu.L1dKB, L2KB: cpu.L2KB, L3KB: cpu.L3KB,
		Flags: cpu.Flags, OS: cpu.OS,
		Runtime: "onnxruntime " + man.ORT + " (node, onnxruntime-node), graph optimizations disabled, sequential executor",
		Date:    measuredAt(f, now),
		Method: fmt.Sprintf("%d generated models (GEMM, conv, depthwise, elementwise, reduction, normalization, data movement, views, a tiny-op zoo, attention and ONNX Runtime's fused ops, control flow, RNNs, audio front ends and small heads, small CNNs and transformers); end-to-end targets: unprofiled medians of warm runs, outliers beyond 5 MADs dropped, in %d interleaved passes the runs of the fastest quarter pooled, more passes for a model until its median is known to within %d%% (95%% interval; %d models were not: the machine was too noisy for them); %s, each run weighed by its noise, the host costs pulled toward the cpu-1t preset's; every %d-th model held back",
			n, passesAt(threads), TargetCIPct, len(f.Unsettled), fitMethod(f), 4),
		Models:            n,
		HeldOut:           heldOut(f),
		ProfilerNodeUs:    round2(f.ProfilerNodeUs),
		KernelInflationUs: round2(f.KernelInflationUs),
		NoisePct:          round2(f.NoisePct),
		TrainMAPE:         round2(f.TrainMAPE),
		HeldOutMAPE:       round2(f.HeldMAPE),
	}
	var res []hw.Residual
	for _, m := range f.Models {
		if m.HeldOut {
			res = append(res, hw.Residual{PredictedMs: m.PredictedUs / 1e3, MeasuredMs: m.MeasuredUs / 1e3})
		}
	}
	h.Fitted.ExpectedError = hw.ErrorBands(res, fmt.Sprintf("|error| of the %d suite models held out of this fit (generated models; real models of families the suite does not cover err more: docs/calibration-protocol.md), measured %s", len(res), h.Fitted.Date))
	h.Sources = []string{
		"measured on this machine by wolong calibrate --host (" + h.Fitted.Date + "): " + h.Fitted.Runtime,
		fmt.Sprintf("/proc/cpuinfo and /sys/devices/system/cpu: %s, %d logical CPUs, L1d %d KiB, L2 %d KiB, L3 %d KiB, %s", cpu.Model, cpu.Cores, cpu.L1dKB, cpu.L2KB, cpu.L3KB, cpu.Flags),
	}
	h.Assumptions = []string{
		fmt.Sprintf("ONNX Runtime's profiler costs %.2f us per node here (profiled minus unprofiled runs), %.2f us of it inside kernel timings: end-to-end figures are unprofiled", f.ProfilerNodeUs, f.KernelInflationUs),
		"peaks are the cpu-1t preset's scaled to the threads used; the fit sets the fractions of them each op class and measured op reaches",
		"no launch cost: the runtime runs kernels on the calling thread; per-node dispatch, per-run overhead (run_overhead_us, us), binding each input (input_us, us; input_us_per_mb, us per MB), returning each output (output_us, us; output_us_per_mb, us per MB), the first touch of node outputs above alloc_min_mb (alloc_us_per_mb, us per MB), views (free_node_us, us), Shape/Size nodes (shape_node_us, us) and control-flow bodies (subgraph_us, us per execution) are fitted host times; each op's fixed time per call (overhead_us) and per further recurrent step (step_us) are in efficiency.ops",
	}
}

func heldOut(f *FitResult) int {
	n := 0
	for _, m := range f.Models {
		if m.HeldOut {
			n++
		}
	}
	return n
}

func round2(v float64) float64 {
	return float64(int64(v*100+0.5*sign(v))) / 100
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// fitMethod says how f was fitted.
func fitMethod(f *FitResult) string {
	if f.Calib != nil && f.Calib.Joint {
		return fmt.Sprintf("kernels fitted to profiled runs (the profiler's %.2f us inside each kernel timing taken off), then every parameter refined against the end-to-end runs", f.KernelInflationUs)
	}
	return fmt.Sprintf("fitted directly to the end-to-end runs: host costs, then each op's fixed time and speeds from the kernel time its runs leave, shared among a run's kernels by a profiled run (the profiler's %.2f us inside each kernel timing taken off)", f.KernelInflationUs)
}
