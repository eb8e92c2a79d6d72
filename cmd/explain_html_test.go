package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
)

// TestExplainHTML writes the page with both output formats, keeps warnings
// on stderr, and refuses bad --html paths before any work.
func TestExplainHTML(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN())
	opaque := opaqueModel(t, dir)
	for _, tc := range []struct {
		name        string
		args        []string
		code        int
		page        string // written file, "" when none
		out, stderr string // substrings of stdout / stderr
	}{
		{"table", []string{"explain", model, "--dim", "N=1", "--html", filepath.Join(dir, "t.html")}, 0, "t.html", "== fuse:", ""},
		{"json", []string{"explain", model, "--format", "json", "--html", filepath.Join(dir, "j.html")}, 0, "j.html", `"passes"`, ""},
		{"warnings on stderr", []string{"explain", opaque, "--html", filepath.Join(dir, "w.html")}, 0, "w.html", "model ", "warning"},
		{"over the model", []string{"explain", model, "--html", model}, 1, "", "", "--html"},
		{"missing folder", []string{"explain", model, "--html", filepath.Join(dir, "no", "x.html")}, 2, "", "", "does not exist"},
		{"named like a format", []string{"explain", model, "--html", "json"}, 2, "", "", "--html json would write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout %.300q (want %q)\nstderr %q (want %q)", code, tc.code, out, tc.out, errs, tc.stderr)
			}
			if tc.args[2] == "--format" {
				var doc map[string]any
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Errorf("stdout is not JSON with --html: %v", err)
				}
			}
			if tc.page == "" {
				return
			}
			page, err := os.ReadFile(filepath.Join(dir, tc.page))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`<script type="application/json" id="data">`, `"name":"input"`, `id="timeline"`} {
				if !strings.Contains(string(page), want) {
					t.Errorf("page lacks %s", want)
				}
			}
		})
	}
	if st, err := os.Stat(model); err != nil || st.Size() == 0 {
		t.Errorf("the model was touched: %v", err)
	}
}
