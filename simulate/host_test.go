package simulate

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestHostOverheads: on a CPU (nodes run one after another on the issuing
// thread) a run costs the run overhead, then per node its dispatch, its
// output allocation and its kernel; a view (Flatten) costs dispatch plus
// free_node_us and no kernel.
func TestHostOverheads(t *testing.T) {
	g := ir.NewGraph("host")
	x := in(g, "x", ir.Float32, 4, 1000)
	a := op(g, "Relu", "a", x)
	f := g.AddNode("Flatten", "", "f", []*ir.Value{a}, []string{"f"}).Outputs[0]
	b := op(g, "Relu", "b", f)
	g.Outputs = []*ir.Value{b}
	m := model(t, g)
	h := preset(t, "cpu-1t")
	h.RunOverheadUs, h.DispatchUs, h.FreeNodeUs, h.AllocUsPerMB = 10, 5, 2, 100
	h.AllocMinMB, h.InputUs, h.OutputUs, h.OutputUsPerMB, h.InputUsPerMB = 0, 0, 0, 0, 0
	r := run(t, m, h, Options{Streams: 1})
	var dev float64
	for _, tk := range r.Tasks {
		dev += tk.Est.DeviceS
	}
	outMB := 2 * 4 * 1000 * 4 / 1e6 // two Relu outputs of 4000 float32
	want := (10+3*5+2+outMB*100)*1e-6 + dev
	if math.Abs(r.TotalS-want) > 1e-12 {
		t.Errorf("total %.3f us, want %.3f us (run 10 + 3 dispatches + free node 2 + alloc %.1f + kernels %.3f)", r.TotalS*1e6, want*1e6, outMB*100, dev*1e6)
	}
	if math.Abs(r.HostBusyS-(want-dev)) > 1e-12 {
		t.Errorf("host busy %.3f us, want %.3f us", r.HostBusyS*1e6, (want-dev)*1e6)
	}
	for _, tk := range r.Tasks {
		if tk.Op() == "Flatten" && tk.Est.Kernels != 0 {
			t.Errorf("Flatten launched %d kernels", tk.Est.Kernels)
		}
	}
}
