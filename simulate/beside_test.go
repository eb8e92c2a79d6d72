package simulate_test

import (
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestTasksBesideEstimates: on a graph large enough that the estimates
// run on several goroutines with the tasks built beside them, every task
// (estimate, dependencies' effect on the schedule, name), the totals and
// the assumptions equal those of the run on one core, where the tasks
// are built first and the nodes estimated in turn; the same holds for
// the graph's nodes listed in reverse (the tasks are built again in
// ir.Topo's order and the nodes estimated again). go test -race checks
// that the two write nothing the other reads.
func TestTasksBesideEstimates(t *testing.T) {
	h, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"control", "cnn"} {
		s, err := modelgen.ShapeByName(name)
		if err != nil {
			t.Fatal(err)
		}
		m := s.Build(9000) // above twice cost's parallel threshold (4096)
		ir.InferModel(m, ir.InferOptions{Inputs: simulate.BatchInputs(m.Graph, 2, nil)})
		run := func(procs int) *simulate.Result {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			r, err := simulate.Run(m, h, simulate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		one := run(1)
		for _, reverse := range []bool{false, true} {
			if reverse {
				slices.Reverse(m.Graph.Nodes)
			}
			got := run(4)
			if len(got.Tasks) != len(one.Tasks) {
				t.Fatalf("%s reverse=%v: %d tasks, %d on one core", name, reverse, len(got.Tasks), len(one.Tasks))
			}
			for i := range got.Tasks {
				if !reflect.DeepEqual(got.Tasks[i], one.Tasks[i]) {
					t.Fatalf("%s reverse=%v: task %d is %+v, on one core %+v", name, reverse, i, got.Tasks[i], one.Tasks[i])
				}
			}
			if got.TotalS != one.TotalS || got.PeakMemoryBytes != one.PeakMemoryBytes || got.CriticalPathS != one.CriticalPathS ||
				!slices.Equal(got.Assumptions, one.Assumptions) || !slices.Equal(got.Warnings, one.Warnings) {
				t.Errorf("%s reverse=%v: total %g s, peak %g B, path %g s, assumptions %q; on one core %g, %g, %g, %q", name, reverse,
					got.TotalS, got.PeakMemoryBytes, got.CriticalPathS, got.Assumptions, one.TotalS, one.PeakMemoryBytes, one.CriticalPathS, one.Assumptions)
			}
		}
	}
}
