package optimize

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

var update = flag.Bool("update", false, "rewrite the .after.wir files under testdata/passes")

// TestPassFiles runs pass tests written as IR text: each
// testdata/passes/PASSES/CASE.wir (PASSES: pass names joined by "+") is
// parsed, inferred, run through those passes (verifying after each), and
// compared with CASE.after.wir: the rewrites, one "# pass: rewrite" line
// each, then the IR text after. go test ./optimize -run PassFiles -update
// rewrites the .after.wir files. As in runPassCases, the evaluator must
// give the same outputs before and after.
func TestPassFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "passes", "*", "*.wir"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".after.wir") {
			continue
		}
		n++
		passes := strings.Split(filepath.Base(filepath.Dir(f)), "+")
		name := strings.Join(passes, "+") + "/" + strings.TrimSuffix(filepath.Base(f), ".wir")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			parse := func() *ir.Model {
				m, err := ir.Parse(string(src))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				ir.InferModel(m, ir.InferOptions{})
				return m
			}
			orig, m := parse(), parse()
			res, err := Run(m, Options{Level: MaxLevel, Only: passes, VerifyEach: true, OnChipBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			for _, p := range res.Passes {
				for _, r := range p.Rewrites {
					b.WriteString("# " + p.Name + ": " + r.String() + "\n")
				}
			}
			if err := ir.Fprint(&b, m); err != nil {
				t.Fatal(err)
			}
			after := strings.TrimSuffix(f, ".wir") + ".after.wir"
			if *update {
				if err := os.WriteFile(after, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if want, err := os.ReadFile(after); err != nil {
				t.Fatalf("%v (go test ./optimize -run PassFiles -update writes it)", err)
			} else if b.String() != string(want) {
				t.Errorf("after %s, have:\n%s\nwant (%s):\n%s", strings.Join(passes, ", "), b.String(), after, want)
			}
			if why := compareRuns(t, orig, m, 11, 1e-4, 1e-5); why != "" {
				t.Fatalf("cannot compare: %s", why)
			}
		})
	}
	if n == 0 {
		t.Fatal("no pass files under testdata/passes")
	}
}
