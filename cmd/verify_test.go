package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// convCase is an ONNX node test with one input and one output.
const convCase = "../../shared/onnx-node-tests/node/test_conv_with_strides_padding"

func TestVerifyAndRun(t *testing.T) {
	model := filepath.Join(convCase, "model.onnx")
	data := filepath.Join(convCase, "test_data_set_0")
	if _, err := os.Stat(model); err != nil {
		t.Skipf("test data not found: %v", err)
	}
	// A folder whose expected output is perturbed.
	bad := t.TempDir()
	for _, name := range []string{"input_0.pb", "input_1.pb"} {
		in, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bad, name), in, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	it, err := importer.ReadTensorFile(filepath.Join(data, "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := eval.FromIR(it, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want.F[0] += 1
	if err := eval.WriteValueFile(filepath.Join(bad, "output_0.pb"), want, "y"); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		status int
		stdout []string
		stderr string
	}{
		{"expected outputs match", []string{"verify", model, "--inputs", data}, 0, []string{"max abs err", "the output matches"}, ""},
		{"same model twice", []string{"verify", model, model, "--seed", "3"}, 0, []string{"random inputs (seed 3)"}, ""},
		{"mismatch", []string{"verify", model, "--inputs", bad}, 1, []string{"MISMATCH (1 of 12 elements)", "the output differs"}, "verify: the output differs"},
		{"mismatch json", []string{"verify", model, "--inputs", bad, "--format", "json"}, 1, []string{`"ok": false`, `"mismatches": 1`}, ""},
		{"loose tolerance", []string{"verify", model, "--inputs", bad, "--atol", "2"}, 0, []string{"the output matches"}, ""},
		{"one model needs inputs", []string{"verify", model}, 2, nil, "with one model, give --inputs"},
		{"no expected outputs", []string{"verify", model, "--inputs", out}, 1, nil, "holds no input_0.pb"},
		{"memory bound", []string{"verify", model, model, "--max-memory", "16B"}, 1, nil, "over the memory limit of 16 bytes (--max-memory)"},
		{"run", []string{"run", model, "--inputs", data, "-o", out}, 0, []string{"output_0.pb  y  float32[1,1,4,3]"}, ""},
		{"run needs -o", []string{"run", model}, 2, nil, "-o DIR"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var so, se bytes.Buffer
			st := Main(tc.args, &so, &se)
			if st != tc.status {
				t.Fatalf("status %d, want %d\nstdout: %s\nstderr: %s", st, tc.status, so.String(), se.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(so.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, so.String())
				}
			}
			if tc.stderr != "" && !strings.Contains(se.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, se.String())
			}
		})
	}
	// The file written by run matches the expected output.
	got, err := eval.ReadValueFile(filepath.Join(out, "output_0.pb"), 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want.F[0] -= 1
	if d := eval.Compare(got, want, eval.DefaultTolerance); !d.OK() {
		t.Errorf("run wrote a different output: %s", d)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	_ = fmt.Sprint
}

// TestVerifyORT: verify --ort runs both models in ONNX Runtime: a model
// and its -O3 export agree; a model and another computing something else
// differ (exit 1); a model ORT cannot load is an error naming it (exit 1);
// --ort with one model is a usage error.
func TestVerifyORT(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: ONNX Runtime runs under Node.js")
	}
	dir := t.TempDir()
	write := func(name, op, domain string) string {
		b := modelgen.New(name, 13)
		x := b.Input("x", ir.Float32, 2, 8)
		y := b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{x, b.Weight("w", 8, 8)}), b.Weight("bias", 8)})
		b.Output(b.Op(op, []*ir.Value{y}))
		b.M.Graph.Nodes[len(b.M.Graph.Nodes)-1].Domain = domain
		if domain != "" {
			b.M.Opsets = append(b.M.Opsets, ir.OpsetID{Domain: domain, Version: 1})
		}
		p := filepath.Join(dir, name+".onnx")
		if err := importer.WriteFile(b.Model(), p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	relu, sig, custom := write("relu", "Relu", ""), write("sigmoid", "Sigmoid", ""), write("custom", "Relu", "com.example")
	opt := filepath.Join(dir, "relu.opt.onnx")
	if _, errs, code := run("optimize", relu, "--emit-onnx", opt); code != 0 {
		t.Fatalf("optimize: %s", errs)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		want   string
	}{
		{"export agrees", []string{"verify", relu, opt, "--ort"}, 0, "in ONNX Runtime 1.30.0"},
		{"other model differs", []string{"verify", relu, sig, "--ort"}, 1, "the output differs"},
		{"ORT refuses", []string{"verify", relu, custom, "--ort"}, 1, "ONNX Runtime cannot run " + custom},
		{"one model", []string{"verify", relu, "--ort", "--inputs", dir}, 2, "--ort compares two models"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := run(tc.args...)
			if code != tc.status || !strings.Contains(stdout+stderr, tc.want) {
				t.Errorf("exit %d (want %d), output does not say %q:\n%s%s", code, tc.status, tc.want, stdout, stderr)
			}
		})
	}
}
