package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// badPlural catches "1 outputs", "all 1 outputs match".
var badPlural = regexp.MustCompile(`\b(all )?1 (outputs|nodes|kernels|models|ops|rows|inputs|files|passes|op types|distinct ops)\b`)

// packageNames are the names of wolong's packages: errors and warnings
// are user-ready lines from the package that makes them, without its
// name (Go's "pkg: " prefix is noise to a user), and the command adds
// only "wolong: " (or "warning: ") in front.
var packageNames = map[string]bool{
	"importer": true, "ir": true, "eval": true, "optimize": true, "simulate": true, "calibrate": true, "pipeline": true,
	"cluster": true, "llm": true, "hw": true, "cost": true, "report": true, "safefile": true, "ortbench": true, "host": true,
}

// doubledPrefix returns the part of a ": "-separated message that repeats
// what came before ("--hw: hw: ...", "x: eval: input: eval: ...",
// "--ort-profile p.json: p.json: ...") or is a bare package name, "" if
// none.
func doubledPrefix(line string) string {
	parts := strings.Split(line, ": ")
	seen := map[string]bool{}
	for i, p := range parts {
		if i == len(parts)-1 {
			break
		}
		if packageNames[p] || seen[p] || i > 0 && strings.HasSuffix(parts[i-1], " "+p) {
			return p
		}
		seen[p] = true
	}
	return ""
}

// checkMessage reports the message classes issue 17 found: doubled
// prefixes, temporary file names, wrong plurals.
func checkMessage(t *testing.T, what, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if m := doubledPrefix(line); m != "" {
			t.Errorf("%s: doubled prefix %q in %q", what, m, line)
		}
		if strings.Contains(line, ".tmp") {
			t.Errorf("%s: temporary file name in %q", what, line)
		}
		if m := badPlural.FindString(line); m != "" {
			t.Errorf("%s: %q in %q", what, m, line)
		}
	}
}

// TestMessagesReadWell runs every command on bad flags and files, and on
// a model with one node and one output, and checks the messages and
// reports for doubled prefixes, temporary file names and "1 outputs".
func TestMessagesReadWell(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN())
	one := writeModel(t, "Relu", ir.Float32, ir.DimsShape(ir.D(2), ir.D(3)))
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte("not json"), 0o644)
	ro := junk // a file: nothing can be written under it
	for _, args := range [][]string{
		{"profile", model, "--hw", "z80"},
		{"profile", model, "--hw", junk},
		{"optimize", model, "--hw", filepath.Join(dir, "none.json")},
		{"profile", model, "--mode", "fast"},
		{"profile", model, "--sweep", "gpus=a"},
		{"profile", model, "--cluster", "2x2", "--net", "carrier-pigeon"},
		{"hw", "show", "z80"},
		{"calibrate", "--ort-profile", junk, "-o", filepath.Join(dir, "fit.json")},
		{"calibrate", "--table", junk, "-o", filepath.Join(dir, "fit.json")},
		{"validate", model, "--table", junk},
		{"validate", model, "--ort-latency", junk},
		{"plan", "show", junk},
		{"inspect", filepath.Join(dir, "none.onnx")},
		{"inspect", junk},
		{"verify", model, "--inputs", filepath.Join(dir, "none")},
		{"run", one, "-o", filepath.Join(ro, "out")},
		{"optimize", model, "-o", filepath.Join(ro, "plan.json")},
		{"profile", model, "--trace", filepath.Join(ro, "t.json")},
	} {
		_, stderr, code := run(args...)
		if code == 0 || code == 3 {
			t.Errorf("%v: exit %d", args, code)
		}
		checkMessage(t, strings.Join(args[:2], " "), stderr)
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"inspect", one, "--nodes"},
		{"profile", one},
		{"profile", one, "--by", "op", "--top", "1"},
		{"optimize", one},
		{"explain", one},
		{"verify", one, one},
		{"run", one, "-o", out},
		{"microbench", one},
		{"microbench", one, "--out", filepath.Join(dir, "ops.json")},
	} {
		stdout, stderr, code := run(args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		checkMessage(t, strings.Join(args[:2], " "), stdout+stderr)
	}
	for _, s := range []string{"--hw: hw: no preset", "x.onnx: eval: input: eval: random", "--ort-profile p.json: p.json: not JSON", "all 1 outputs match", "1 nodes"} {
		if doubledPrefix(s) == "" && !badPlural.MatchString(s) {
			t.Errorf("the checks miss %q", s)
		}
	}
}
