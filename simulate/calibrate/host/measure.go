// Package host fits a CPU hardware file to the machine it runs on: it
// generates the calibration suite (internal/modelgen.CalibrationSuite),
// measures every model in ONNX Runtime through the harness
// (internal/ortbench) unprofiled for end-to-end targets and profiled for
// the per-kernel split, and fits the efficiency and host parameters
// (simulate/calibrate) with part of the suite held back to state the fit's
// error. It backs `wolong calibrate --host`.
package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/ir"
)

// MeasureOptions steer Measure.
type MeasureOptions struct {
	Dir        string  // folder for the models and measurements (must exist)
	Threads    []int   // intra-op thread counts to measure (default 1)
	MaxSeconds float64 // per model and thread count (default 0.2: calibrate --host within 2 minutes)
	// Only, when set, keeps the suite models whose name it accepts.
	Only func(name string) bool
	// Progress is told each model measured (nil: silent).
	Progress func(done, total int, line string)
	// L2KB is the core's L2 cache, KiB: the harness's cache probe tells
	// the passes that had it to themselves (ortbench.Measure.CacheProbeKB;
	// 0: no probe). calibrate --host leaves it 0: the pointer-chase probe
	// did not separate the quiet passes from the others on the Intel VM
	// (docs/calibration-protocol.md, "The cache probe").
	L2KB int
	// Extra models are measured at one thread in the same interleaved run
	// as the suite (so the same slow spells fall on them), for checking a
	// fit on models it did not see; their records go into Dir too.
	Extra []ortbench.Job
}

// Manifest is what a measured suite folder holds: suite.json lists the
// models and, per thread count, their measurement files.
type Manifest struct {
	Format  string          `json:"format"` // "wolong-host-suite"
	Version int             `json:"version"`
	ORT     string          `json:"ort"`
	Models  []ManifestModel `json:"models"`
	Threads []int           `json:"threads"`
}

// ManifestModel is one suite model in a measured folder.
type ManifestModel struct {
	Name       string `json:"name"`
	Group      string `json:"group"`
	File       string `json:"file"` // model file, relative to the folder
	TwoThreads bool   `json:"two_threads,omitempty"`
}

const manifestFormat = "wolong-host-suite"

// LatencyFile and ProfileFile name a model's measurements for a thread
// count in a suite folder.
func LatencyFile(name string, threads int) string {
	return fmt.Sprintf("%s.t%d.json", name, threads)
}

// ProfileFile is the per-node profile beside LatencyFile.
func ProfileFile(name string, threads int) string {
	return fmt.Sprintf("%s.t%d.profile.json", name, threads)
}

// Passes is how many times the harness measures each model, in passes
// over the whole suite sharing the model's time budget. On a shared VM a
// pass's median swings with the host's other tenants (up to 1.7x with
// nothing else running on this VM class: docs/calibration-protocol.md);
// interference only slows a run down, so the model's fast passes are the
// machine's own speed. Twelve short passes, spread over the minute the
// suite takes, catch the fast state for more models than six longer ones,
// and the runs of the fastest quarter of them are pooled
// (ortbench.Measure.CIPct): more runs than one pass, no pull toward the
// lowest of many noisy medians, and no jump when one pass catches a rare
// faster spell (two measurements of the suite agree best so:
// docs/calibration-protocol.md). A pass takes at least passMinRuns runs
// (a slow model's passes together make as many runs as six of ten).
// Each pass drops its outlying runs (5 scaled MADs), and a model whose
// target is not known to within TargetCIPct (the pool's 95% interval and
// the spread of the pass medians at the quarter's edge) is measured in up
// to ciPasses more passes, within ciSeconds in all. A model still outside
// is reported (FitResult.Unsettled).
const (
	Passes      = 12
	passMinRuns = 5
	ciPasses    = 2
	ciSeconds   = 4
)

// passesAt is the passes at t threads: Passes at one; at more, half as
// many (the multi-thread part of the suite is its largest models, whose
// passes are set by their fewest runs, not by the time budget: twelve
// would take calibrate --host past two minutes).
func passesAt(t int) int {
	if t > 1 {
		return Passes / 2
	}
	return Passes
}

// TargetCIPct is how well calibrate --host measures every run: the
// half-width of its median's 95% interval, %.
const TargetCIPct = 3

// Measure writes the suite's models into opt.Dir and measures them with h:
// at one thread every model, at more threads the models marked
// TwoThreads. It writes suite.json last, so a folder with one is complete.
func Measure(ctx context.Context, h *ortbench.Harness, opt MeasureOptions) (*Manifest, error) {
	if len(opt.Threads) == 0 {
		opt.Threads = []int{1}
	}
	if opt.MaxSeconds <= 0 {
		opt.MaxSeconds = 0.2
	}
	// the harness runs in its own folder: a relative --keep DIR would
	// name files it cannot find
	dir, err := filepath.Abs(opt.Dir)
	if err != nil {
		return nil, err
	}
	opt.Dir = dir
	man := &Manifest{Format: manifestFormat, Version: 1, ORT: ortbench.Version, Threads: opt.Threads}
	var jobs = map[int][]ortbench.Job{}
	for _, s := range modelgen.CalibrationSuite() {
		if opt.Only != nil && !opt.Only(s.Name) {
			continue
		}
		file := s.Name + ".onnx"
		if err := importer.WriteFile(s.Model, filepath.Join(opt.Dir, file)); err != nil {
			return nil, fmt.Errorf("writing %s: %v", file, err)
		}
		man.Models = append(man.Models, ManifestModel{Name: s.Name, Group: s.Group, File: file, TwoThreads: s.TwoThreads})
		for _, t := range opt.Threads {
			if t > 1 && !s.TwoThreads {
				continue
			}
			jobs[t] = append(jobs[t], ortbench.Job{
				Model:  filepath.Join(opt.Dir, file),
				Inputs: inputsOf(s.Model),
				Out:    LatencyFile(s.Name, t),
				// a chain of one op needs no profile to share its kernel
				// time; the host and view chains measure the profiler
				NoProfile: singleOp(s.Model) && s.Group != "host" && s.Group != "view",
			})
		}
	}
	jobs[1] = append(jobs[1], opt.Extra...)
	total := 0
	for t, js := range jobs {
		total += len(js) * passesAt(t) // the harness prints a line per model and pass
	}
	done := 0
	for _, t := range opt.Threads {
		err := h.Run(ctx, opt.Dir, jobs[t], ortbench.Measure{
			Threads: t, MaxSeconds: opt.MaxSeconds, Warmup: 5, WarmupMs: 20, Runs: 400, Profiled: true, Passes: passesAt(t), PassMinRuns: passMinRuns, CIPct: TargetCIPct, CIPasses: ciPasses, CISeconds: ciSeconds, CacheProbeKB: opt.L2KB,
			Line: func(line string) {
				done++
				if opt.Progress != nil {
					opt.Progress(done, total, fmt.Sprintf("%d thread(s): %s", t, strings.TrimPrefix(line, opt.Dir+string(filepath.Separator))))
				}
			},
		})
		if err != nil {
			return nil, err
		}
	}
	data, _ := json.MarshalIndent(man, "", " ")
	if err := os.WriteFile(filepath.Join(opt.Dir, "suite.json"), append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	return man, nil
}

// inputsOf lists a suite model's graph inputs for the harness (every one a
// static float32 tensor).
func inputsOf(m *ir.Model) []ortbench.Input {
	var in []ortbench.Input
	for _, v := range m.Graph.Inputs {
		dims, _ := v.Type.Shape.Ints()
		in = append(in, ortbench.Input{Name: v.Name, DType: v.Type.DType.String(), Shape: dims})
	}
	return in
}

// ReadManifest reads dir/suite.json.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, "suite.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a measured suite folder: %v", dir, err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Format != manifestFormat {
		return nil, fmt.Errorf("%s/suite.json: not a %s file", dir, manifestFormat)
	}
	sort.Ints(m.Threads)
	return &m, nil
}

// singleOp reports whether every node of m's main graph is of one op type.
func singleOp(m *ir.Model) bool {
	for _, n := range m.Graph.Nodes {
		if n.Op != m.Graph.Nodes[0].Op || n.Domain != m.Graph.Nodes[0].Domain {
			return false
		}
	}
	return true
}
