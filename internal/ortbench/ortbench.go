// Package ortbench runs ONNX Runtime on this machine through its node
// package (onnxruntime-node 1.30, CPU binaries), to measure models as people
// run them. The measuring script (js/measure.mjs) is embedded in wolong, so
// the harness works outside the repository: Open writes it into a harness
// folder in the user's cache and installs onnxruntime-node there with npm
// the first time. Node.js and npm are the only things it needs.
package ortbench

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Version is the ONNX Runtime release the harness installs.
const Version = "1.30.0"

//go:embed js/measure.mjs js/run.mjs js/inputs.mjs js/package.json
var scripts embed.FS

// ErrMissing reports that node or npm is not installed; its message names
// what is absent.
var ErrMissing = errors.New("missing")

// Harness is a folder with the measuring script and onnxruntime-node.
type Harness struct {
	Dir    string // holds the script, package.json and node_modules
	Node   string // the node executable
	Script string // the measuring script (measure-HASH.mjs in Dir)
	Runner string // the running script (run-HASH.mjs in Dir)
}

// DefaultDir is the harness folder wolong keeps in the user's cache:
// $XDG_CACHE_HOME/wolong/ort-1.30.0 (~/.cache on Linux, ~/Library/Caches
// on macOS).
func DefaultDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for the ONNX Runtime harness: %v", err)
	}
	return filepath.Join(c, "wolong", "ort-"+Version), nil
}

// Options steer Open.
type Options struct {
	Dir string // harness folder (default DefaultDir)
	// Log receives npm's progress lines while installing (nil: discarded).
	Log io.Writer
	// Notice, when set, is told in one line before npm installs
	// onnxruntime-node (the first use only): what, with what and where.
	Notice io.Writer
}

// Open finds node (and npm, when onnxruntime-node is not installed yet),
// writes the embedded scripts into the harness folder and installs
// onnxruntime-node there if it is missing. An absent node or npm is an
// error wrapping ErrMissing with one line that says what to install.
func Open(ctx context.Context, opt Options) (*Harness, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: node is not installed (ONNX Runtime %s runs under Node.js: install Node.js 18 or later, with npm)", ErrMissing, Version)
	}
	dir := opt.Dir
	if dir == "" {
		if dir, err = DefaultDir(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	// the scripts are written under names of their own content, so wolong
	// builds of different versions sharing the folder never run each
	// other's scripts
	for _, name := range []string{"inputs.mjs", "measure.mjs", "run.mjs"} {
		if err := writeIfChanged(filepath.Join(dir, scriptName(name)), scriptData(name)); err != nil {
			return nil, fmt.Errorf("%v", err)
		}
	}
	pkg, _ := scripts.ReadFile("js/package.json")
	if err := writeIfChanged(filepath.Join(dir, "package.json"), pkg); err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	h := &Harness{Dir: dir, Node: node, Script: filepath.Join(dir, scriptName("measure.mjs")), Runner: filepath.Join(dir, scriptName("run.mjs"))}
	if h.installed() {
		return h, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("%w: npm is not installed (needed once, to install onnxruntime-node %s into %s)", ErrMissing, Version, dir)
	}
	if opt.Notice != nil {
		fmt.Fprintf(opt.Notice, "wolong: installing onnxruntime-node %s with npm into %s (first use only; about 10 s)\n", Version, dir)
	}
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-save", "onnxruntime-node@"+Version)
	cmd.Dir = dir
	// CPU binaries only: the package would otherwise download CUDA ones.
	cmd.Env = append(os.Environ(), "ONNXRUNTIME_NODE_INSTALL=skip", "ONNXRUNTIME_NODE_INSTALL_CUDA=skip")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if opt.Log != nil {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, opt.Log), io.MultiWriter(&out, opt.Log)
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("npm install onnxruntime-node@%s in %s failed: %v: %s", Version, dir, err, lastLine(out.String()))
	}
	if !h.installed() {
		return nil, fmt.Errorf("npm install onnxruntime-node@%s in %s left no node_modules/onnxruntime-node", Version, dir)
	}
	return h, nil
}

func (h *Harness) installed() bool {
	_, err := os.Stat(filepath.Join(h.Dir, "node_modules", "onnxruntime-node", "package.json"))
	return err == nil
}

func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Input is one model input of a measurement: its element type, shape and
// optional constant fill (else seeded random values). It is the record a
// latency file lists under "inputs" (simulate/calibrate reads it as
// GraphInput, an alias of this type), so what the harness fed reads back
// unchanged.
type Input struct {
	Name  string  `json:"name"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
	// Fill is the one value every element was set to (the harness's
	// constant inputs: a sample rate, a sequence length); nil: random.
	Fill *float64 `json:"fill,omitempty"`
}

// Job is one model to measure.
type Job struct {
	Model  string  `json:"model"` // absolute path
	Inputs []Input `json:"inputs"`
	Seed   int     `json:"seed,omitempty"`
	Out    string  `json:"out"` // file name of the latency record in the output folder
	// NoProfile: no profiled runs for this model, even with
	// Measure.Profiled.
	NoProfile bool `json:"no_profile,omitempty"`
}

// Measure says how to measure.
type Measure struct {
	Threads    int     // intra-op threads (default 1)
	Level      string  // graph optimization level (default "disabled")
	Runs       int     // most measured runs (default 300)
	Warmup     int     // warm-up runs (default 20; at least 0.2 s either way)
	MaxSeconds float64 // stop measuring a model after this long (default 5)
	Profiled   bool    // also run a profiled session alternately (per-node profile files)
	Interleave bool    // models take turns, one run each
	// WarmupMs: warm-up lasts at least this long too (default 200).
	WarmupMs float64
	// Passes: measure every model this many times, in passes over all of
	// them (sessions kept open), and keep each model's pass with the lowest
	// median: a slow spell of the machine seldom falls on every pass
	// (default 1). Profiled runs come in the last pass. Not with Interleave.
	Passes int
	// RetryOverPct, with Passes > 1: a model whose pass medians differ by
	// more than this many percent is measured in one more (unprofiled)
	// pass after all the others, its lowest median counting (0: none).
	RetryOverPct float64
	// CIPct, with Passes > 1 (instead of RetryOverPct): each pass drops
	// its outlying runs, the runs of the fastest quarter of the passes are
	// pooled (the machine's own speed), and a model whose target (the
	// pool's median) is not known to within CIPct percent (95% interval,
	// and the spread of the pass medians at the quarter's edge) gets up
	// to CIPasses more unprofiled passes
	// (default 2) within CISeconds (default 30); its record says how well
	// it is known (ci_pct).
	CIPct, CISeconds float64
	CIPasses         int
	// CacheProbeKB, with Passes > 1: the size of the core's L2 cache,
	// KiB; between passes the harness times a pointer chase over 3/4 and
	// 1/16 of it, marks the passes that had the cache to themselves
	// (quiet) and pools those first; a model with no quiet pass pooled is
	// not settled (0: no probe).
	CacheProbeKB int
	// PassMinRuns is the fewest runs in a pass (default 10): with many
	// short passes, fewer each.
	PassMinRuns int
	// Line receives each line the script prints (one per model measured).
	Line func(string)
}

// Run measures jobs into outDir: a latency record per job (Job.Out) and,
// with Profiled, its per-node profile (Out without .json + .profile.json).
func (h *Harness) Run(ctx context.Context, outDir string, jobs []Job, m Measure) error {
	if m.Threads <= 0 {
		m.Threads = 1
	}
	if m.Level == "" {
		m.Level = "disabled"
	}
	spec, err := json.Marshal(struct {
		Models []Job `json:"models"`
	}{jobs})
	if err != nil {
		return err
	}
	specFile := filepath.Join(outDir, "spec.json")
	if err := os.WriteFile(specFile, spec, 0o644); err != nil {
		return fmt.Errorf("%v", err)
	}
	args := []string{h.Script, outDir, "--spec", specFile,
		"--threads", fmt.Sprint(m.Threads), "--level", m.Level}
	// flag adds a measure.mjs flag and its values when on.
	flag := func(on bool, name string, vals ...any) {
		if on {
			args = append(args, name)
			for _, v := range vals {
				args = append(args, fmt.Sprint(v))
			}
		}
	}
	flag(m.Runs > 0, "--runs", m.Runs)
	flag(m.Warmup > 0, "--warmup", m.Warmup)
	flag(m.MaxSeconds > 0, "--max-seconds", m.MaxSeconds)
	flag(m.Profiled, "--profiled")
	flag(m.Interleave, "--interleave")
	flag(m.WarmupMs > 0, "--warmup-ms", m.WarmupMs)
	flag(m.Passes > 1, "--passes", m.Passes)
	flag(m.Passes > 1 && m.RetryOverPct > 0 && m.CIPct <= 0, "--retry-over", m.RetryOverPct)
	flag(m.Passes > 1 && m.CIPct > 0, "--ci-pct", m.CIPct)
	flag(m.Passes > 1 && m.CIPct > 0 && m.CIPasses > 0, "--ci-passes", m.CIPasses)
	flag(m.Passes > 1 && m.CIPct > 0 && m.CISeconds > 0, "--ci-seconds", m.CISeconds)
	flag(m.Passes > 1 && m.PassMinRuns > 0, "--pass-min-runs", m.PassMinRuns)
	flag(m.Passes > 1 && m.CacheProbeKB > 0, "--cache-probe", m.CacheProbeKB)
	cmd := exec.CommandContext(ctx, h.Node, args...)
	cmd.Env = append(os.Environ(), "WOLONG_ORT_HOME="+h.Dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%v", err)
	}
	var failed []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, ": ERROR ") {
			failed = append(failed, line)
		}
		if m.Line != nil {
			m.Line(line)
		}
	}
	if err := cmd.Wait(); err != nil && len(failed) == 0 {
		return fmt.Errorf("node measure.mjs: %v: %s", err, lastLine(stderr.String()))
	}
	if len(failed) > 0 {
		return fmt.Errorf("ONNX Runtime failed on %d model(s): %s", len(failed), failed[0])
	}
	return nil
}

// scriptName is an embedded script's file name in a harness folder: its
// name with the first 12 hex digits of the 64-bit FNV-1a hash of what is
// written (scriptData), e.g. measure-0123456789ab.mjs. (A cache key, not a
// signature: SHA-256 linked the crypto packages' initialisers into every
// command's start-up.)
func scriptName(name string) string {
	h := fnv.New64a()
	h.Write(scriptData(name))
	return strings.TrimSuffix(name, ".mjs") + "-" + hex.EncodeToString(h.Sum(nil)[:6]) + ".mjs"
}

// sharedInputs is the import specifier of the input module (js/inputs.mjs)
// as the embedded scripts spell it.
const sharedInputs = "'./inputs.mjs'"

// scriptData is an embedded script as written into a harness folder: its
// import of inputs.mjs names that module's hashed file, so a script's
// hashed name changes with the module it loads too.
func scriptData(name string) []byte {
	data, _ := scripts.ReadFile("js/" + name)
	if name == "inputs.mjs" {
		return data
	}
	return bytes.ReplaceAll(data, []byte(sharedInputs), []byte("'./"+scriptName("inputs.mjs")+"'"))
}
