package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalHints: the evaluator names no flag; run and verify add the one
// to change (a symbolic dim with no value: --dim; the memory limit:
// --max-memory, at the end of the line).
func TestEvalHints(t *testing.T) {
	models := shared(t, "models")
	symbolic := filepath.Join(models, "cnn", "pytorch_super_resolution.onnx") // input [batch_size,1,224,224]
	fixed := filepath.Join(models, "cnn", "mnist_cntk_opset7.onnx")
	out := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", symbolic, "-o", out}, `input "input" has dim batch_size: give it a value with --dim batch_size=N`},
		{[]string{"verify", symbolic, symbolic}, `give it a value with --dim batch_size=N`},
		{[]string{"run", fixed, "-o", out, "--max-memory", "2KiB"}, "over the memory limit of 2048 bytes (--max-memory)\n"},
	} {
		_, stderr, code := run(tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
}
