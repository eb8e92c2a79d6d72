package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDevProfileFlags: the hidden --cpuprofile and --memprofile flags write
// pprof profiles (gzip streams) of the command, are not listed in help,
// and refuse a missing folder as a usage error.
func TestDevProfileFlags(t *testing.T) {
	for _, flag := range []string{"--cpuprofile", "--memprofile"} {
		path := filepath.Join(t.TempDir(), "x.prof")
		if _, errs, code := run("profile", "../testdata/models/sample_cnn.onnx", "--dim", "N=1", flag, path); code != 0 {
			t.Fatalf("%s: exit %d: %s", flag, code, errs)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: profile is not gzip-compressed pprof data (%d bytes)", flag, len(b))
		}
		if out, _, _ := run("--help"); strings.Contains(out, flag[2:]) {
			t.Errorf("%s is listed in help", flag)
		}
		if _, errs, code := run("profile", "../testdata/models/sample_cnn.onnx", "--dim", "N=1", flag, filepath.Join(t.TempDir(), "no", "dir", "x.prof")); code != 2 || !strings.Contains(errs, flag) {
			t.Errorf("%s: unwritable profile path: exit %d, stderr %q", flag, code, errs)
		}
	}
}
