package optimize

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// simPredictor predicts with the simulator on one preset.
type simPredictor struct{ h *hw.Hardware }

func (p simPredictor) Predict(m *ir.Model) (Prediction, error) {
	r, err := simulate.Run(m, p.h, simulate.Options{})
	if err != nil {
		return Prediction{}, err
	}
	return Prediction{Kernels: r.Kernels, TotalMs: r.TotalS * 1e3, PeakBytes: int64(r.PeakMemoryBytes), Unknown: r.UnknownNodes}, nil
}

func h100(t testing.TB) Predictor {
	h, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	return simPredictor{h}
}

// rewriteLines returns the rewrites of the pass called name as strings.
func rewriteLines(res *Result, name string) []string {
	var out []string
	for _, p := range res.Passes {
		if p.Name == name {
			for _, r := range p.Rewrites {
				out = append(out, r.String())
			}
		}
	}
	return out
}

// TestGeneratedModels optimizes the generated LSTM, transformer and
// Inception models at -O3 and checks, by name, that explain's rewrites
// include the expected batching and fusion, that the outputs are
// unchanged (evaluator), and that the predicted h100 time drops.
func TestGeneratedModels(t *testing.T) {
	type want struct {
		pass  string
		re    string // a rewrite line of the pass matches
		count int    // at least this many matching lines
	}
	for _, tc := range []struct {
		name       string
		gen        func() *ir.Model
		dims       map[string]int64
		wants      []want
		minSpeedup float64
	}{
		{"lstm", func() *ir.Model { return modelgen.LSTM(6, 4, 32, 32) }, nil, []want{
			{"hbatch", `^MatMul_\d+ \|\| MatMul_\d+ \|\| MatMul_\d+ \|\| MatMul_\d+ -> batched_matmul_\d+, split_\d+`, 12},
			{"tbatch", `^batched_matmul_\d+ \|\| .* -> concat_\d+, batched_matmul_\d+, split_\d+  \(6 independent MatMul`, 1},
			{"fuse", `^batched_matmul_\d+ \+ split_\d+ \+ Add_\d+ .* \+ Sigmoid_\d+ .* \+ Tanh_\d+ \+ Mul_\d+ -> fused_matmul_\d+`, 6},
			{"persistent", `^fused_matmul_\d+ \+ fused_matmul_\d+ \+ .* -> persistent_rnn_0  \(wolong:PersistentRNN, 6 nodes in one kernel; 6 steps`, 1},
		}, 5},
		{"transformer", func() *ir.Model { return modelgen.Transformer(2, 2, 16, 64, 4, 128) }, nil, []want{
			{"hbatch", `^MatMul_\d+ \|\| MatMul_\d+ \|\| MatMul_\d+ -> batched_matmul_\d+, split_\d+`, 2},
			{"layernorm", `^ReduceMean_\d+ \+ Sub_\d+ \+ Pow_\d+ \+ ReduceMean_\d+ \+ Add_\d+ \+ Sqrt_\d+ \+ Div_\d+ \+ Mul_\d+ \+ Add_\d+ -> layernorm_\d+`, 4},
			{"gelu", `^Div_\d+ \+ Erf_\d+ \+ Add_\d+ \+ Mul_\d+ \+ Mul_\d+ -> gelu_\d+`, 2},
			{"attention", `^MatMul_\d+ \+ Div_\d+ \+ Softmax_\d+ \+ MatMul_\d+ -> attention_\d+`, 2},
			{"fuse", `-> fused_matmul_\d+`, 4},
		}, 1.5},
		{"inception", func() *ir.Model { return modelgen.Inception(2, 16) }, map[string]int64{"N": 2}, []want{
			{"hbatch", `^Conv_\d+ \|\| Conv_\d+ \|\| Conv_\d+ -> batched_conv_\d+, split_\d+`, 2},
			{"fuse", `^Conv_\d+ \+ Relu_\d+ -> fused_conv_\d+`, 4},
		}, 1.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, m := tc.gen(), tc.gen()
			ir.InferModel(orig, ir.InferOptions{Dims: tc.dims})
			ir.InferModel(m, ir.InferOptions{Dims: tc.dims})
			res, err := Run(m, Options{Level: 3, VerifyEach: true, Predictor: h100(t), OnChipBytes: 50e6})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.wants {
				re := regexp.MustCompile(w.re)
				n := 0
				lines := rewriteLines(res, w.pass)
				for _, l := range lines {
					if re.MatchString(l) {
						n++
					}
				}
				if n < w.count {
					t.Errorf("pass %s: %d rewrites match %q, want >= %d; have:\n  %s", w.pass, n, w.re, w.count, strings.Join(lines, "\n  "))
				}
			}
			if s := res.Speedup(); s < tc.minSpeedup {
				t.Errorf("predicted speedup %.2fx, want >= %.2fx", s, tc.minSpeedup)
			}
			t.Logf("h100: %d nodes / %d kernels / %.4f ms -> %d nodes / %d kernels / %.4f ms (%.2fx)",
				res.Baseline.Nodes, res.Baseline.Kernels, res.Baseline.TotalMs, res.Final.Nodes, res.Final.Kernels, res.Final.TotalMs, res.Speedup())
			if why := compareRuns(t, orig, m, 3, 1e-4, 1e-5); why != "" {
				t.Errorf("cannot compare: %s", why)
			}
		})
	}
}

// TestDeepSpeechLSTM is the Deep Speech case: 50 steps, batch 4, hidden
// 1024 on h100, launch-bound before (400 small GEMMs), far fewer and
// larger kernels after.
func TestDeepSpeechLSTM(t *testing.T) {
	if testing.Short() {
		t.Skip("32 MiB of weights")
	}
	m := modelgen.LSTM(50, 4, 1024, 1024)
	ir.InferModel(m, ir.InferOptions{})
	res, err := Run(m, Options{Level: 3, VerifyEach: true, Predictor: h100(t), OnChipBytes: 50e6})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("h100: %d nodes / %d kernels / %.3f ms -> %d nodes / %d kernels / %.3f ms (%.2fx)",
		res.Baseline.Nodes, res.Baseline.Kernels, res.Baseline.TotalMs, res.Final.Nodes, res.Final.Kernels, res.Final.TotalMs, res.Speedup())
	for _, p := range res.Passes {
		if len(p.Rewrites) > 0 {
			t.Logf("  %-10s %4d rewrites  %+.3f ms", p.Name, len(p.Rewrites), -p.DeltaMs())
		}
	}
	if res.Speedup() < 20 {
		t.Errorf("speedup %.2fx, want >= 20x (launch-bound to compute-bound)", res.Speedup())
	}
	// The gather of x_t, the batched input projection and one persistent
	// kernel for the 50 steps (16 MiB of recurrent weights fit H100's L2).
	if res.Final.Kernels > 4 {
		t.Errorf("kernels %d -> %d: want at most 4", res.Baseline.Kernels, res.Final.Kernels)
	}
	lines := rewriteLines(res, "persistent")
	if len(lines) != 1 || !strings.Contains(lines[0], "wolong:PersistentRNN, 50 nodes in one kernel; 50 steps, recurrent weight U_i_batched") {
		t.Errorf("persistent rewrites: %v", lines)
	}
}
