package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalHints: the evaluator names no flag; run and verify add the one
// to change (the memory limit: --max-memory, at the end of the line). A
// symbolic dim with no value is set to 1 as profile sets it
// (TestEvalDefaultsDims).
func TestEvalHints(t *testing.T) {
	models := shared(t, "models")
	fixed := filepath.Join(models, "cnn", "mnist_cntk_opset7.onnx")
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", fixed, "-o", out, "--max-memory", "2KiB"}, "over the memory limit of 2048 bytes (--max-memory)\n"},
	} {
		_, stderr, code := run(tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
}
