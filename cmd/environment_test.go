package cmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// envRead matches a variable the code reads or sets by name.
var envRead = regexp.MustCompile(`(?:Getenv|LookupEnv|Setenv)\("([A-Z][A-Z0-9_]*)"\)|"([A-Z][A-Z0-9]*_[A-Z0-9_]+)=`)

// TestEnvironmentListed: every environment variable a Go file of the
// repository reads (or passes to a child) by name is in 'wolong help
// environment', and the topic prints.
func TestEnvironmentListed(t *testing.T) {
	seen := map[string]string{}
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range envRead.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]+m[2]] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range seen {
		if !strings.Contains(environmentHelp, name) {
			t.Errorf("%s (read in %s) is not in 'wolong help environment'", name, file)
		}
	}
	out, _, code := run("help", "environment")
	if code != 0 || !strings.Contains(out, "WOLONG_PRETOUCH") {
		t.Errorf("help environment: exit %d, %q", code, out)
	}
}

// TestGodebugSet: GODEBUG's key=1, the last setting winning, as the
// runtime reads it.
func TestGodebugSet(t *testing.T) {
	for _, tc := range []struct {
		godebug string
		want    bool
	}{
		{"", false},
		{"disablethp=1", true},
		{"gctrace=1, disablethp=1", true},
		{"disablethp=0", false},
		{"disablethp=1,disablethp=0", false},
		{"xdisablethp=1", false},
	} {
		if got := godebugSet(tc.godebug, "disablethp"); got != tc.want {
			t.Errorf("GODEBUG=%q: %v, want %v", tc.godebug, got, tc.want)
		}
	}
}
