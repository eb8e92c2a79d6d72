package pipeline

import (
	"fmt"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestRolledRNNPersistent: at -O3 on a GPU, a rolled LSTM cell in a Loop
// and a GRU cell in a Scan, at every size of modelgen.RolledRNNSizes,
// become one wolong:PersistentRNN kernel, and the simulator predicts the
// result faster than the rolled loop with its body fused (-O3 without the
// persistent_loop pass); on a CPU (no on-chip budget) the loop stays.
func TestRolledRNNPersistent(t *testing.T) {
	gpu, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := hw.Preset("cpu-1t")
	if err != nil {
		t.Fatal(err)
	}
	optimize := func(m *ir.Model, h *hw.Hardware, disable ...string) *Optimized {
		t.Helper()
		f, err := Infer(&Loaded{Model: m}, InferOptions{DefaultDims: true})
		if err != nil {
			t.Fatal(err)
		}
		o, err := Optimize(f, OptimizeOptions{Level: 3, HW: h, Predict: true, VerifyEach: true, Disable: disable})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	persistent := func(m *ir.Model) int {
		n := 0
		for _, x := range m.Graph.Nodes {
			if x.Domain == ir.FusedDomain && x.Op == "PersistentRNN" {
				n++
			}
		}
		return n
	}
	for _, sz := range modelgen.RolledRNNSizes {
		d, hidden, steps := sz[0], sz[1], int(sz[2])
		for _, gen := range []struct {
			name string
			make func() *ir.Model
		}{
			{"loop_lstm", func() *ir.Model { return modelgen.LoopLSTM(d, hidden, steps) }},
			{"scan_gru_cell", func() *ir.Model { return modelgen.ScanGRUCell(d, hidden, steps) }},
		} {
			t.Run(fmt.Sprintf("%s_d%d_h%d_t%d", gen.name, d, hidden, steps), func(t *testing.T) {
				o := optimize(gen.make(), gpu)
				if persistent(o.Model) != 1 || o.Result.Final.Kernels != 1 {
					t.Fatalf("h100: %d PersistentRNN nodes, %d kernels; want the loop as one persistent kernel", persistent(o.Model), o.Result.Final.Kernels)
				}
				rolled := optimize(gen.make(), gpu, "persistent_loop")
				if !(o.Result.Final.TotalMs < rolled.Result.Final.TotalMs) {
					t.Errorf("h100: persistent %.4f ms, not below the rolled fused loop's %.4f ms", o.Result.Final.TotalMs, rolled.Result.Final.TotalMs)
				}
				t.Logf("h100: %.4f ms rolled (-O3 without persistent_loop, %d kernels), %.4f ms persistent: %.1fx",
					rolled.Result.Final.TotalMs, rolled.Result.Final.Kernels, o.Result.Final.TotalMs, rolled.Result.Final.TotalMs/o.Result.Final.TotalMs)
				if c := optimize(gen.make(), cpu); persistent(c.Model) != 0 {
					t.Errorf("cpu-1t: a PersistentRNN kernel on a CPU")
				}
			})
		}
	}
}
