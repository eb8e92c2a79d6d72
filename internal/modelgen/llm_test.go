package modelgen

import (
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// llmRoundTrip generates preset name at seq tokens, writes it with its
// weights referenced in the sparse file, imports, infers and profiles it
// on an H100 (inference, one forward pass).
func llmRoundTrip(tb testing.TB, name string, seq int) (*llm.Transformer, *ir.Model, *simulate.Result, int64) {
	tb.Helper()
	want, err := llm.TransformerPreset(name)
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	data := filepath.Join(dir, "model.onnx.data")
	m, err := LLM(Decoder(*want), data, LLMOptions{Seq: seq})
	if err != nil {
		tb.Fatal(err)
	}
	defer m.Close()
	p := filepath.Join(dir, "model.onnx")
	if _, err := importer.WriteFileWith(m, p, importer.WriteOptions{External: importer.ExternalAlways}); err != nil {
		tb.Fatal(err)
	}
	var disk int64
	if st, err := os.Stat(data); err == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			disk = sys.Blocks * 512
		}
	}
	back, err := importer.Load(p, importer.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { back.Close() })
	ir.InferModel(back, ir.InferOptions{})
	h, err := hw.Resolve("h100")
	if err != nil {
		tb.Fatal(err)
	}
	res, err := simulate.Run(back, h, simulate.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return want, back, res, disk
}

// TestLLM405B: Llama 3 405B (at 2,048 tokens) is generated, written,
// imported, inferred and profiled here: the data file takes a few MB of
// disk for 810 GB of weights, the architecture reads back from the graph,
// and the profile's FLOPs are 2 x weights x tokens plus attention.
func TestLLM405B(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 405B round trip takes a few seconds")
	}
	want, back, res, disk := llmRoundTrip(t, "llama3-405b", 2048)
	if disk > 64<<20 {
		t.Errorf("the 810 GB data file takes %d MB of disk", disk>>20)
	}
	got, err := llm.TransformerOf(back)
	if err != nil {
		t.Fatal(err)
	}
	if got.Params() != want.Params() {
		t.Errorf("read back %.4g parameters, want %.4g", got.Params(), want.Params())
	}
	tokens := 2048.0
	flops := tokens * want.ForwardFLOPsPerToken(2048)
	t.Logf("405B: %.4g parameters, %d MB on disk, forward %.4g FLOPs (want about %.4g), %.1f ms on an h100, peak memory %.0f GB",
		got.Params(), disk>>20, res.FLOPs, flops, res.TotalS*1e3, res.PeakMemoryBytes/1e9)
	// causal attention may be counted half (a fused kernel skips the upper triangle)
	if math.Abs(res.FLOPs/flops-1) > 0.05 {
		t.Errorf("forward FLOPs %.4g, want %.4g within 5%%", res.FLOPs, flops)
	}
	if res.PeakMemoryBytes < 2*want.Params() {
		t.Errorf("peak memory %.0f GB below the bf16 weights", res.PeakMemoryBytes/1e9)
	}
}

// BenchmarkLLM405B times the round trip of TestLLM405B.
func BenchmarkLLM405B(b *testing.B) {
	for i := 0; i < b.N; i++ {
		llmRoundTrip(b, "llama3-405b", 2048)
	}
}
