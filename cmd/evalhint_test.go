package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalHints: the evaluator names no flag; run and verify add the one
// to change (the memory limit: --max-memory, at the end of the line), and a
// symbolic dim with no value is set to 1 as profile sets it, with a
// warning that names it (issue 26, item 7).
func TestEvalHints(t *testing.T) {
	models := shared(t, "models")
	symbolic := filepath.Join(models, "cnn", "pytorch_super_resolution.onnx") // input [batch_size,1,224,224]
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
	for _, args := range [][]string{{"run", symbolic, "-o", out}, {"verify", symbolic, symbolic}} {
		_, stderr, code := run(args...)
		if code != 0 || !strings.Contains(stderr, "dims not given with --dim / --input set to 1 (as profile sets them): batch_size=1") {
			t.Errorf("%v: exit %d, stderr %q; want exit 0 and a warning that batch_size is set to 1", args, code, stderr)
		}
	}
}
