package simulate_test

import (
	"slices"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestUnsortedGraph: a graph whose node list is not in topological order
// is simulated in ir.Topo's order, as the same graph listed in that order
// is; a sorted one in its own order (control: If and Loop nodes, whose
// dependencies include the values their bodies capture).
func TestUnsortedGraph(t *testing.T) {
	h, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fanout", "control", "cnn"} {
		t.Run(name, func(t *testing.T) {
			s, err := modelgen.ShapeByName(name)
			if err != nil {
				t.Fatal(err)
			}
			m := s.Build(400)
			ir.InferModel(m, ir.InferOptions{Inputs: simulate.BatchInputs(m.Graph, 2, nil)})
			g := m.Graph
			sorted := slices.Clone(g.Nodes)
			run := func() *simulate.Result {
				r, err := simulate.Run(m, h, simulate.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			inOrder := run()
			for i, n := range sorted {
				if inOrder.Tasks[i].Node != n {
					t.Fatalf("task %d is %s, want %s: a sorted graph runs in its own order", i, inOrder.Tasks[i].Name, ir.NodeLabel(n))
				}
			}
			slices.Reverse(g.Nodes)
			unsorted := run()
			topo, err := ir.Topo(g)
			if err != nil {
				t.Fatal(err)
			}
			g.Nodes = topo
			want := run()
			if len(unsorted.Tasks) != len(want.Tasks) {
				t.Fatalf("%d tasks, want %d", len(unsorted.Tasks), len(want.Tasks))
			}
			for i := range want.Tasks {
				a, b := &unsorted.Tasks[i], &want.Tasks[i]
				if a.Node != b.Node || a.Start != b.Start || a.End != b.End {
					t.Fatalf("task %d: have %s [%g, %g], want %s [%g, %g]", i, a.Name, a.Start, a.End, b.Name, b.Start, b.End)
				}
			}
			if unsorted.TotalS != want.TotalS || unsorted.PeakMemoryBytes != want.PeakMemoryBytes || unsorted.CriticalPathS != want.CriticalPathS {
				t.Errorf("unsorted: total %g s, peak %g B, critical path %g s; want %g, %g, %g", unsorted.TotalS, unsorted.PeakMemoryBytes, unsorted.CriticalPathS, want.TotalS, want.PeakMemoryBytes, want.CriticalPathS)
			}
		})
	}
}
