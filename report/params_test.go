package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// ifModel has parameters in the main graph (an initializer), in the If
// branches (a branch initializer, Constant nodes with value, value_floats,
// value_ints and value_float) and in a model-local function's body.
func ifModel(t *testing.T) *ir.Model {
	t.Helper()
	b := modelgen.New("params", 17)
	cond := b.Input("cond", ir.Bool)
	x := b.Input("x", ir.Float32, 2, 5)
	w := b.ConstF("w", []int64{4}, 1, 2, 3, 4) // 4 elements, 16 B
	then := ir.NewGraph("then")
	then.AddInitializer((&ir.Tensor{Name: "tw", DType: ir.Float32, Dims: []int64{3}}).SetFloats([]float32{1, 2, 3})) // 3, 12 B
	tc := then.AddNode("Constant", "", "tc", nil, []string{"tc_out"},
		&ir.Attr{Name: "value", Type: ir.AttrTensor, T: (&ir.Tensor{DType: ir.Float32, Dims: []int64{2, 5}}).SetFloats(make([]float32, 10))}) // 10, 40 B
	then.AddNode("Constant", "", "tf", nil, []string{"tf_out"}, &ir.Attr{Name: "value_floats", Type: ir.AttrFloats, Floats: []float32{1, 2, 3}}) // 3, 12 B
	then.AddNode("Constant", "", "ti", nil, []string{"ti_out"}, &ir.Attr{Name: "value_ints", Type: ir.AttrInts, Ints: []int64{7, 8}})            // 2, 16 B
	then.Outputs = []*ir.Value{tc.Outputs[0]}
	els := ir.NewGraph("else")
	ec := els.AddNode("Constant", "", "ec", nil, []string{"ec_out"}, &ir.Attr{Name: "value_float", Type: ir.AttrFloat, F: 2.5}) // 1, 4 B
	eo := els.AddNode("Expand", "", "ee", []*ir.Value{ec.Outputs[0], els.AddNode("Constant", "", "es", nil, []string{"es_out"},
		&ir.Attr{Name: "value_ints", Type: ir.AttrInts, Ints: []int64{2, 5}}).Outputs[0]}, []string{"ee_out"}) // 2, 16 B
	els.Outputs = []*ir.Value{eo.Outputs[0]}
	iff := b.G.AddNode("If", "", "if", []*ir.Value{cond}, []string{"if_out"},
		&ir.Attr{Name: "then_branch", Type: ir.AttrGraph, G: then}, &ir.Attr{Name: "else_branch", Type: ir.AttrGraph, G: els})
	y := b.Op("Add", []*ir.Value{b.Op("Add", []*ir.Value{x, iff.Outputs[0]}), b.Op("ReduceSum", []*ir.Value{w})})
	y.Name = "y"
	b.Output(y)
	var buf bytes.Buffer
	if err := importer.Export(b.Model(), &buf); err != nil {
		t.Fatal(err)
	}
	m, err := importer.Decode(buf.Bytes(), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.InferModel(m, ir.InferOptions{})
	return m
}

// TestInspectParams counts parameters wherever a model keeps them, each
// stored tensor once.
func TestInspectParams(t *testing.T) {
	t.Run("subgraphs and Constant nodes", func(t *testing.T) {
		r := NewInspect("m", ifModel(t), nil, false)
		if r.Params != 4+3+10+3+2+1+2 || r.ParamBytes != 16+12+40+12+16+4+16 {
			t.Errorf("have %d params, %d B; want 25, 116 B", r.Params, r.ParamBytes)
		}
	})
	t.Run("one tensor twice", func(t *testing.T) {
		b := modelgen.New("shared", 17)
		x := b.Input("x", ir.Float32, 8)
		w := b.ConstF("w", []int64{8}, 1, 2, 3, 4, 5, 6, 7, 8)
		w2 := b.G.AddInitializer(&ir.Tensor{Name: "w2", DType: ir.Float32, Dims: []int64{8}, Raw: w.Const.Raw})
		w2.Const = w.Const // the same tensor object under two names
		b.Output(b.Op("Add", []*ir.Value{b.Op("Add", []*ir.Value{x, w}), w2}))
		r := NewInspect("m", b.Model(), nil, false)
		if r.Params != 8 || r.ParamBytes != 32 {
			t.Errorf("have %d params, %d B; want 8, 32 B", r.Params, r.ParamBytes)
		}
	})
	t.Run("two initializers, one location", func(t *testing.T) {
		dir := t.TempDir()
		sf, err := modelgen.NewSparseFile(filepath.Join(dir, "m.onnx.data"))
		if err != nil {
			t.Fatal(err)
		}
		defer sf.Close()
		b := modelgen.New("shared", 17)
		x := b.Input("x", ir.Float32, 1, 256)
		w, err := sf.Weight(b, "w", 256, 256)
		if err != nil {
			t.Fatal(err)
		}
		c := *w.Const
		c.Name = "w_tied"
		w2 := b.G.AddInitializer(&c)
		b.Output(b.Op("Add", []*ir.Value{b.Op("MatMul", []*ir.Value{x, w}), b.Op("MatMul", []*ir.Value{x, w2})}))
		sf.Finish()
		p := filepath.Join(dir, "m.onnx")
		if _, err := importer.WriteFileWith(b.Model(), p, importer.WriteOptions{External: importer.ExternalAlways}); err != nil {
			t.Fatal(err)
		}
		m, err := importer.Load(p, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		r := NewInspect(p, m, nil, false)
		if len(m.Graph.Initializers) != 2 || r.Params != 256*256 || r.ParamBytes != 4*256*256 {
			t.Errorf("%d initializers; have %d params, %d B; want 65536, 262144 B", len(m.Graph.Initializers), r.Params, r.ParamBytes)
		}
	})
}

// TestInspectParamsSilero counts silero_vad_v5, whose weights are Constant
// nodes inside If branches: they are nearly all of its 2.22 MiB file.
func TestInspectParamsSilero(t *testing.T) {
	p := filepath.Join("..", "..", "shared", "models", "rnn", "silero_vad_v5.onnx")
	st, err := os.Stat(p)
	if err != nil {
		t.Skip("../shared not present")
	}
	m, err := importer.Load(p, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ir.InferModel(m, ir.InferOptions{})
	r := NewInspect(p, m, nil, false)
	if r.ParamBytes > st.Size() || r.ParamBytes < st.Size()*9/10 || r.Params*4 > r.ParamBytes+1<<10 {
		t.Errorf("have %d params, %d B; want about the file's %d B, mostly float32", r.Params, r.ParamBytes, st.Size())
	}
}
