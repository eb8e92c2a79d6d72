// Command mutate is wolong's fuzzing sweep at scale: it mutates the shared
// models, testdata/models and the hostile catalogue (internal/hostile)
// into -n variants and runs the real wolong binary on each with six
// commands (import, inspect, profile, optimize, verify, run), one process
// at a time, each under a time limit and a memory limit. A run that
// panics, runs past the time limit, peaks over --max-memory plus a margin,
// or fails without one clean error line is a failure: its variant is
// saved under OUT/fail with the command lines that failed.
//
// The sweep is deterministic given -seed and -n (the same variants in the
// same order, from the same seed models); timings and memory are not.
//
//	go run ./bench/mutate -n 10000 -seed 1 -o /tmp/sweep   # from the repository root
//	go run ./bench/mutate -n 10000 -seed 1 -o /tmp/sweep -only 17,4242   # replay variants
//
// It does not parallelize (the figures would then measure contention) and
// does not minimize failures: each saved variant is what was run.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// config is the command line.
type config struct {
	n        int
	seed     uint64
	out      string
	bin      string
	roots    []string
	hostile  bool
	timeout  time.Duration
	evalTime time.Duration
	maxMem   int64
	margin   int64
	only     map[int]bool
	progress bool
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == wrapFlag {
		os.Exit(wrapMain(os.Args[2:]))
	}
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
	sum, err := sweep(cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
	sum.print(os.Stdout)
	if sum.Failures > 0 {
		os.Exit(1)
	}
}

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	cfg := &config{}
	fs.IntVar(&cfg.n, "n", 10000, "number of variants")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the sweep")
	fs.StringVar(&cfg.out, "o", "", "output folder (work files, runs.jsonl, summary.json, fail/)")
	fs.StringVar(&cfg.bin, "bin", "", "wolong binary (default: built from the current directory into OUT/wolong)")
	models := fs.String("models", "../shared/models,testdata/models", "comma-separated folders of seed models")
	fs.BoolVar(&cfg.hostile, "hostile", true, "add internal/hostile's cases to the seeds")
	fs.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "time limit of one run")
	fs.DurationVar(&cfg.evalTime, "eval-timeout", 20*time.Second, "--timeout given to run and verify (below -timeout: a long evaluation then ends with wolong's own error)")
	maxMem := fs.String("max-memory", "1GiB", "--max-memory given to every command")
	margin := fs.String("margin", "512MiB", "peak RSS allowed above --max-memory")
	only := fs.String("only", "", "comma-separated variant indexes to run (of the same -n and -seed)")
	fs.BoolVar(&cfg.progress, "progress", true, "a progress line on stderr every 100 variants")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if cfg.out == "" {
		return nil, fmt.Errorf("-o DIR is required")
	}
	if cfg.n <= 0 {
		return nil, fmt.Errorf("-n must be positive")
	}
	var err error
	if cfg.maxMem, err = parseBytes(*maxMem); err != nil {
		return nil, fmt.Errorf("-max-memory: %v", err)
	}
	if cfg.margin, err = parseBytes(*margin); err != nil {
		return nil, fmt.Errorf("-margin: %v", err)
	}
	for _, r := range strings.Split(*models, ",") {
		if r = strings.TrimSpace(r); r != "" {
			cfg.roots = append(cfg.roots, r)
		}
	}
	if *only != "" {
		cfg.only = map[int]bool{}
		for _, s := range strings.Split(*only, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || i < 0 || i >= cfg.n {
				return nil, fmt.Errorf("-only: %q is not a variant index below -n", s)
			}
			cfg.only[i] = true
		}
	}
	return cfg, nil
}

// parseBytes reads 512MiB, 1GiB, 4096.
func parseBytes(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(s, u.suf) {
			s, mult = strings.TrimSuffix(s, u.suf), u.m
			break
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a positive size (bytes, KiB, MiB, GiB)", s)
	}
	return v * mult, nil
}

// sweep runs the whole sweep and returns its summary.
func sweep(cfg *config, logw *os.File) (*summary, error) {
	start := time.Now()
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return nil, err
	}
	out, err := filepath.Abs(cfg.out)
	if err != nil {
		return nil, err
	}
	bin := cfg.bin
	if bin == "" {
		bin = filepath.Join(out, "wolong")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Stdout, build.Stderr = logw, logw
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("go build: %v", err)
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	hostileDir := ""
	if cfg.hostile {
		hostileDir = filepath.Join(out, "hostile")
	}
	seeds, err := collectSeeds(cfg.roots, hostileDir)
	if err != nil {
		return nil, err
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no seed models under %v", cfg.roots)
	}
	work := filepath.Join(out, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	if err := prepareWork(seeds, work); err != nil {
		return nil, err
	}
	describeSeeds(bin, seeds)
	ops := opList(seeds)
	order := schedule(seeds, cfg.n, rand.New(rand.NewPCG(cfg.seed, 1<<63)).Shuffle)

	runs, err := os.Create(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		return nil, err
	}
	defer runs.Close()
	enc := json.NewEncoder(runs)
	lim := limits{timeout: cfg.timeout, maxRSS: cfg.maxMem + cfg.margin, killRSS: 2*cfg.maxMem + cfg.margin, stderrCp: 16 << 10}
	maxMem := strconv.FormatInt(cfg.maxMem, 10)
	if cfg.evalTime <= 0 || cfg.evalTime >= cfg.timeout {
		return nil, fmt.Errorf("-eval-timeout %s must be positive and below -timeout %s", cfg.evalTime, cfg.timeout)
	}
	sum := newSummary(cfg, seeds)
	for i, si := range order {
		if cfg.only != nil && !cfg.only[i] {
			continue
		}
		v := makeVariant(cfg.seed, i, seeds[si], ops)
		res, err := runVariant(bin, v, maxMem, cfg.evalTime, lim)
		if err != nil {
			return nil, err
		}
		var failed []result
		for _, r := range res {
			if err := enc.Encode(r); err != nil {
				return nil, err
			}
			if failure(r.Outcome) {
				failed = append(failed, r)
			}
		}
		sum.add(v, res)
		if len(failed) > 0 {
			if err := saveFailure(filepath.Join(out, "fail"), v, failed); err != nil {
				return nil, err
			}
		}
		if cfg.progress && (sum.Variants%100 == 0) {
			fmt.Fprintf(logw, "mutate: %d variants, %d runs, %d failures, %s\n", sum.Variants, sum.Runs, sum.Failures, time.Since(start).Round(time.Second))
		}
	}
	sum.WallSeconds = time.Since(start).Seconds()
	b, _ := json.MarshalIndent(sum, "", "  ")
	if err := os.WriteFile(filepath.Join(out, "summary.json"), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return sum, nil
}

// runVariant writes the variant into its seed's work folder and runs the
// six commands on it.
func runVariant(bin string, v *variant, maxMem string, evalTimeout time.Duration, lim limits) ([]result, error) {
	dir := v.seed.work
	model := filepath.Join(dir, "v.onnx")
	outDir := filepath.Join(dir, "out")
	if err := os.RemoveAll(outDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(model, v.data, 0o644); err != nil {
		return nil, err
	}
	var res []result
	for _, c := range v.commands(model, outDir, maxMem, evalTimeout) {
		if c.name == "verify" {
			if _, err := os.Stat(filepath.Join(outDir, "opt.onnx")); err != nil {
				c.args[2] = model // nothing emitted: the variant against itself
			}
		}
		r := execute(bin, c.args, dir, lim)
		r.Variant, r.Seed, r.Command = v.index, v.seed.name, c.name
		res = append(res, r)
	}
	return res, nil
}
