package cmd

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// Tests that compare text run unfitted whatever the shell exports; the
// table tests set COLUMNS themselves.
func init() { os.Unsetenv("COLUMNS") }

// golden compares got with testdata/golden/name (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd -run Tables -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./cmd -run Tables -update rewrites it):\n%s", name, got)
	}
}

// widest is the widest line of s, in runes.
func widest(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// TestTablesFitTheTerminal runs the commands with the widest tables at
// COLUMNS=80 (and wider): every line fits, the output matches its golden
// file, --wide restores full-width tables, and without COLUMNS output
// that is not a terminal is not fitted. CSV output is golden too.
func TestTablesFitTheTerminal(t *testing.T) {
	const model = "../testdata/models/sample_cnn.onnx"
	for _, tc := range []struct {
		golden  string
		columns string
		args    []string
	}{
		{"hw_list_80.txt", "80", []string{"hw", "list"}},
		{"hw_list_wide.txt", "80", []string{"hw", "list", "--wide"}},
		{"hw_show_80.txt", "80", []string{"hw", "show", "h100"}},
		{"inspect_nodes_80.txt", "80", []string{"inspect", model, "--nodes", "--dim", "N=1"}},
		{"inspect_nodes_120.txt", "120", []string{"inspect", model, "--nodes", "--dim", "N=1"}},
		{"profile_80.txt", "80", []string{"profile", model, "--dim", "N=1"}},
		{"profile_by_op_80.txt", "80", []string{"profile", model, "--dim", "N=1", "--by", "op"}},
		{"sweep_80.txt", "80", []string{"profile", model, "--dim", "N=1", "--sweep", "gpus=1,2,4,8,16"}},
		{"optimize_80.txt", "80", []string{"optimize", model, "--dim", "N=1"}},
		{"explain_80.txt", "80", []string{"explain", model, "--dim", "N=1", "--pass", "fuse"}},
		{"inspect_nodes.csv", "80", []string{"inspect", model, "--dim", "N=1", "--format", "csv"}},
		{"profile_nodes.csv", "80", []string{"profile", model, "--dim", "N=1", "--format", "csv"}},
		{"profile_ops.csv", "80", []string{"profile", model, "--dim", "N=1", "--format", "csv", "--by", "op"}},
		{"sweep.csv", "80", []string{"profile", model, "--dim", "N=1", "--sweep", "gpus=1,2,4,8,16", "--format", "csv"}},
		{"hw_list.csv", "80", []string{"hw", "list", "--format", "csv"}},
		{"networks.csv", "80", []string{"hw", "list", "--networks", "--format", "csv"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Setenv("COLUMNS", tc.columns)
			out, stderr, code := run(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			fitted := !strings.HasSuffix(tc.golden, ".csv") && !strings.Contains(tc.golden, "wide")
			if w := widest(out); fitted && tc.columns == "80" && w > 80 {
				t.Errorf("a line of %d columns at COLUMNS=80", w)
			}
			golden(t, tc.golden, out)
		})
	}
	t.Setenv("COLUMNS", "80")
	wide, _, _ := run("hw", "list", "--wide")
	if widest(wide) <= 80 {
		t.Errorf("--wide: widest line %d, want the full table", widest(wide))
	}
	t.Setenv("COLUMNS", "")
	plain, _, _ := run("hw", "list")
	if plain != wide {
		t.Error("without COLUMNS, output that is not a terminal is fitted")
	}
	for _, args := range [][]string{{"verify", model, model, "--format", "csv"}, {"optimize", model, "--format", "csv"}, {"profile", model, "--cluster", "2x4", "--format", "csv"}} {
		if _, stderr, code := run(args...); code != 2 || !strings.Contains(stderr, "--format") {
			t.Errorf("%v: exit %d, %q; want a usage error", args, code, stderr)
		}
	}
}
