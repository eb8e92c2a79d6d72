package ir_test

// This file tests the verifier's arity check: the op table's bounds at
// the model's opset, on hand-built nodes and on every model of the
// conformance data and the real-model corpus (which ONNX Runtime loads,
// so the verifier must accept them all).

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

func TestVerifyArityByOpset(t *testing.T) {
	tests := []struct {
		name    string
		op      string
		opset   int64 // 0: no model (VerifyGraph)
		inputs  int
		outputs int
		wantErr string // "" for none
	}{
		{"ReduceMean axes input at 18", "ReduceMean", 18, 2, 1, ""},
		{"ReduceMean axes input at 17", "ReduceMean", 17, 2, 1, "have 2 inputs, want 1 at opset 17"},
		{"ReduceMean at 17", "ReduceMean", 17, 1, 1, ""},
		{"ReduceSum axes input at 13", "ReduceSum", 13, 2, 1, ""},
		{"ReduceSum axes input at 11", "ReduceSum", 11, 2, 1, "want 1 at opset 11"},
		{"Unsqueeze without axes at 13", "Unsqueeze", 13, 1, 1, "have 1 inputs, want 2 at opset 13"},
		{"Unsqueeze at 11", "Unsqueeze", 11, 1, 1, ""},
		{"Slice at 9 with starts", "Slice", 9, 3, 1, "want 1 at opset 9"},
		{"Slice at 10", "Slice", 10, 3, 1, ""},
		{"Pad axes at 17", "Pad", 17, 4, 1, "have 4 inputs, want 2 to 3 at opset 17"},
		{"Pad axes at 18", "Pad", 18, 4, 1, ""},
		{"Split at 1 takes split", "Split", 1, 2, 2, ""},
		{"Split at 11", "Split", 11, 2, 2, "want 1 at opset 11"},
		{"Relu two inputs", "Relu", 17, 2, 1, "have 2 inputs, want 1"},
		{"TopK one output", "TopK", 17, 2, 1, "have 1 outputs, want 2"},
		{"Concat variadic", "Concat", 17, 5, 1, ""},
		{"no opset: loosest", "ReduceMean", 0, 2, 1, ""},
		{"no opset: still bounded", "ReduceMean", 0, 3, 1, "have 3 inputs, want 1 to 2"},
		{"undeclared op", "NoSuchOp", 17, 7, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := ir.NewGraph("g")
			ins := make([]*ir.Value, tt.inputs)
			for i := range ins {
				ins[i] = g.AddInput(string(rune('a'+i)), ir.TensorType(ir.Float32, ir.ShapeOf(2)))
			}
			outs := make([]string, tt.outputs)
			for i := range outs {
				outs[i] = string(rune('y' - i))
			}
			n := g.AddNode(tt.op, "", "n", ins, outs)
			g.Outputs = n.Outputs
			var err error
			if tt.opset == 0 {
				err = ir.VerifyGraph(g)
			} else {
				err = ir.Verify(&ir.Model{Opsets: []ir.OpsetID{{Version: tt.opset}}, Graph: g})
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestVerifyAcceptsCorpus checks that every conformance and corpus model
// that loads passes the verifier: the op table's arities, at each
// model's opset, allow what ONNX's own test data and real exporters write.
func TestVerifyAcceptsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	var files []string
	for _, root := range []string{conformanceRoot, modelsRoot} {
		if _, err := os.Stat(root); err != nil {
			t.Skipf("test data absent: %v", err)
		}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".onnx") {
				files = append(files, p)
			}
			return nil
		})
	}
	checked := 0
	for _, p := range files {
		m, err := importer.Load(p, importer.Options{})
		if err != nil {
			continue
		}
		if err := ir.Verify(m); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		m.Close()
		checked++
	}
	if checked < 1500 {
		t.Errorf("only %d models loaded", checked)
	}
	t.Logf("%d models verified", checked)
}
