package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wolong-dev/wolong/internal/modelgen"
)

// The pass driver times passes with a fake clock in these tests: every
// reading is 250 us after the one before, so each pass runs 0.25 ms and
// outputs with wall times are reproducible (golden files).
func init() {
	var ticks atomic.Int64
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	passClock = func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * 250 * time.Microsecond) }
}

// TestExplainDumps: --dump-dir writes the IR text and DOT of the input and
// of each pass that changed the model, --dump-after only after the passes
// its name or pattern selects; explain's JSON gives each pass its wall time
// and marks the passes that changed nothing; bad dump flags are usage
// errors.
func TestExplainDumps(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN())
	for _, tc := range []struct {
		name  string
		args  []string
		files string // the files written, sorted
	}{
		{"every changed pass", nil, "00_input.dot 00_input.wir 06_cse.dot 06_cse.wir 07_early_dce.dot 07_early_dce.wir 08_bnfold.dot 08_bnfold.wir 17_fuse.dot 17_fuse.wir 19_late_dce.dot 19_late_dce.wir"},
		{"by name", []string{"--dump-after", "fuse"}, "00_input.dot 00_input.wir 17_fuse.dot 17_fuse.wir"},
		{"by pattern", []string{"--dump-after", "^(noop|bnfold)$"}, "00_input.dot 00_input.wir 08_bnfold.dot 08_bnfold.wir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dump := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			out, stderr, code := run(append([]string{"explain", model, "--format", "json", "--dump-dir", dump}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			names := dirNames(t, dump)
			if strings.Join(names, " ") != tc.files {
				t.Fatalf("wrote\n %s\nwant\n %s", strings.Join(names, " "), tc.files)
			}
			var e struct {
				Passes []struct {
					Name      string   `json:"name"`
					Rewrites  []string `json:"rewrites"`
					WallMs    *float64 `json:"wall_ms"`
					Unchanged bool     `json:"unchanged"`
				} `json:"passes"`
			}
			if err := json.Unmarshal([]byte(out), &e); err != nil {
				t.Fatal(err)
			}
			for k, p := range e.Passes {
				if p.WallMs == nil || *p.WallMs != 0.25 {
					t.Errorf("pass %s: wall_ms %v, want the fake clock's 0.25", p.Name, p.WallMs)
				}
				dumped := strings.Contains(tc.files, dotFileName(k+1, p.Name))
				if tc.args == nil && dumped == p.Unchanged {
					t.Errorf("pass %s: unchanged %v, dumped %v", p.Name, p.Unchanged, dumped)
				}
			}
		})
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no folder", []string{"--dump-after", "fuse"}, "--dump-after needs --dump-dir"},
		{"no such pass", []string{"--dump-after", "nosuch", "--dump-dir", dir}, `--dump-after: "nosuch" matches no pass`},
		{"bad pattern", []string{"--dump-after", "(", "--dump-dir", dir}, "neither a pass nor a regular expression"},
		{"folder is a file", []string{"--dump-dir", model}, "--dump-dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(append([]string{"explain", model}, tc.args...)...)
			if code != 2 && !(tc.name == "folder is a file" && code != 0) {
				t.Fatalf("exit %d, want a usage error: %s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Fatalf("stderr %q, want one line containing %q", stderr, tc.want)
			}
		})
	}
}
