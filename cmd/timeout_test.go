package cmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wolong-dev/wolong/internal/modelgen"
)

// TestTimeout: run and verify stop a long evaluation (a Loop of 2^23
// cheap iterations) at --timeout with one error line; a negative value is
// a usage error; a model within the limit runs.
func TestTimeout(t *testing.T) {
	dir := t.TempDir()
	long := writeGen(t, dir, "long.onnx", modelgen.ScanLoop(1<<23, 1))
	short := writeGen(t, dir, "short.onnx", modelgen.ScanLoop(3, 2))
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", long, "-o", out, "--timeout", "300ms"}, 1, "over the time limit, before node"},
		{[]string{"verify", long, long, "--timeout", "300ms"}, 1, "over the time limit, before node"},
		{[]string{"run", long, "-o", out, "--timeout", "-1s"}, 2, "--timeout"},
		{[]string{"run", short, "-o", out, "--timeout", "1m"}, 0, ""},
		{[]string{"verify", short, short, "--timeout", "1m"}, 0, ""},
	} {
		start := time.Now()
		_, errs, code := run(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || (code != 0 && strings.Count(errs, "\n") != 1) ||
			(code == 1 && !strings.HasSuffix(errs, " (--timeout)\n")) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line with %q", tc.args, code, errs, tc.code, tc.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%v: took %v", tc.args, d)
		}
	}
}

// TestTimeoutWhileWriting: --timeout also stops run while it writes output
// files (a model listing its output 20,000 times takes seconds to write;
// the sweep met one listing it 883,011 times: 124 s).
func TestTimeoutWhileWriting(t *testing.T) {
	dir := t.TempDir()
	m := modelgen.ScanLoop(1, 1)
	for len(m.Graph.Outputs) < 20000 {
		m.Graph.Outputs = append(m.Graph.Outputs, m.Graph.Outputs[0])
	}
	model := writeGen(t, dir, "many.onnx", m)
	start := time.Now()
	_, errs, code := run("run", model, "-o", filepath.Join(dir, "out"), "--timeout", "200ms")
	if code != 1 || !strings.Contains(errs, "over the time limit") || !strings.HasSuffix(errs, " (--timeout)\n") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit 1 and one line about the time limit", code, errs)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
