package modelgen

import (
	"bytes"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// TestCalibrationSuite checks every suite model round-trips through the
// exporter and importer, verifies, infers every value to a static shape
// (the harness feeds concrete inputs) and has a unique name; and that the
// suite covers each group it promises.
func TestCalibrationSuite(t *testing.T) {
	suite := CalibrationSuite()
	seen := map[string]bool{}
	groups := map[string]int{}
	for _, s := range suite {
		if seen[s.Name] {
			t.Errorf("%s: name repeated", s.Name)
		}
		seen[s.Name] = true
		groups[s.Group]++
		var buf bytes.Buffer
		if err := importer.Export(s.Model, &buf); err != nil {
			t.Errorf("%s: export: %v", s.Name, err)
			continue
		}
		m, err := importer.Decode(buf.Bytes(), importer.Options{})
		if err != nil {
			t.Errorf("%s: re-import: %v", s.Name, err)
			continue
		}
		if err := ir.Verify(m); err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		r := ir.InferModel(m, ir.InferOptions{})
		if w := r.Warnings(); len(w) > 0 {
			t.Errorf("%s: inference warnings: %v", s.Name, w)
		}
		for _, in := range m.Graph.Inputs {
			if in.Type.DType != ir.Float32 || !in.Type.Shape.IsStatic() {
				t.Errorf("%s: input %s is %s, want a static float32 tensor", s.Name, in.Name, in.Type)
			}
		}
		m.Graph.Walk(func(g *ir.Graph) bool {
			for _, n := range g.Nodes {
				for _, o := range n.Outputs {
					if o != nil && !o.Type.Shape.IsStatic() {
						t.Errorf("%s: %s output %s: shape %s not inferred", s.Name, ir.NodeLabel(n), o.Name, o.Type)
					}
				}
			}
			return true
		})
	}
	for _, g := range []string{"gemm", "conv", "depthwise", "elementwise", "reduction", "norm", "movement", "view", "host", "control", "rnn", "attention", "tiny", "front", "quant", "model"} {
		if groups[g] == 0 {
			t.Errorf("no suite model in group %s", g)
		}
	}
}
