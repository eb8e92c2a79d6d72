package calibrate

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

func TestCoverage(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(1, 8)))
	g.AddNode("Relu", "", "r", []*ir.Value{x}, []string{"y"})
	runs := []DirectRun{{Label: "relu", Model: &ir.Model{Graph: g}, Us: 10}}
	got := strings.Join(Coverage(runs), "\n")
	for _, want := range []string{"class attention", "control-flow", "view or shape", "input_us", "1 runs", "calibrate --host"} {
		if !strings.Contains(got, want) {
			t.Errorf("coverage lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "elementwise") {
		t.Errorf("a Relu run covers the elementwise class:\n%s", got)
	}
}
