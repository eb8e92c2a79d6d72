package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/pipeline"
)

// ortManifest is testdata/ort/manifest.json: per shared model, concrete
// input shapes and constant fills (sample rates, sequence lengths) that
// ONNX Runtime can run it with.
type ortManifest struct {
	Models []struct {
		Model  string `json:"model"`
		Seed   uint32 `json:"seed"`
		Inputs []struct {
			Name  string   `json:"name"`
			DType string   `json:"dtype"`
			Shape []int    `json:"shape"`
			Fill  *float64 `json:"fill"`
		} `json:"inputs"`
	} `json:"models"`
}

// exportVariants are the optimize flags each shared model is emitted with.
var exportVariants = [][]string{{"-O1"}, {"-O2"}, {"-O3"}, {"-O3", "--target", "ort"}}

// TestEmittedModelsRunInORT: every emitted model loads in the runtime it
// targets. Each shared model in testdata/ort/manifest.json is emitted at
// -O1, -O2 and -O3 (wolong optimize --emit-onnx, in process); ONNX Runtime
// 1.30 (CPU, graph optimizations disabled, one thread; all models in one
// node process) runs the original and every emitted model on the same
// inputs. It fails on an emitted model ORT cannot load or run, or whose
// outputs differ from the original's beyond verify's default tolerance; a
// model ORT cannot run in its original form is listed as skipped with
// ORT's reason. It skips when node is absent.
func TestEmittedModelsRunInORT(t *testing.T) {
	root := shared(t, "models")
	if testing.Short() {
		t.Skip("runs every shared model in ONNX Runtime (-short)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: ONNX Runtime runs under Node.js")
	}
	h, err := pipeline.OpenORT(nil)
	if err != nil {
		t.Skipf("ONNX Runtime harness: %v", err)
	}
	var man ortManifest
	b, err := os.ReadFile(filepath.Join("..", "testdata", "ort", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	type entry struct {
		model    string
		original int   // index of the original's run
		variants []int // indexes of the emitted models' runs
		flags    [][]string
	}
	var runs []pipeline.ORTModel
	var entries []entry
	listed := map[string]bool{}
	for _, e := range man.Models {
		listed[e.Model] = true
	}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if rel, _ := filepath.Rel(root, p); err == nil && strings.HasSuffix(p, ".onnx") && !listed[filepath.ToSlash(rel)] {
			t.Logf("skipped %s: not in testdata/ort/manifest.json (no inputs ORT can run it with)", rel)
		}
		return nil
	})
	for _, e := range man.Models {
		path := filepath.Join(root, e.Model)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		m, err := importer.Load(path, importer.Options{})
		if err != nil {
			t.Errorf("%s: %v", e.Model, err)
			continue
		}
		g := m.Graph
		m.Close()
		inputs := map[string]eval.Value{}
		r := eval.NewRand(e.Seed)
		for _, in := range e.Inputs {
			v, err := pipeline.MakeInput(r, in.DType, in.Shape, in.Fill)
			if err != nil {
				t.Fatalf("%s: input %s: %v", e.Model, in.Name, err)
			}
			inputs[in.Name] = v
		}
		en := entry{model: e.Model, original: len(runs)}
		runs = append(runs, pipeline.ORTModel{Path: path, Graph: g, Inputs: inputs})
		for k, flags := range exportVariants {
			out := filepath.Join(dir, fmt.Sprintf("%s.%d.onnx", strings.ReplaceAll(e.Model, "/", "__"), k))
			args := append([]string{"optimize", path, "--emit-onnx", out, "--format", "json"}, flags...)
			if _, errs, code := run(args...); code != 0 {
				t.Errorf("%s %s: exit %d: %s", e.Model, strings.Join(flags, " "), code, strings.TrimSpace(errs))
				continue
			}
			en.variants = append(en.variants, len(runs))
			en.flags = append(en.flags, flags)
			runs = append(runs, pipeline.ORTModel{Path: out, Graph: g, Inputs: inputs})
		}
		entries = append(entries, en)
	}
	outs, err := pipeline.RunInORT(h, runs, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	tol := eval.DefaultTolerance
	skipped, checked := 0, 0
	for _, en := range entries {
		want := outs[en.original]
		if want.Err != "" {
			skipped++
			t.Logf("skipped %s: ONNX Runtime cannot run the original: %s", en.model, want.Err)
			continue
		}
		for k, i := range en.variants {
			got, what := outs[i], en.model+" "+strings.Join(en.flags[k], " ")
			checked++
			if got.Err != "" {
				t.Errorf("%s: ONNX Runtime refuses the emitted model: %s", what, got.Err)
				continue
			}
			if len(got.Outputs) != len(want.Outputs) {
				t.Errorf("%s: %d outputs, the original %d", what, len(got.Outputs), len(want.Outputs))
				continue
			}
			for j := range got.Outputs {
				if d := eval.Compare(got.Outputs[j], want.Outputs[j], tol); !d.OK() {
					t.Errorf("%s: output %s differs from the original's in ORT: max abs %.3g, max rel %.3g, %d of %d elements %s",
						what, runs[en.original].Graph.Outputs[j].Name, d.MaxAbs, d.MaxRel, d.Mismatches, d.Elements, d.Problem)
				}
			}
		}
	}
	t.Logf("%d emitted models checked in ONNX Runtime, %d originals ORT cannot run skipped", checked, skipped)
	if checked == 0 {
		t.Error("no emitted model was checked")
	}
}
