package llm

// This file implements the published decoder architectures the LLM planner
// and the model generator (internal/modelgen.LLM) know by name.

import (
	"fmt"
	"strings"
)

const (
	srcGPT3    = "Brown et al., 'Language Models are Few-Shot Learners', NeurIPS 2020 (arXiv:2005.14165), Table 2.1: layers, d_model, heads, d_head; context 2048; BPE vocabulary 50257; d_ff = 4 d_model"
	srcLlama2  = "Touvron et al., 'Llama 2: Open Foundation and Fine-Tuned Chat Models', arXiv:2307.09288 (2023), and the released params.json: RMSNorm, SwiGLU, rotary positions, vocabulary 32000, context 4096; GQA (8 kv heads) in 70B only"
	srcLlama3  = "Llama Team, AI @ Meta, 'The Llama 3 Herd of Models', arXiv:2407.21783 (2024), Table 3: layers, model dimension, FFN dimension, attention heads, key/value heads 8; vocabulary 128,256; 8K context for pre-training"
	srcMixtral = "Jiang et al., 'Mixtral of Experts', arXiv:2401.04088 (2024), Table 1: dim 4096, 32 layers, head_dim 128, 32 heads, 8 kv heads, hidden_dim 14336, vocab 32000, 8 experts, top-2 (8x22B: the released config.json, 56 layers, dim 6144, 48 heads, 8 kv, hidden 16384, vocab 32768)"
)

// gpt3 is a GPT-3 size: learned positions, LayerNorm, GELU MLP of 4h,
// biases, tied embeddings, dropout.
func gpt3(name string, layers, hidden, heads int) Transformer {
	return Transformer{Name: name, Layers: layers, Hidden: hidden, Heads: heads, KVHeads: heads, FFN: 4 * hidden,
		Vocab: 50257, Seq: 2048, TiedEmbeddings: true, Bias: true, LearnedPositions: true, Dropout: true, Source: srcGPT3}
}

// llama is a Llama-style model: RMSNorm, SwiGLU, rotary positions, no
// biases, untied embeddings, no dropout.
func llama(name string, layers, hidden, heads, kv, ffn, vocab, seq int, src string) Transformer {
	return Transformer{Name: name, Layers: layers, Hidden: hidden, Heads: heads, KVHeads: kv, FFN: ffn, Gated: true,
		Vocab: vocab, Seq: seq, RMSNorm: true, Source: src}
}

func mixtral(name string, layers, hidden, heads, ffn, vocab int) Transformer {
	t := llama(name, layers, hidden, heads, 8, ffn, vocab, 4096, srcMixtral)
	t.Experts, t.TopK = 8, 2
	return t
}

const (
	srcDeepSeekV2 = "DeepSeek-AI, 'DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model', arXiv:2405.04434 (2024), and the released config.json: 60 layers, hidden 5120, 128 heads, MLA (q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128), first layer dense (intermediate 12288), 160 routed experts of 1536 top-6 and 2 shared, vocabulary 102400; 236B parameters, 21B active"
	srcDeepSeekV3 = "DeepSeek-AI, 'DeepSeek-V3 Technical Report', arXiv:2412.19437 (2024), section 4.2 and the released config.json: 61 layers, hidden 7168, 128 heads, MLA (q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128), first 3 layers dense (intermediate 18432), 256 routed experts of 2048 top-8 and 1 shared, vocabulary 129280, 1 multi-token-prediction module; 671B parameters, 37B active"
)

// deepseek is a DeepSeek-V2/V3-class model: MLA, shared experts, dense
// first layers.
func deepseek(name string, layers, hidden, denseLayers, denseFFN, experts, topK, shared, ffn, vocab, mtp int, src string) Transformer {
	t := llama(name, layers, hidden, 128, 128, ffn, vocab, 4096, src)
	t.HeadDim, t.QLoRARank, t.KVLoRARank, t.RopeHeadDim, t.VHeadDim = 128, 1536, 512, 64, 128
	t.Experts, t.TopK, t.SharedExperts, t.DenseLayers, t.DenseFFN, t.MTPLayers = experts, topK, shared, denseLayers, denseFFN, mtp
	return t
}

// transformerPresets in catalogue order. GPT-3 XL and 13B are listed
// with heads x head_dim = d_model (the paper's table gives 24 heads of 128
// for XL and d_model 5140 for 13B, typos for a 1.3B and a 13B model).
var transformerPresets = []Transformer{
	gpt3("gpt3-125m", 12, 768, 12),
	gpt3("gpt3-350m", 24, 1024, 16),
	gpt3("gpt3-760m", 24, 1536, 16),
	gpt3("gpt3-1.3b", 24, 2048, 16),
	gpt3("gpt3-2.7b", 32, 2560, 32),
	gpt3("gpt3-6.7b", 32, 4096, 32),
	gpt3("gpt3-13b", 40, 5120, 40),
	gpt3("gpt3-175b", 96, 12288, 96),
	llama("llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096, srcLlama2),
	llama("llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096, srcLlama2),
	llama("llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096, srcLlama2),
	llama("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, srcLlama3),
	llama("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, srcLlama3),
	llama("llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192, srcLlama3),
	mixtral("mixtral-8x7b", 32, 4096, 32, 14336, 32000),
	mixtral("mixtral-8x22b", 56, 6144, 48, 16384, 32768),
	deepseek("deepseek-v2", 60, 5120, 1, 12288, 160, 6, 2, 1536, 102400, 0, srcDeepSeekV2),
	deepseek("deepseek-v3", 61, 7168, 3, 18432, 256, 8, 1, 2048, 129280, 1, srcDeepSeekV3),
}

// TransformerNames lists the architecture presets in catalogue order.
func TransformerNames() []string {
	out := make([]string, len(transformerPresets))
	for i := range transformerPresets {
		out[i] = transformerPresets[i].Name
	}
	return out
}

// TransformerPreset returns a copy of the architecture called name
// (case-insensitive).
func TransformerPreset(name string) (*Transformer, error) {
	for i := range transformerPresets {
		if strings.EqualFold(transformerPresets[i].Name, name) {
			t := transformerPresets[i]
			return &t, nil
		}
	}
	return nil, fmt.Errorf("unknown transformer %q (want one of %s)", name, strings.Join(TransformerNames(), ", "))
}
