package cmd

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// segments splits an example line into its shell commands (at "&&", ";"
// and "|"), each cut at a redirection or comment, as argument lists.
func segments(line string) [][]string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	var out [][]string
	for _, seg := range regexp.MustCompile(`&&|;|\|`).Split(line, -1) {
		if i := strings.Index(seg, ">"); i >= 0 {
			seg = seg[:i]
		}
		if f := strings.Fields(seg); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// commandsOf walks the command tree.
func commandsOf(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, s := range c.Commands() {
		out = append(out, commandsOf(s)...)
	}
	return out
}

// parseExample checks that args (without "wolong") name a command, give
// only flags it has and the positional arguments it takes.
func parseExample(args []string) error {
	root := NewRootCmd(&Env{Out: io.Discard, Err: io.Discard, Progress: &progress{}})
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := c.ParseFlags(rest); err != nil {
		return err
	}
	if c.Args != nil {
		return c.Args(c, c.Flags().Args())
	}
	return nil
}

// outputFlags take a path the command writes.
var outputFlags = map[string]bool{"-o": true, "--output": true, "--out": true, "--emit-onnx": true, "--trace": true, "--plot": true, "--dot": true, "--keep": true}

// inputsPresent reports whether every file an example reads exists in the
// working folder (tokens naming a .onnx/.json/.csv file or a folder, other
// than the values of output flags).
func inputsPresent(args []string) bool {
	for i, a := range args {
		if strings.HasPrefix(a, "-") || i > 0 && outputFlags[args[i-1]] {
			continue
		}
		if strings.HasSuffix(a, "/") || regexp.MustCompile(`\.(onnx|json|csv|pb)$`).MatchString(a) || strings.HasPrefix(a, "test_data") {
			if _, err := os.Stat(a); err != nil {
				return false
			}
		}
	}
	return true
}

// exampleFixtures writes what the examples read into dir: model.onnx
// (with a symbolic batch N), optimized.onnx, a.onnx and b.onnx (static),
// and hardware files my-gpu.json and cpu-fit.json.
func exampleFixtures(t *testing.T, dir string) {
	t.Helper()
	model := writeGen(t, dir, "model.onnx", modelgen.SampleCNN())
	data, _ := os.ReadFile(model)
	os.WriteFile(filepath.Join(dir, "optimized.onnx"), data, 0o644)
	static, _ := os.ReadFile(writeModel(t, "Relu", ir.Float32, ir.DimsShape(ir.D(2), ir.D(3))))
	for _, n := range []string{"a.onnx", "b.onnx"} {
		os.WriteFile(filepath.Join(dir, n), static, 0o644)
	}
	for file, preset := range map[string]string{"my-gpu.json": "h100", "cpu-fit.json": "cpu-1t"} {
		out, stderr, code := run("hw", "show", preset, "--format", "json")
		if code != 0 {
			t.Fatal(stderr)
		}
		os.WriteFile(filepath.Join(dir, file), []byte(out), 0o644)
	}
}

// TestHelpExamples runs every command's help examples: each wolong
// command in them must parse (known command, flags and arguments), and
// those whose input files exist in a folder holding the fixtures
// (model.onnx, ...) must succeed; files another tool reads after them
// (dot -Tsvg out/17_fuse.dot) must exist. --host examples (minutes of
// ONNX Runtime) are only parsed.
func TestHelpExamples(t *testing.T) {
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	root := NewRootCmd(&Env{Out: io.Discard, Err: io.Discard, Progress: &progress{}})
	ran := 0
	for _, c := range commandsOf(root) {
		if c.Example == "" {
			continue
		}
		dir := t.TempDir()
		exampleFixtures(t, dir)
		os.Chdir(dir)
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			for _, seg := range segments(line) {
				if seg[0] != "wolong" {
					// another tool reads what wolong wrote
					for _, a := range seg[1:] {
						if regexp.MustCompile(`^[\w./-]+/[\w.-]+\.(dot|json|csv)$`).MatchString(a) && !strings.HasPrefix(a, "bench/") {
							if _, err := os.Stat(a); err != nil {
								t.Errorf("%s: %q reads %s, which the example did not write", c.CommandPath(), line, a)
							}
						}
					}
					continue
				}
				if err := parseExample(seg[1:]); err != nil {
					t.Errorf("%s: %q does not parse: %v", c.CommandPath(), line, err)
					continue
				}
				if slicesContain(seg, "--host") || !inputsPresent(seg[1:]) {
					continue
				}
				ran++
				if _, stderr, code := run(seg[1:]...); code != 0 {
					t.Errorf("%s: %q: exit %d: %s", c.CommandPath(), line, code, stderr)
				}
			}
		}
		os.Chdir(wd)
	}
	if ran < 15 {
		t.Errorf("only %d examples ran", ran)
	}
	t.Logf("%d example commands ran", ran)
}

// TestREADMECommands checks every wolong command line in the shell
// blocks of the README and docs/ (```sh, and the "$ " lines of
// ```console): the command exists and has every flag the line names.
func TestREADMECommands(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	files = append([]string{filepath.Join("..", "README.md")}, files...)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked += checkDocCommands(t, filepath.Base(f), string(data))
	}
	if checked < 30 {
		t.Errorf("only %d README flags checked", checked)
	}
}

// checkDocCommands checks the command lines of one markdown file and
// returns how many flags it checked.
func checkDocCommands(t *testing.T, doc, data string) int {
	t.Helper()
	flagRe := regexp.MustCompile(`(^|[\s\[|])(--?[A-Za-z][A-Za-z0-9-]*)`)
	inBlock, console := false, false
	checked := 0
	for _, line := range strings.Split(data, "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = strings.HasPrefix(line, "```sh")
			console = strings.HasPrefix(line, "```console")
			continue
		}
		if console && strings.HasPrefix(line, "$ ") {
			line = line[2:]
		} else if !inBlock {
			continue
		}
		for _, seg := range segments(line) {
			if seg[0] != "wolong" || len(seg) < 2 {
				continue
			}
			root := NewRootCmd(&Env{Out: io.Discard, Err: io.Discard, Progress: &progress{}})
			root.InitDefaultCompletionCmd()
			var words []string
			for _, w := range seg[1:] {
				if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") || strings.ToUpper(w) == w {
					break
				}
				words = append(words, w)
			}
			c, _, err := root.Find(words)
			if err != nil || c == root {
				t.Errorf("%s: %q: no command %v", doc, line, words)
				continue
			}
			for _, m := range flagRe.FindAllStringSubmatch(strings.Join(seg, " "), -1) {
				name := m[2]
				var ok bool
				if strings.HasPrefix(name, "--") {
					ok = c.Flags().Lookup(name[2:]) != nil || c.InheritedFlags().Lookup(name[2:]) != nil
				} else {
					ok = c.Flags().ShorthandLookup(name[1:2]) != nil
				}
				if !ok {
					t.Errorf("%s: %q: %s has no flag %s", doc, line, c.CommandPath(), name)
				}
				checked++
			}
		}
	}
	return checked
}
