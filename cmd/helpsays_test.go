package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
)

// TestMicrobenchSkipsSymbolic checks that microbench does what its help
// says: nodes whose shapes are not static are listed as skipped (with a
// warning), not costed at dims it made up; --dim makes them static; the
// JSON of --format json is the --out file's content.
func TestMicrobenchSkipsSymbolic(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN()) // image: [N,3,32,32]
	type list struct {
		Ops     []struct{ Count int } `json:"ops"`
		Skipped []string              `json:"skipped"`
	}
	parse := func(s string) list {
		var l list
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("%v: %s", err, s)
		}
		return l
	}
	out, stderr, code := run("microbench", model, "--format", "json")
	l := parse(out)
	if code != 0 || len(l.Ops) != 0 || len(l.Skipped) != 19 || !strings.Contains(stderr, "warning: 19 node(s) skipped") {
		t.Errorf("without --dim: exit %d, %d ops, %d skipped, stderr %q; want 0 ops and the 19 kernel nodes skipped", code, len(l.Ops), len(l.Skipped), stderr)
	}
	file := filepath.Join(dir, "ops.json")
	out, stderr, code = run("microbench", model, "--dim", "N=1", "--out", file)
	data, _ := os.ReadFile(file)
	l = parse(string(data))
	if code != 0 || len(l.Ops) == 0 || len(l.Skipped) != 0 || stderr != "" || !strings.Contains(out, "distinct ops (0 nodes skipped) -> "+file) {
		t.Errorf("--dim N=1 --out: exit %d, %d ops, %d skipped, stdout %q, stderr %q", code, len(l.Ops), len(l.Skipped), out, stderr)
	}
	out, _, code = run("microbench", model, "--dim", "N=1")
	if code != 0 || !strings.Contains(out, "│ Conv ") || !strings.Contains(out, "distinct ops:") {
		t.Errorf("table: exit %d\n%s", code, out)
	}
	if _, stderr, code := run("microbench", model, "--format", "xml"); code != 2 || !strings.Contains(stderr, "--format") {
		t.Errorf("--format xml: exit %d, %s", code, stderr)
	}
}

// TestCalibrateModelFlags checks that calibrate takes --dim, --input and
// --max-memory for its profiles' models (checked as every command checks
// them), refuses them with --host, and finds a profile's model from any
// working folder through the absolute path the profile records.
func TestCalibrateModelFlags(t *testing.T) {
	models := shared(t, "models")
	absModels, _ := filepath.Abs(models)
	data, err := os.ReadFile(filepath.Join("..", "testdata", "measured", "cpu", "cnn__mnist_cntk_opset7.profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	if err := json.Unmarshal(data, &events); err != nil {
		t.Fatal(err)
	}
	events[0]["args"].(map[string]any)["model_path"] = filepath.Join(absModels, "cnn", "mnist_cntk_opset7.onnx")
	dir := t.TempDir()
	prof := filepath.Join(dir, "cnn__mnist_cntk_opset7.json")
	data, _ = json.Marshal(events)
	os.WriteFile(prof, data, 0o644)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir) // neither the repository nor ../shared
	fit := filepath.Join(dir, "fit.json")
	if _, stderr, code := run("calibrate", "--ort-profile", prof, "--base", "cpu-1t", "-o", fit); code != 0 {
		t.Fatalf("calibrate outside the repository: exit %d: %s", code, stderr)
	}
	out, stderr, code := run("calibrate", "--ort-profile", prof, "--base", "cpu-1t", "-o", fit, "--format", "json")
	var doc struct {
		Classes  []map[string]any `json:"classes"`
		Hardware map[string]any   `json:"hardware"`
		Written  string           `json:"written"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Classes) == 0 || doc.Hardware["name"] != "cpu-1t-calibrated" || doc.Written != fit {
		t.Errorf("calibrate --format json: exit %d, %v, %s\n%s", code, err, stderr, out)
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--dim", "Q=1"}, "--dim Q=1: the model has no symbolic dim Q"},
		{[]string{"--input", "Input3=1x1x28"}, "declares Input3 as float32[1,1,28,28] (rank 4)"},
		{[]string{"--max-memory", "lots"}, "--max-memory"},
	} {
		_, stderr, code := run(append([]string{"calibrate", "--ort-profile", prof, "--base", "cpu-1t", "-o", fit}, tc.flags...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("calibrate %v: exit %d, %q; want exit 2 and %q", tc.flags, code, stderr, tc.want)
		}
	}
	if _, stderr, code := run("calibrate", "--host", "--dim", "N=1", "--no-save", "-o", fit); code != 2 || !strings.Contains(stderr, "--dim goes with") {
		t.Errorf("calibrate --host --dim: exit %d, %q", code, stderr)
	}
}

// TestPassNamesBothSpellings checks that every command taking a pass name
// accepts "late dce", "late-dce" and "late_dce", and prints the canonical
// late_dce, the spelling of the DOT file names.
func TestPassNamesBothSpellings(t *testing.T) {
	dir := t.TempDir()
	model := writeGen(t, dir, "cnn.onnx", modelgen.SampleCNN())
	var first string
	lateCSE := map[string]string{"early dce": "late cse", "early-dce": "late-cse", "early_dce": "late_cse", "Early_DCE": "Late_CSE"}
	for _, name := range []string{"early dce", "early-dce", "early_dce", "Early_DCE"} {
		out, stderr, code := run("explain", model, "--pass", name)
		if code != 0 || !strings.Contains(out, "== early_dce") || strings.Contains(out, "early dce") {
			t.Errorf("explain --pass %q: exit %d, %s\n%s", name, code, stderr, out)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("explain --pass %q differs from --pass %q", name, "early dce")
		}
		out, stderr, code = run("optimize", model, "--disable-pass", "cse,"+lateCSE[name], "--format", "json")
		if code != 0 || strings.Contains(out, `"name": "late_cse"`) || strings.Contains(out, `"name": "cse"`) || !strings.Contains(out, `"name": "early_dce"`) {
			t.Errorf("optimize --disable-pass cse,%s: exit %d, %s", lateCSE[name], code, stderr)
		}
	}
	dot := filepath.Join(dir, "dot")
	if _, stderr, code := run("explain", model, "--dot", dot); code != 0 {
		t.Fatal(stderr)
	}
	for _, f := range []string{"00_input.dot", dotExample("early_dce"), dotExample("fuse"), dotExample("late_dce")} {
		if _, err := os.Stat(filepath.Join(dot, f)); err != nil {
			t.Errorf("explain --dot did not write %s", f)
		}
	}
	if dotExample("fuse") != "17_fuse.dot" {
		t.Logf("the fuse pass is now %s", dotExample("fuse")) // the help follows the table
	}
}
