package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCalibrateHostWithoutNode: with neither node nor npm on PATH,
// calibrate --host fails with one line naming what is missing, exit 1, and
// writes nothing: no -o file, no saved file, no harness folder.
func TestCalibrateHostWithoutNode(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", filepath.Join(dir, "empty"))
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	out := filepath.Join(dir, "local.json")
	stdout, stderr, code := run("calibrate", "--host", "-o", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (stdout %q, stderr %q)", code, stdout, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, "node is not installed") {
		t.Errorf("stderr %q: want one line saying node is not installed", stderr)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		t.Errorf("left behind: %s", e.Name())
	}
}

// TestCalibrateHostPresetName: a fit saved under a preset's name (or a
// -2t name that is one) would never be found by --hw NAME: usage error
// before anything is measured; --no-save lifts it.
func TestCalibrateHostPresetName(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", filepath.Join(dir, "empty")) // reaching the harness would fail with exit 1
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	for _, args := range [][]string{
		{"--name", "cpu-1t", "--threads", "1"},
		{"--name", "cpu-1t", "--threads", "1,2"},
		{"--name", "h100"},
	} {
		_, stderr, code := run(append([]string{"calibrate", "--host"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "a preset is called") {
			t.Errorf("%v: exit %d, stderr %q: want a usage error naming the preset", args, code, stderr)
		}
	}
	if _, stderr, code := run("calibrate", "--host", "--name", "cpu-1t", "--no-save", "-o", filepath.Join(dir, "x.json")); code == 2 {
		t.Errorf("--no-save -o: usage error %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "config")); err == nil {
		t.Error("a config folder was written")
	}
}
