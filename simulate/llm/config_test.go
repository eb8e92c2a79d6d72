package llm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gptNeoX20B is GPT-NeoX-20B's published config (Black et al., 'GPT-NeoX-20B:
// An Open-Source Autoregressive Language Model', arXiv:2204.06745, Table 1:
// 44 layers, hidden 6144, 64 heads, vocabulary 50432 (padded), 2048
// context; rotary positions, untied embeddings, biases).
const gptNeoX20B = `{"name": "gpt-neox-20b", "layers": 44, "hidden": 6144, "heads": 64, "ffn": 24576,
 "vocab": 50432, "seq": 2048, "bias": true}`

func TestReadTransformer(t *testing.T) {
	tr, err := ReadTransformer(strings.NewReader(gptNeoX20B))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Name != "gpt-neox-20b" || tr.Layers != 44 || tr.Hidden != 6144 || tr.KVHeads != 64 || tr.FFN != 24576 || !tr.Bias || tr.Gated {
		t.Errorf("decoded %+v", tr)
	}
	if p := tr.Params(); p < 19.5e9 || p > 21e9 {
		t.Errorf("GPT-NeoX-20B: %.2fB parameters, published 20.6B", p/1e9)
	}
	for _, bad := range []struct{ json, want string }{
		{`{"layers": 2, "hidden": 64, "heads": 4, "kv_head": 2, "ffn": 128, "vocab": 100, "seq": 16}`, "unknown field"},
		{`{"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 3, "ffn": 128, "vocab": 100, "seq": 16}`, "kv heads 3 must divide heads 4"},
		{`{"layers": 0, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100, "seq": 16}`, "layers"},
		{`{"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100, "seq": 16} {}`, "trailing data"},
		{`{"layers": "two"}`, "cannot unmarshal"},
		{`{"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100, "seq": 16, "name": "` + strings.Repeat("x", maxConfigBytes) + `"}`, "larger than"},
	} {
		if _, err := ReadTransformer(strings.NewReader(bad.json)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%.60s: error %v, want one saying %q", bad.json, err, bad.want)
		}
	}
}

func TestArchitecture(t *testing.T) {
	if tr, err := Architecture("Llama3-8B"); err != nil || tr.Name != "llama3-8b" {
		t.Errorf("preset: %v, %v", tr, err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "neox.json")
	cfg := strings.Replace(gptNeoX20B, `"name": "gpt-neox-20b", `, "", 1)
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Architecture(p)
	if err != nil || tr.Name != "neox" || tr.Layers != 44 {
		t.Errorf("config file: %+v, %v (want the file's name for a config without one)", tr, err)
	}
	if _, err := Architecture(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing config file: no error")
	}
	if _, err := Architecture("no-such-model"); err == nil || !strings.Contains(err.Error(), "llama3-8b") {
		t.Errorf("an unknown preset: %v (want the list of presets)", err)
	}
}
