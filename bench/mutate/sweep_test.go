package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the sweep's exec wrapper.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == wrapFlag {
		os.Exit(wrapMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// TestSweepSmoke builds wolong and runs a short sweep (30 variants, 180
// runs) from the repository root: no run may fail, and the figures must
// add up. The long sweep is bench/mutate.sh.
func TestSweepSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wolong and runs 180 commands")
	}
	if _, err := os.Stat(filepath.Join("..", "..", "..", "shared", "models")); err != nil {
		t.Skip("no shared models beside the repository")
	}
	out := t.TempDir()
	bin := filepath.Join(out, "wolong")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	// generous time limits: this checks for panics, garbled output and
	// memory, not speed (a loaded 2-core CI machine ran a command past
	// 30 s); the sweeps keep the 30 s budget
	cfg := &config{n: 30, seed: 1, out: out, bin: bin, hostile: true, timeout: 120 * time.Second, evalTime: 60 * time.Second,
		maxMem: 1 << 30, margin: 512 << 20,
		roots: []string{filepath.Join(root, "..", "shared", "models"), filepath.Join(root, "testdata", "models")}}
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	sum, err := sweep(cfg, devnull)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Variants != 30 || sum.Runs != 180 {
		t.Fatalf("%d variants, %d runs; want 30 and 180", sum.Variants, sum.Runs)
	}
	if sum.Failures != 0 {
		t.Errorf("%d failing runs; see the saved variants under %s", sum.Failures, filepath.Join(out, "fail"))
	}
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("runs.jsonl line %d: %v", lines+1, err)
		}
		counts[r.Command+"/"+r.Outcome]++
		lines++
	}
	if lines != 180 {
		t.Errorf("runs.jsonl has %d runs, want 180", lines)
	}
	for cmd, byOutcome := range sum.Outcomes {
		for o, n := range byOutcome {
			if counts[cmd+"/"+o] != n {
				t.Errorf("%s %s: summary says %d, runs.jsonl %d", cmd, o, n, counts[cmd+"/"+o])
			}
		}
	}
}
