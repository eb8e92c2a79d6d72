package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// subMainEnv, when set in the environment, makes the test binary run
// Main with the arguments it holds (separated by \x1f) instead of the
// tests: a command in a process of its own, for figures per process.
// After the command the child writes its peak resident memory (VmHWM, in
// kB: its own, unlike ru_maxrss, which starts at the parent's peak) to
// the file named by subMainRSS.
const subMainEnv, subMainRSS = "WOLONG_TEST_SUBMAIN", "WOLONG_TEST_SUBMAIN_RSS"

func TestMain(m *testing.M) {
	// The tests' figures are for the presets as named, on every machine:
	// no variant fitted on this CPU stands in (hostvariant_test.go
	// checks that choice with machines of its own).
	hostCPU = func() hw.CPUInfo { return hw.CPUInfo{} }
	if args := os.Getenv(subMainEnv); args != "" {
		code := Main(strings.Split(args, "\x1f"), os.Stdout, os.Stderr)
		status, _ := os.ReadFile("/proc/self/status")
		for _, l := range strings.Split(string(status), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
				os.WriteFile(os.Getenv(subMainRSS), []byte(f[1]), 0o644)
			}
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// subMain runs wolong args in a child process and returns its exit status
// and peak resident memory in bytes.
func subMain(t *testing.T, args ...string) (int, int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rssFile := filepath.Join(t.TempDir(), "rss")
	c := exec.Command(self)
	c.Env = append(os.Environ(), subMainEnv+"="+strings.Join(args, "\x1f"), subMainRSS+"="+rssFile)
	out, _ := c.CombinedOutput()
	code := c.ProcessState.ExitCode()
	if code != 0 {
		t.Logf("%v: exit %d: %s", args, code, out)
	}
	b, err := os.ReadFile(rssFile)
	kb, perr := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || perr != nil {
		t.Fatalf("%v: no peak RSS from the child (%v %v)", args, err, perr)
	}
	return code, kb << 10
}

// TestMaxMemoryBoundsProcess: --max-memory also bounds the process, not
// only the evaluator's live set: a chain of Neg nodes over a 64 MiB tensor
// holds two tensors live at a time, but without a limit on the Go heap its
// garbage takes the process to twice the bound.
func TestMaxMemoryBoundsProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates ~1 GB over a few seconds")
	}
	g := ir.NewGraph("chain")
	v := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(16<<20)))
	for i := 0; i < 12; i++ {
		v = g.AddNode("Neg", "", fmt.Sprintf("neg%d", i), []*ir.Value{v}, []string{fmt.Sprintf("v%d", i)}).Outputs[0]
	}
	g.Outputs = []*ir.Value{v}
	dir := t.TempDir()
	model := writeGen(t, dir, "chain.onnx", &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g})
	const max = 200 << 20
	code, rss := subMain(t, "run", model, "-o", filepath.Join(dir, "out"), "--max-memory", "200MiB")
	if code != 0 {
		t.Fatalf("run: exit %d", code)
	}
	t.Logf("run: peak RSS %d MiB with --max-memory 200MiB", rss>>20)
	// measured here: 273 MiB on a quiet machine, up to 337 MiB with other
	// test packages on both cores (the collector and the scavenger lag),
	// 401 MiB with no limit (GOMEMLIMIT=off)
	if rss > max*9/5 {
		t.Errorf("run: peak RSS %d MiB, over 1.8 x --max-memory", rss>>20)
	}
}

// TestLoadRestoresGCPercent: the collector paused for the import is
// running again at the caller's setting afterwards, when the load
// succeeded and when it failed.
func TestLoadRestoresGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	for _, tc := range []struct {
		model string
		ok    bool
	}{
		{filepath.Join("..", "testdata", "models", "sample_cnn.onnx"), true},
		{filepath.Join(t.TempDir(), "missing.onnx"), false},
	} {
		_, errOut, code := run("inspect", tc.model)
		if (code == 0) != tc.ok {
			t.Fatalf("inspect %s: exit %d: %s", tc.model, code, errOut)
		}
		if got := debug.SetGCPercent(77); got != 77 {
			t.Errorf("inspect %s: GC percent %d after the command, want the caller's 77", tc.model, got)
		}
	}
}
