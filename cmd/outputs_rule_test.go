package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputFolderRule: every flag that writes a file or a folder of
// files follows one rule (issue 26 item 12): the folder it writes into
// must exist, else a one-line usage error (exit 2) and nothing written;
// a flag naming a folder of outputs creates that folder itself.
func TestOutputFolderRule(t *testing.T) {
	model := filepath.Join("..", "testdata", "models", "sample_cnn.onnx")
	for _, tc := range []struct {
		flag string
		args func(path string) []string
		dir  bool // the flag names a folder
	}{
		{"profile --trace", func(p string) []string { return []string{"profile", model, "--dim", "N=1", "--trace", p} }, false},
		{"profile --plot", func(p string) []string {
			return []string{"profile", model, "--dim", "N=1", "--cluster", "1x2", "--sweep", "gpus=1,2", "--plot", p + ".svg"}
		}, false},
		{"optimize -o", func(p string) []string { return []string{"optimize", model, "--dim", "N=1", "-o", p} }, false},
		{"optimize --emit-onnx", func(p string) []string {
			return []string{"optimize", model, "--dim", "N=1", "--emit-onnx", p + ".onnx"}
		}, false},
		{"optimize --llm -o", func(p string) []string {
			return []string{"optimize", "--llm", "gpt3-125m", "--cluster", "1x8", "--hw", "a100", "--tp", "2", "-o", p}
		}, false},
		{"explain --html", func(p string) []string { return []string{"explain", model, "--dim", "N=1", "--html", p} }, false},
		{"explain --dot", func(p string) []string { return []string{"explain", model, "--dim", "N=1", "--dot", p} }, true},
		{"explain --dump-dir", func(p string) []string { return []string{"explain", model, "--dim", "N=1", "--dump-dir", p} }, true},
		{"run -o", func(p string) []string { return []string{"run", model, "--dim", "N=1", "-o", p} }, true},
		{"microbench --out", func(p string) []string { return []string{"microbench", model, "--dim", "N=1", "--out", p} }, false},
		{"--cpuprofile", func(p string) []string { return []string{"inspect", model, "--cpuprofile", p} }, false},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			tmp := t.TempDir()
			missing := filepath.Join(tmp, "missing", "out")
			_, errs, code := run(tc.args(missing)...)
			if code != 2 || !strings.Contains(errs, "does not exist") || strings.Count(errs, "\n") != 1 {
				t.Errorf("missing folder: exit %d, stderr %q; want exit 2 and one line", code, errs)
			}
			if _, err := os.Stat(filepath.Join(tmp, "missing")); err == nil {
				t.Errorf("missing folder: %s was created", filepath.Join(tmp, "missing"))
			}
			ok := filepath.Join(tmp, "out")
			if _, errs, code := run(tc.args(ok)...); code != 0 {
				t.Fatalf("existing folder: exit %d, stderr %q", code, errs)
			}
			matches, _ := filepath.Glob(ok + "*")
			if len(matches) == 0 {
				t.Errorf("existing folder: nothing written at %s", ok)
			}
			if st, err := os.Stat(ok); tc.dir && (err != nil || !st.IsDir()) {
				t.Errorf("%s names a folder: %s is not one (%v)", tc.flag, ok, err)
			}
		})
	}
}
