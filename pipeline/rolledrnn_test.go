package pipeline

import (
	"fmt"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
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

// TestUnrollTrial: loopunroll unrolls a short loop only when the trial
// of the passes after it predicts a gain. Unrolling pays for the Deep
// Speech recurrence of 8 steps (the per-step input projections batch into
// one GEMM), not for the 6-step GRU-like Scan on a GPU (the rolled loop as
// one persistent kernel is faster), and not for a refinement loop with a
// large body on
// either (nothing batches across the steps: the per-iteration set-up it
// saves is under the 1% loopunroll asks for): there the model unrolled
// anyway (no predictor: the limits alone decide) is predicted no more
// than 1% faster.
func TestUnrollTrial(t *testing.T) {
	for _, tc := range []struct {
		name, hw string
		make     func() *ir.Model
		unrolled bool
	}{
		{"loop_rnn_trip8", "cpu-1t", func() *ir.Model { return modelgen.LoopRNN(16, 32, 8) }, true},
		{"loop_rnn_trip8", "h100", func() *ir.Model { return modelgen.LoopRNN(16, 32, 8) }, true},
		{"scan_gru_t6", "h100", func() *ir.Model { return modelgen.ScanGRU(16, 32, 6) }, false},
		{"loop_wide_state", "cpu-1t", func() *ir.Model { return modelgen.LoopWideState(256, 512, 4) }, false},
		{"loop_wide_state", "h100", func() *ir.Model { return modelgen.LoopWideState(256, 512, 4) }, false},
	} {
		t.Run(tc.name+"/"+tc.hw, func(t *testing.T) {
			h, err := hw.Preset(tc.hw)
			if err != nil {
				t.Fatal(err)
			}
			run := func(predict bool) (*Optimized, bool) {
				f, err := Infer(&Loaded{Model: tc.make()}, InferOptions{DefaultDims: true})
				if err != nil {
					t.Fatal(err)
				}
				o, err := Optimize(f, OptimizeOptions{Level: 3, HW: h, Predict: predict, VerifyEach: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range o.Result.Passes {
					if p.Name == "loopunroll" {
						return o, len(p.Rewrites) > 0
					}
				}
				return o, false
			}
			o, unrolled := run(true)
			if unrolled != tc.unrolled {
				t.Fatalf("unrolled %v, want %v", unrolled, tc.unrolled)
			}
			forced, did := run(false)
			if !did {
				t.Fatal("without a predictor the loop was not unrolled")
			}
			p := &predictor{h: h, opt: simulate.Options{Streams: 1, Mode: simulate.Inference, Batch: forced.From.Batch}}
			f, err := p.Predict(forced.Model)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.4f ms as optimized (unrolled: %v), %.4f ms unrolled regardless", tc.hw, o.Result.Final.TotalMs, unrolled, f.TotalMs)
			if !unrolled && !(o.Result.Final.TotalMs*0.99 <= f.TotalMs) {
				t.Errorf("left rolled at %.4f ms, but the unrolled model is predicted %.4f ms", o.Result.Final.TotalMs, f.TotalMs)
			}
		})
	}
}
