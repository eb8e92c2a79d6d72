package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/ir"
)

// TestRunFiles: inputs fed are numbered in graph order, skipping constant
// inputs and those not fed; outputs are numbered as the graph lists them.
func TestRunFiles(t *testing.T) {
	g := &ir.Graph{
		Inputs:  []*ir.Value{{Name: "a"}, {Name: "w", Const: &ir.Tensor{}}, {Name: "b"}, {Name: "c"}},
		Outputs: []*ir.Value{{Name: "y"}, {Name: "z"}},
	}
	v := eval.Value(nil)
	in := InputFiles(g, map[string]eval.Value{"a": v, "w": v, "c": v}, "d")
	if len(in) != 2 || in[0].Name != "a" || in[0].Path != filepath.Join("d", "input_0.pb") || in[1].Name != "c" || in[1].Path != filepath.Join("d", "input_1.pb") {
		t.Errorf("inputs %+v", in)
	}
	out := OutputFiles(g, []eval.Value{v, v}, "d")
	if len(out) != 2 || out[1].Name != "z" || out[1].Path != filepath.Join("d", "output_1.pb") {
		t.Errorf("outputs %+v", out)
	}
}
