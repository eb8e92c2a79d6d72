package pipeline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func model(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "shared", "models"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skip("../shared/models absent")
	}
	return p
}

// text is m's IR text, types included: what a stage must leave as it was.
func text(t *testing.T, m *ir.Model) string {
	t.Helper()
	var b bytes.Buffer
	if err := ir.Fprint(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestStagesLeaveEarlierResults runs every stage on a model with fixed
// shapes and on one with a symbolic batch, and checks that no stage
// changes what an earlier one returned: the loaded model, the inferred
// copy, the optimized copy.
func TestStagesLeaveEarlierResults(t *testing.T) {
	h, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  []string
		batch int64
	}{
		{[]string{"cnn", "mnist_cntk_opset7.onnx"}, 0},
		{[]string{"cnn", "pytorch_super_resolution.onnx"}, 2},
	} {
		t.Run(tc.path[1], func(t *testing.T) {
			l, err := Load(model(t, tc.path...), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			loaded := text(t, l.Model)
			f, err := Infer(l, InferOptions{DefaultDims: true, Batch: tc.batch})
			if err != nil {
				t.Fatal(err)
			}
			if text(t, l.Model) != loaded {
				t.Fatal("Infer changed the loaded model")
			}
			inferred := text(t, f.Model)
			if inferred == loaded && tc.batch > 0 {
				t.Error("the inferred copy has the loaded model's types at another batch")
			}
			o, err := Optimize(f, OptimizeOptions{Level: 3, HW: h, Predict: true})
			if err != nil {
				t.Fatal(err)
			}
			if text(t, l.Model) != loaded || text(t, f.Model) != inferred {
				t.Fatal("Optimize changed an earlier stage's model")
			}
			if len(o.Model.Graph.Nodes) >= len(f.Model.Graph.Nodes) {
				t.Errorf("-O3 left %d of %d nodes", len(o.Model.Graph.Nodes), len(f.Model.Graph.Nodes))
			}
			optimized := text(t, o.Model)
			for _, s := range []Stage{f, o} {
				if _, err := Simulate(s, SimOptions{HW: h}); err != nil {
					t.Fatal(err)
				}
			}
			e, again, err := Exportable(o, OptimizeOptions{Level: 3, HW: h})
			if err != nil {
				t.Fatal(err)
			}
			if again != f.Specialized() || (e == o) == again {
				t.Errorf("Exportable: optimized anew %v, same result %v, with shapes specialized %v", again, e == o, f.Specialized())
			}
			if _, err := Export(e, filepath.Join(t.TempDir(), "out.onnx"), importer.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			if text(t, l.Model) != loaded || text(t, f.Model) != inferred || text(t, o.Model) != optimized {
				t.Fatal("Simulate, Exportable or Export changed an earlier stage's model")
			}
		})
	}
}

// TestInferAssumptions: Infer states the symbolic dims it defaulted, and
// the batch and given shapes it inferred with; the given options are the
// loaded model's, unchanged.
func TestInferAssumptions(t *testing.T) {
	path := model(t, "cnn", "pytorch_super_resolution.onnx")
	l, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	f, err := Infer(l, InferOptions{DefaultDims: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Defaulted, []string{"batch_size=1"}) || !f.Specialized() {
		t.Errorf("defaulted %v (specialized %v), want [batch_size=1]", f.Defaulted, f.Specialized())
	}
	if len(l.Given.Dims) != 0 {
		t.Errorf("defaulting changed the loaded model's given dims: %v", l.Given.Dims)
	}
	g, err := InferGeneric(l)
	if err != nil {
		t.Fatal(err)
	}
	if g.Specialized() || len(g.Defaulted) != 0 || g.Model.Graph.Inputs[0].Type.Shape.Dims[0].Sym != "batch_size" {
		t.Errorf("InferGeneric: specialized %v, defaulted %v, input %s", g.Specialized(), g.Defaulted, g.Model.Graph.Inputs[0].Type.Shape)
	}
	b, err := Infer(l, InferOptions{Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	if d := b.Model.Graph.Inputs[0].Type.Shape.Dims[0]; d != ir.D(3) || b.Batch != 3 {
		t.Errorf("batch 3: input dim 0 is %s, Batch %d", d, b.Batch)
	}
	if _, err := Infer(l, InferOptions{Batch: -1}); err == nil {
		t.Error("a negative batch was accepted")
	}
}

// TestShapeErrors: shapes the model cannot take are *ShapeError naming
// what was given (its Source) and no command-line flag.
func TestShapeErrors(t *testing.T) {
	path := model(t, "cnn", "mnist_cntk_opset7.onnx")
	l, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := l.Model.Graph.Inputs[0].Name
	l.Close()
	for _, opt := range []LoadOptions{
		{Dims: []GivenDim{{Name: "no_such_dim", Value: 2}}},
		{Inputs: []GivenInput{{Name: in, Shape: ir.DimsShape(ir.D(1), ir.D(2)), Text: in + "=1x2"}}},
		{Inputs: []GivenInput{{Name: in, Shape: ir.DimsShape(ir.D(1), ir.D(1), ir.D(30), ir.D(30)), Text: in + "=1x1x30x30"}}},
		{Inputs: []GivenInput{{Name: "no_such_input", Shape: ir.DimsShape(ir.D(1)), Text: "no_such_input=1"}}},
	} {
		l, err := Load(path, opt)
		if err == nil {
			l.Close()
			t.Errorf("%+v: loaded", opt)
			continue
		}
		var se *ShapeError
		if !errors.As(err, &se) {
			t.Errorf("%+v: %T %v, want a *ShapeError", opt, err, err)
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("%+v: %q names a flag", opt, err)
		}
	}
}
