package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// BenchmarkOptimizeWide100k runs the -O3 pipeline on a 100k-node model
// (no predictor: the passes alone).
func BenchmarkOptimizeWide100k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m := modelgen.Wide(100000)
		ir.InferModel(m, ir.InferOptions{Dims: map[string]int64{"batch": 8}})
		b.StartTimer()
		res, err := Run(m, Options{Level: 3})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(res.Baseline.Nodes), "nodes_in")
			b.ReportMetric(float64(res.Final.Nodes), "nodes_out")
		}
	}
}

// TestWideLinear is a cheap guard against quadratic passes: 20k nodes
// must optimize (all passes, verifier once at the end) quickly.
func TestWideLinear(t *testing.T) {
	m := modelgen.Wide(20000)
	ir.InferModel(m, ir.InferOptions{Dims: map[string]int64{"batch": 8}})
	res, err := Run(m, Options{Level: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Verify(m); err != nil {
		t.Fatal(err)
	}
	if res.Final.Nodes*2 > res.Baseline.Nodes {
		t.Errorf("nodes %d -> %d: want at least 2x fewer", res.Baseline.Nodes, res.Final.Nodes)
	}
}
