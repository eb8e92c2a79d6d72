package cost

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// For the pure multiply-accumulate ops, FLOPs must be 2 x ir.NodeMACs (an
// independent count written for `wolong inspect`), on every node-test and
// shared model where both are known.
func TestFLOPsMatchMACs(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus sweep skipped in -short")
	}
	pure := map[string]bool{"MatMul": true, "Conv": true, "ConvTranspose": true, "MatMulInteger": true, "ConvInteger": true, "QLinearMatMul": true, "QLinearConv": true}
	var paths []string
	for _, root := range []string{nodeTests, "../../../shared/models"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".onnx" {
				paths = append(paths, p)
			}
			return nil
		})
	}
	if len(paths) == 0 {
		t.Skip("no corpus")
	}
	h := preset(t, "h100")
	checked := 0
	for _, p := range paths {
		m, err := importer.Load(p, importer.Options{})
		if err != nil {
			continue
		}
		ir.InferModel(m, ir.InferOptions{})
		cm := New(h, m, Options{})
		for _, n := range m.Graph.Nodes {
			if n.Domain != "" || !pure[n.Op] {
				continue
			}
			r := ir.NodeMACs(n)
			e := cm.Node(n)
			if !r.Known || e.Unknown {
				continue
			}
			checked++
			if math.Abs(e.FLOPs-2*float64(r.MACs)) > 1e-9*e.FLOPs {
				t.Errorf("%s: %s %s: FLOPs %g, 2 x MACs %d", p, n.Op, ir.NodeLabel(n), e.FLOPs, 2*r.MACs)
			}
		}
		m.Close()
	}
	t.Logf("%d MAC-op nodes cross-checked", checked)
}
