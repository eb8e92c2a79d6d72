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

// BenchmarkPasses100k times each pass of the -O3 pipeline alone, as a
// sub-benchmark named after it, on the 100k-node model as the passes
// before it left it (a fresh copy each iteration, outside the timer; the
// driver's re-sort after the pass included). The hot spots of the whole
// pipeline are named in pipeline/bench_test.go.
func BenchmarkPasses100k(b *testing.B) {
	m := modelgen.Wide(100000)
	ir.InferModel(m, ir.InferOptions{Dims: map[string]int64{"batch": 8}})
	sel, err := Select(3, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	c := newContext(m, Options{Level: 3})
	for _, p := range forTarget(sel, TargetONNX) {
		if p.NeedsPlacer {
			continue
		}
		b.Run(p.Name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				cp, err := ir.CloneModel(c.Model)
				if err != nil {
					b.Fatal(err)
				}
				cc := newContext(cp, c.Opt)
				b.StartTimer()
				if _, err := runPass(cc, p); err != nil {
					b.Fatal(err)
				}
				if err := ir.SortNodes(cp.Graph); err != nil {
					b.Fatal(err)
				}
			}
		})
		// the state the next pass starts from
		if _, err := runPass(c, p); err != nil {
			b.Fatal(err)
		}
		if err := ir.SortNodes(m.Graph); err != nil {
			b.Fatal(err)
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
