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
					t.Fatalf("task %d is %s, want %s: a sorted graph runs in its own order", i, inOrder.Tasks[i].Name(), ir.NodeLabel(n))
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
					t.Fatalf("task %d: have %s [%g, %g], want %s [%g, %g]", i, a.Name(), a.Start, a.End, b.Name(), b.Start, b.End)
				}
			}
			if unsorted.TotalS != want.TotalS || unsorted.PeakMemoryBytes != want.PeakMemoryBytes || unsorted.CriticalPathS != want.CriticalPathS {
				t.Errorf("unsorted: total %g s, peak %g B, critical path %g s; want %g, %g, %g", unsorted.TotalS, unsorted.PeakMemoryBytes, unsorted.CriticalPathS, want.TotalS, want.PeakMemoryBytes, want.CriticalPathS)
			}
		})
	}
}

// TestRunReusing: a run that reuses an earlier run's buffers (the
// optimizer's prediction after each pass) equals a fresh run, whether the
// earlier run's graph had more node IDs or fewer, and whether the graph
// is in topological order or not.
func TestRunReusing(t *testing.T) {
	h, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	build := func(name string, nodes int, reverse bool) *ir.Model {
		s, err := modelgen.ShapeByName(name)
		if err != nil {
			t.Fatal(err)
		}
		m := s.Build(nodes)
		ir.InferModel(m, ir.InferOptions{Inputs: simulate.BatchInputs(m.Graph, 2, nil)})
		if reverse {
			slices.Reverse(m.Graph.Nodes)
		}
		return m
	}
	var old *simulate.Result
	for _, c := range []struct {
		shape   string
		nodes   int
		reverse bool
	}{{"cnn", 800, false}, {"control", 300, false}, {"fanout", 1200, true}, {"cnn", 200, true}, {"heads", 600, false}} {
		m := build(c.shape, c.nodes, c.reverse)
		want, err := simulate.Run(m, h, simulate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := simulate.RunReusing(m, h, simulate.Options{}, old)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Tasks) != len(want.Tasks) || got.TotalS != want.TotalS || got.PeakMemoryBytes != want.PeakMemoryBytes || got.CriticalPathS != want.CriticalPathS {
			t.Fatalf("%s %d: reused run %d tasks, %g s, peak %g B, path %g s; fresh %d, %g, %g, %g", c.shape, c.nodes,
				len(got.Tasks), got.TotalS, got.PeakMemoryBytes, got.CriticalPathS, len(want.Tasks), want.TotalS, want.PeakMemoryBytes, want.CriticalPathS)
		}
		for i := range want.Tasks {
			a, b := &got.Tasks[i], &want.Tasks[i]
			if a.Node != b.Node || a.Start != b.Start || a.End != b.End {
				t.Fatalf("%s %d: task %d is %s [%g, %g], fresh %s [%g, %g]", c.shape, c.nodes, i, a.Name(), a.Start, a.End, b.Name(), b.Start, b.End)
			}
		}
		old = got
	}
}
