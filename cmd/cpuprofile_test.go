package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfile: the hidden --cpuprofile flag writes a pprof profile (a
// gzip stream) of the command, and is not listed in help.
func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	if _, errs, code := run("profile", "../testdata/models/sample_cnn.onnx", "--dim", "N=1", "--cpuprofile", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("profile is not gzip-compressed pprof data (%d bytes)", len(b))
	}
	if out, _, _ := run("--help"); strings.Contains(out, "cpuprofile") {
		t.Error("--cpuprofile is listed in help")
	}
	if _, errs, code := run("profile", "../testdata/models/sample_cnn.onnx", "--dim", "N=1", "--cpuprofile", filepath.Join(t.TempDir(), "no", "dir", "x.prof")); code == 0 || !strings.Contains(errs, "--cpuprofile") {
		t.Errorf("unwritable profile path: exit %d, stderr %q", code, errs)
	}
}

// TestMemProfile: the hidden --memprofile flag writes a pprof allocation
// profile and is not listed in help.
func TestMemProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mem.prof")
	if _, errs, code := run("profile", "../testdata/models/sample_cnn.onnx", "--dim", "N=1", "--memprofile", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("profile is not gzip-compressed pprof data (%d bytes)", len(b))
	}
	if out, _, _ := run("--help"); strings.Contains(out, "memprofile") {
		t.Error("--memprofile is listed in help")
	}
	if _, errs, code := run("profile", "../testdata/models/sample_cnn.onnx", "--dim", "N=1", "--memprofile", filepath.Join(t.TempDir(), "no", "dir", "x.prof")); code != 2 || !strings.Contains(errs, "--memprofile") {
		t.Errorf("unwritable profile path: exit %d, stderr %q", code, errs)
	}
}
