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
