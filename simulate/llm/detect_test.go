package llm_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// TestTransformerOfGenerated writes every architecture preset with the
// generator and reads it back from the graph: the detected architecture
// is the preset (Dropout and the source excepted: a graph carries
// neither).
func TestTransformerOfGenerated(t *testing.T) {
	for _, name := range llm.TransformerNames() {
		t.Run(name, func(t *testing.T) {
			want, err := llm.TransformerPreset(name)
			if err != nil {
				t.Fatal(err)
			}
			if want.MLA() {
				t.Skip("the generator writes no latent attention (DeepSeek-V2/V3 class)")
			}
			m, err := modelgen.LLM(modelgen.Decoder(*want), filepath.Join(t.TempDir(), "w.data"), modelgen.LLMOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			got, err := llm.TransformerOf(m)
			if err != nil {
				t.Fatal(err)
			}
			w := *want
			w.Dropout, w.Source = false, ""
			if *got != w {
				t.Errorf("detected\n %+v\nwant\n %+v", *got, w)
			}
			if got.Params() != want.Params() {
				t.Errorf("params %g, want %g", got.Params(), want.Params())
			}
		})
	}
}

// TestTransformerOfExports reads the architecture of real exports with
// onnxruntime's contrib attention ops and the opset-23/24 ones.
func TestTransformerOfExports(t *testing.T) {
	for _, tc := range []struct {
		file string
		want llm.Transformer
	}{
		{"tiny-random-gpt2-fp32_past.onnx", llm.Transformer{Layers: 5, Hidden: 32, Heads: 4, KVHeads: 4, FFN: 128, Vocab: 1000, Bias: true, LearnedPositions: true}},
		{"tiny-random-llama-fp16-extdata/model.onnx", llm.Transformer{Layers: 2, Hidden: 16, Heads: 1, KVHeads: 1, FFN: 64, Gated: true, Vocab: 32000, RMSNorm: true}},
		{"tiny-qwen35_decoder_gqa_fp16.onnx", llm.Transformer{Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, FFN: 128, Vocab: 1000}},
		{"static_scatter_bias_decoder_opset24.onnx", llm.Transformer{Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, FFN: 128, Gated: true, Vocab: 256, RMSNorm: true}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			m, err := importer.Load(filepath.Join("..", "..", "..", "shared", "models", "transformer", tc.file), importer.Options{})
			if err != nil {
				t.Skip(err)
			}
			defer m.Close()
			ir.InferModel(m, ir.InferOptions{})
			got, err := llm.TransformerOf(m)
			if err != nil {
				t.Fatal(err)
			}
			g := *got
			g.Name = ""
			if g != tc.want {
				t.Errorf("detected\n %+v\nwant\n %+v", g, tc.want)
			}
		})
	}
}

// TestTransformerOfNot refuses graphs that are not decoders with a typed
// error.
func TestTransformerOfNot(t *testing.T) {
	for name, m := range map[string]*ir.Model{
		"mlp": modelgen.MLP(64, 2),
		"cnn": modelgen.SampleCNN(),
	} {
		_, err := llm.TransformerOf(m)
		var nt *llm.NotTransformerError
		if !errors.As(err, &nt) {
			t.Errorf("%s: err %v, want NotTransformerError", name, err)
		}
	}
}
