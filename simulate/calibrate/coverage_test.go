package calibrate

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

func TestCoverage(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(1, 8)))
	n := g.AddNode("Relu", "", "r", []*ir.Value{x}, []string{"y"})
	// profiled at 18 us against 10 unprofiled: the profiler's 8 us on
	// its one node, four times the kernel's 2 us
	runs := []DirectRun{{Label: "relu", Model: &ir.Model{Graph: g}, Us: 10, ProfiledUs: 18, Split: map[*ir.Node]float64{n: 2}}}
	got := strings.Join(Coverage(runs), "\n")
	for _, want := range []string{"class attention", "control-flow", "view or shape", "input_us", "1 runs",
		"fewer than 3 runs: elementwise (1)", "profiler cost 8.0 us per node", "1 of 1 profiled kernels", "calibrate --host"} {
		if !strings.Contains(got, want) {
			t.Errorf("coverage lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "class elementwise") || strings.Contains(got, ", elementwise") {
		t.Errorf("a Relu run covers the elementwise class:\n%s", got)
	}
}
