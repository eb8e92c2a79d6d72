package cmd

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/wolong-dev/wolong/internal/hostile"
)

// commandsUnderTest returns, for a model and an output folder, the
// invocation of every command that reads a model.
func commandsUnderTest(model, out string) map[string][]string {
	return map[string][]string{
		"inspect":  {"inspect", model, "--nodes"},
		"profile":  {"profile", model, "--trace", filepath.Join(out, "trace.json"), "--format", "json"},
		"optimize": {"optimize", model, "-o", filepath.Join(out, "plan.json"), "--emit-onnx", filepath.Join(out, "opt.onnx")},
		"explain":  {"explain", model, "--dot", filepath.Join(out, "dot")},
		"verify":   {"verify", model, model, "--max-memory", "256MiB"},
		"run":      {"run", model, "-o", filepath.Join(out, "run"), "--max-memory", "256MiB"},
	}
}

// outcome runs one command and checks the hardening rules: no panic
// (exit 3), exit 0 or 1, one 'wolong: ' line on failure, and no temporary
// or partial file left in the output folder after a failure.
func outcome(t *testing.T, name string, args []string, out string) (code int, errLine string) {
	t.Helper()
	_, errs, code := run(args...)
	switch {
	case code == 3:
		t.Errorf("%s: panic: %s", name, errs)
	case code != 0 && code != 1:
		t.Errorf("%s: exit %d (stderr %q)", name, code, errs)
	case code == 1 && (len(errorLines(errs)) != 1 || !strings.HasPrefix(errorLines(errs)[0], "wolong: ")):
		t.Errorf("%s: stderr is not one 'wolong: ...' line (and warnings): %q", name, errs)
	case code == 1 && !printable(errorLines(errs)[0]):
		t.Errorf("%s: error line has control characters or invalid UTF-8: %q", name, errs)
	}
	for _, l := range strings.Split(errs, "\n") {
		if len(l) > maxLine+100 {
			t.Errorf("%s: stderr line of %d bytes: %.200q...", name, len(l), l)
		}
	}
	var leftovers []string
	filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		if strings.Contains(filepath.Base(p), ".tmp") || (code != 0 && !strings.HasSuffix(p, ".pb")) {
			leftovers = append(leftovers, p)
		}
		return nil
	})
	if len(leftovers) > 0 {
		t.Errorf("%s: exit %d left files behind: %v", name, code, leftovers)
	}
	return code, strings.TrimSpace(errs)
}

// printable reports whether s is valid UTF-8 without control characters
// (a terminal would act on them: ESC sequences, DEL, NUL).
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' {
			return false
		}
	}
	return true
}

// TestHostileModelsEveryCommand runs every command on every hostile model.
func TestHostileModelsEveryCommand(t *testing.T) {
	dir := t.TempDir()
	for _, c := range hostile.Cases() {
		path, err := c.Write(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		cmds := commandsUnderTest(path, "")
		names := make([]string, 0, len(cmds))
		for n := range cmds {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, cmdName := range names {
			out := filepath.Join(t.TempDir(), "out")
			os.MkdirAll(out, 0o755)
			args := commandsUnderTest(path, out)[cmdName]
			code, msg := outcome(t, c.Name+"/"+cmdName, args, out)
			if c.Want != "" {
				if code != 1 {
					t.Errorf("%s/%s: exit %d, want 1 (%s)", c.Name, cmdName, code, c.Want)
				} else if !strings.Contains(msg, c.Want) || !strings.Contains(msg, path) {
					t.Errorf("%s/%s: error %q should name %s and say %q", c.Name, cmdName, msg, path, c.Want)
				}
			}
		}
	}
}

// TestMutatedModelsEveryCommand truncates and bit-flips shared models and
// runs every command on them, counting outcomes.
func TestMutatedModelsEveryCommand(t *testing.T) {
	root := shared(t, "models")
	var files []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".onnx") && info.Size() < 512<<10 {
			files = append(files, p)
		}
		return nil
	})
	per := 2
	if testing.Short() {
		files = files[:len(files)/4]
		per = 1
	}
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	counts := map[string][2]int{}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for i := 0; i < per; i++ {
			mut := append([]byte(nil), data...)
			if i%2 == 0 {
				mut = mut[:r.IntN(len(mut))]
			} else {
				for k := 0; k < 4; k++ {
					j := r.IntN(len(mut))
					mut[j] ^= 1 << r.IntN(8)
				}
			}
			p := filepath.Join(dir, fmt.Sprintf("%s.%d.onnx", filepath.Base(f), i))
			os.WriteFile(p, mut, 0o644)
			for name := range commandsUnderTest(p, "") {
				out := filepath.Join(t.TempDir(), "out")
				os.MkdirAll(out, 0o755)
				code, _ := outcome(t, filepath.Base(p)+"/"+name, commandsUnderTest(p, out)[name], out)
				c := counts[name]
				c[min(code, 1)]++
				counts[name] = c
			}
		}
	}
	for _, name := range []string{"inspect", "profile", "optimize", "explain", "verify", "run"} {
		t.Logf("%-8s ok %3d, refused %3d, panics 0", name, counts[name][0], counts[name][1])
	}
}

// TestOutputsAreSafe: writing over the input model is refused, and two
// runs give byte-identical outputs.
func TestOutputsAreSafe(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.onnx")
	src, err := os.ReadFile(filepath.Join("..", "testdata", "models", "sample_cnn.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(model, src, 0o644)
	for _, args := range [][]string{
		{"optimize", model, "--dim", "N=1", "--emit-onnx", model},
		{"optimize", model, "--dim", "N=1", "-o", model},
		{"profile", model, "--dim", "N=1", "--trace", model},
	} {
		_, errs, code := run(args...)
		if code != 1 || !strings.Contains(errs, "refus") {
			t.Errorf("%v: exit %d, stderr %q: want a refusal", args, code, errs)
		}
		if b, _ := os.ReadFile(model); string(b) != string(src) {
			t.Fatalf("%v: the input model was changed", args)
		}
	}
	outputs := func(tag string) map[string][]byte {
		out := filepath.Join(dir, tag)
		os.MkdirAll(out, 0o755)
		stdout, errs, code := run("optimize", model, "--dim", "N=1", "-o", filepath.Join(out, "plan.json"), "--emit-onnx", filepath.Join(out, "opt.onnx"), "--format", "json")
		if code != 0 {
			t.Fatalf("optimize: %s", errs)
		}
		prof, errs, code := run("profile", model, "--dim", "N=1", "--trace", filepath.Join(out, "trace.json"), "--format", "json")
		if code != 0 {
			t.Fatalf("profile: %s", errs)
		}
		res := map[string][]byte{"optimize.json": []byte(stdout), "profile.json": []byte(prof)}
		for _, n := range []string{"plan.json", "opt.onnx", "trace.json"} {
			b, err := os.ReadFile(filepath.Join(out, n))
			if err != nil {
				t.Fatal(err)
			}
			res[n] = b
		}
		return res
	}
	a, b := outputs("a"), outputs("b")
	for k := range a {
		if string(a[k]) != string(b[k]) {
			t.Errorf("%s differs between two identical runs", k)
		}
	}
}
