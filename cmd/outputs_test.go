package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
)

// TestOutputsAllOrNone checks that a command with several outputs checks
// them all before working, and that a failed run leaves none of them
// (nor the folder it created), while a run that succeeds writes every
// file with one mode, 0644.
func TestOutputsAllOrNone(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN())
	opaque := opaqueModel(t, dir)
	plan := filepath.Join(dir, "half.json")
	for _, tc := range []struct {
		name string
		args []string
		gone []string // paths that must not exist afterwards
		want string
		code int // 0: 1
	}{
		{"optimize emit into a missing folder", []string{"optimize", model, "-o", plan, "--emit-onnx", filepath.Join(dir, "nonexistent", "x.onnx")},
			[]string{plan}, "--emit-onnx: cannot write " + filepath.Join(dir, "nonexistent", "x.onnx") + ": folder " + filepath.Join(dir, "nonexistent") + " does not exist", 2},
		{"optimize plan over the model", []string{"optimize", model, "--emit-onnx", filepath.Join(dir, "opt.onnx"), "-o", model},
			[]string{filepath.Join(dir, "opt.onnx")}, "refusing to overwrite the input file", 0},
		{"same file twice", []string{"optimize", model, "--emit-onnx", plan, "-o", plan}, []string{plan}, "written twice", 0},
		{"profile trace into a missing folder", []string{"profile", model, "--trace", filepath.Join(dir, "no", "t.json")}, nil, "does not exist", 2},
		{"run that cannot evaluate", []string{"run", opaque, "-o", filepath.Join(dir, "runout")}, []string{filepath.Join(dir, "runout")}, "unsupported op", 0},
		{"explain into a file", []string{"explain", model, "--dot", model}, nil, "--dot", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(tc.args...)
			want := max(tc.code, 1)
			if code != want || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, ".tmp") {
				t.Errorf("exit %d, %q; want exit %d and %q", code, stderr, want, tc.want)
			}
			for _, p := range tc.gone {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s exists after the failed run", p)
				}
			}
		})
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	// Every output of a successful run has mode 0644.
	out := filepath.Join(dir, "out")
	files := []string{filepath.Join(dir, "plan.json"), filepath.Join(dir, "opt.onnx"), filepath.Join(out, "input_0.pb"), filepath.Join(out, "output_0.pb"), filepath.Join(dir, "trace.json")}
	for _, args := range [][]string{
		{"optimize", model, "--dim", "N=1", "-o", files[0], "--emit-onnx", files[1]},
		{"run", model, "--dim", "N=1", "-o", out, "--save-inputs"},
		{"profile", model, "--trace", files[4]},
	} {
		if _, stderr, code := run(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", f, st.Mode().Perm())
		}
	}
}

// TestOutputNamedLikeAFormat refuses "-o json" (a kubectl habit) with a
// hint, and writes ./json when asked so.
func TestOutputNamedLikeAFormat(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN())
	for _, args := range [][]string{
		{"optimize", model, "-o", "json"},
		{"optimize", model, "-o", "yaml"},
		{"run", model, "--dim", "N=1", "-o", "json"},
		{"calibrate", "--table", model, "-o", "json"},
	} {
		_, stderr, code := run(args...)
		if code != 2 || !strings.Contains(stderr, "use --format") {
			t.Errorf("%v: exit %d, %q; want exit 2 and a hint to use --format", args, code, stderr)
		}
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	if _, stderr, code := run("optimize", model, "-o", "./json"); code != 0 {
		t.Errorf("-o ./json: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "json")); err != nil {
		t.Error(err)
	}
}
