package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestExportTypesFromIR: value_info and outputs are written from the IR's
// types (a stale declaration is dropped), and CheckExported refuses a file
// whose declarations contradict its graph or that uses a domain it does
// not import, leaving no file behind.
func TestExportTypesFromIR(t *testing.T) {
	build := func() (*ir.Model, *ir.Value) {
		b := modelgen.New("retyped", 13)
		x := b.Input("x", ir.Float32, 2, 3)
		c := b.Op("Cast", in(x), modelgen.Int("to", int64(ir.Uint8)))
		r := b.Op("Reshape", in(c, b.ConstI("shape", []int64{1}, 6)))
		b.Output(b.Op("Cast", in(r), modelgen.Int("to", int64(ir.Float32))))
		stale := ir.TensorType(ir.Float32, ir.ShapeOf(2, 3)) // as before a pass retyped it
		c.Declared = &stale
		return b.Model(), c
	}
	for _, tc := range []struct {
		name    string
		infer   bool // types current (as ToONNX leaves them)
		domain  string
		wantErr string
	}{
		{name: "current types", infer: true},
		{name: "stale declaration", infer: false, wantErr: "declared type contradicts the graph"},
		{name: "domain not imported", infer: true, domain: "com.example", wantErr: `uses domain "com.example"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c := build()
			if tc.domain != "" {
				m.Graph.AddNode("Custom", tc.domain, "custom", in(m.Graph.Outputs[0]), []string{"unused"})
			}
			if tc.infer {
				ir.InferModel(m, ir.InferOptions{})
			}
			out := filepath.Join(t.TempDir(), "m.onnx")
			err := WriteFile(m, out)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if _, serr := os.Stat(out); serr == nil {
					t.Error("a refused model was moved into place")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			back, err := Load(out, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer back.Close()
			for _, n := range back.Graph.Nodes {
				if n.Op == "Cast" && n.Output(0).Name == c.Name {
					if d := n.Output(0).Declared; d == nil || d.DType != ir.Uint8 {
						t.Errorf("value_info of %s: %v, want uint8 (the IR's)", c.Name, d)
					}
				}
			}
		})
	}
}

func in(vs ...*ir.Value) []*ir.Value { return vs }
