package calibrate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func TestAddORTDeflatesKernels(t *testing.T) {
	base, err := hw.Preset("cpu-1t")
	if err != nil {
		t.Fatal(err)
	}
	base = base.Clone()
	base.Fitted = &hw.Fitted{KernelInflationUs: 2}
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(1, 4096)))
	n := g.AddNode("Relu", "", "r", []*ir.Value{x}, []string{"y"})
	g.Outputs = []*ir.Value{n.Outputs[0]}
	ir.InferModel(&ir.Model{Graph: g}, ir.InferOptions{})
	pairs := []Pair{{Node: n, Sample: &Sample{Op: "Relu", Us: 10}}, {Node: n, Sample: &Sample{Op: "Relu", Us: 1}}}
	var d FitData
	d.AddORT(base, ORTRun{Label: "m", Model: &ir.Model{Graph: g}, Pairs: pairs, ProfiledUs: 30, UnprofiledUs: 20, EveryNode: true})
	if len(d.Direct) != 1 || len(d.Runs) != 1 || d.Runs[0].Us != 20 {
		t.Fatalf("direct %d runs %d", len(d.Direct), len(d.Runs))
	}
	if got := d.Direct[0].Split[n]; got != 0.05 { // the last pair wins: 1 us - 2 us, floored at 5%
		t.Errorf("split %g, want 0.05", got)
	}
	var p FitData
	p.AddORT(base, ORTRun{Label: "m", Model: &ir.Model{Graph: g}, Pairs: pairs[:1], ProfiledUs: 30})
	if len(p.Direct) != 0 || p.Runs[0].Us != 30 {
		t.Errorf("profiled only: direct %d, run %g us", len(p.Direct), p.Runs[0].Us)
	}
	s := SummarizeDirect(base, base, d.Direct, 5)
	if len(s.Worst) != 1 || s.MAPEBefore != s.MAPEAfter {
		t.Errorf("summary %+v", s)
	}
}

func TestRecordedModel(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m.onnx")
	os.WriteFile(m, []byte("x"), 0o644)
	if got := RecordedModel("m.onnx", "", filepath.Join(dir, "m.json"), ""); got != m {
		t.Errorf("beside the measurement: %s", got)
	}
	if got := RecordedModel("a/m.onnx", "", "x.json", "/models"); got != filepath.Join("/models", "a/m.onnx") {
		t.Errorf("in --models: %s", got)
	}
}
