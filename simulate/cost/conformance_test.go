package cost

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
)

// nodeTests is the ONNX backend node-test corpus, relative to this package.
const nodeTests = "../../../shared/onnx-node-tests"

// Every node-test model is costed without a failure of the cost model
// itself (a recovered panic); ops whose shapes inference knows are not
// left unknown for lack of a cost function. Reports the coverage.
func TestNodeTestsCostModel(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance sweep skipped in -short")
	}
	var models []string
	for _, suite := range []string{"node", "simple", "pytorch-converted", "pytorch-operator"} {
		dirs, err := os.ReadDir(filepath.Join(nodeTests, suite))
		if err != nil {
			continue
		}
		for _, d := range dirs {
			p := filepath.Join(nodeTests, suite, d.Name(), "model.onnx")
			if _, err := os.Stat(p); err == nil {
				models = append(models, p)
			}
		}
	}
	if len(models) == 0 {
		t.Skipf("no node tests under %s", nodeTests)
	}
	h := preset(t, "h100")
	var nodes, unknown, generic int
	noModel := map[string]int{}
	whys := map[string]int{}
	for _, p := range models {
		m, err := importer.Load(p, importer.Options{})
		if err != nil {
			continue
		}
		ir.InferModel(m, ir.InferOptions{})
		cm := New(h, m, Options{})
		for _, n := range m.Graph.Nodes {
			e := cm.Node(n)
			nodes++
			if strings.Contains(e.Why, "cost model failed") {
				t.Errorf("%s: node %s (%s): %s", p, ir.NodeLabel(n), n.QualifiedOp(), e.Why)
			}
			if e.Unknown {
				unknown++
				if !strings.HasPrefix(e.Why, "shape of") && !strings.HasPrefix(e.Why, "type of") {
					whys[n.QualifiedOp()+": "+e.Why]++
				}
			}
			if strings.HasPrefix(e.Note, "no cost model") {
				generic++
				noModel[n.QualifiedOp()]++
			}
			if !e.Unknown && (e.DeviceS < 0 || e.FLOPs < 0 || e.Bytes < 0) {
				t.Errorf("%s: node %s: negative cost %+v", p, ir.NodeLabel(n), e)
			}
		}
		m.Close()
	}
	var ops []string
	for op := range noModel {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var ws []string
	for w := range whys {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	for _, w := range ws {
		t.Logf("unknown for another reason than shapes: %s (x%d)", w, whys[w])
	}
	t.Logf("%d models, %d nodes: %d unknown (shapes not inferred), %d costed generically (no cost function: %s)",
		len(models), nodes, unknown, generic, strings.Join(ops, ", "))
}
