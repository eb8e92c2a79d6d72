package modelgen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// TestSamplesCommitted checks that the committed samples are exactly what
// the generator writes (run `go run ./testdata/gen` after changing it).
func TestSamplesCommitted(t *testing.T) {
	for name, m := range Samples() {
		var buf bytes.Buffer
		if err := importer.Export(m, &buf); err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(filepath.Join("..", "..", "testdata", "models", name))
		if err != nil {
			t.Fatalf("%s: %v (run go run ./testdata/gen)", name, err)
		}
		if !bytes.Equal(have, buf.Bytes()) {
			t.Errorf("%s: committed file differs from the generator's output (run go run ./testdata/gen)", name)
		}
	}
}

// TestGeneratorsVerify builds every generator's model, verifies it and
// infers every output shape.
func TestGeneratorsVerify(t *testing.T) {
	for name, m := range map[string]*ir.Model{
		"sample": SampleCNN(),
		"chain":  Chain(100, 16),
		"wide":   Wide(2000),
		"mlp":    MLP(16, 3),
	} {
		if err := ir.Verify(m); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		ir.InferModel(m, ir.InferOptions{Dims: map[string]int64{"N": 2, "batch": 2}})
		for _, o := range m.Graph.Outputs {
			if !o.Type.Shape.IsStatic() {
				t.Errorf("%s: output %s: shape %s not inferred", name, o.Name, o.Type)
			}
		}
	}
	if n := len(Wide(2000).Graph.Nodes); n < 2000 || n > 2010 {
		t.Errorf("Wide(2000) has %d nodes", n)
	}
}
