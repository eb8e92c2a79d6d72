package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/llm"
)

func llmCluster(t *testing.T, machines int) *cluster.Cluster {
	t.Helper()
	gpu, err := cluster.GPUPreset("h100")
	if err != nil {
		t.Fatal(err)
	}
	net, err := cluster.NetworkPreset("ib-ndr")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(machines, 8, gpu, net)
	if err != nil {
		t.Fatal(err)
	}
	c.NICsPerMachine = 8
	return c
}

// TestLLMProfile: the training report's text names the layout, the step's
// parts, MFU with its peak, the communication kinds and the memory parts
// with the verdict; its JSON carries the fields the issue names.
func TestLLMProfile(t *testing.T) {
	tr, _ := llm.TransformerPreset("llama3-70b")
	c := llmCluster(t, 8)
	s, err := llm.SearchLLM(tr, c, llm.SearchOptions{Base: llm.LLMOptions{GlobalBatch: 64}, Top: 3, TP: []int{8}, PP: []int{2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	p := NewLLMSearchProfile(c, s, []string{"from the command"}, []string{"import warning"})
	var b bytes.Buffer
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Cluster: 8x8 h100, ib-ndr (64 GPUs, 8 per NVLink domain, 8 NIC(s) per machine)",
		"Layout: tp 8 pp ", "Batch: 64 sequences of 8192 tokens per step",
		"│ compute (heaviest stage) │", "│ pipeline bubble", "│ optimizer",
		"MFU ", "of the bf16 dense 989.4 TFLOP/s (h100)",
		"│ tp   │ 8     │ 1", "│ pp ",
		"Memory per GPU (stage ", "fits\n", "│ weights ", "│ optimizer states ", "│ activations ",
		"layouts predicted", "the next fastest:",
		"  - from the command\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "import warning") {
		t.Error("the text repeats the warnings (stderr's)")
	}
	b.Reset()
	if err := WriteJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tp", "pp", "dp", "ep", "cp", "mfu", "hfu", "peak", "tokens_per_s", "tokens_per_s_per_gpu", "step_ms", "comm", "search", "zero", "recompute"} {
		if _, ok := d[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	m, _ := d["memory_per_gpu"].(map[string]any)
	for _, k := range []string{"weights_gb", "gradients_gb", "optimizer_gb", "activations_gb", "comm_buffers_gb", "runtime_gb", "total_gb", "capacity_gb", "fits"} {
		if _, ok := m[k]; !ok {
			t.Errorf("memory_per_gpu lacks %q: %v", k, m)
		}
	}
	if d["tp"] != 8.0 || m["fits"] != true {
		t.Errorf("tp %v, fits %v", d["tp"], m["fits"])
	}
	// nothing fits: the smallest layout, marked
	small, err := llm.SearchLLM(tr, llmCluster(t, 1), llm.SearchOptions{Base: llm.LLMOptions{GlobalBatch: 8}, TP: []int{8}})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := NewLLMSearchProfile(llmCluster(t, 1), small, nil, nil).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "DOES NOT FIT") || !strings.Contains(b.String(), ", 0 fit") {
		t.Errorf("no fitting layout: %s", b.String())
	}
}

// TestServeProfile: the serving report's text and JSON.
func TestServeProfile(t *testing.T) {
	tr, _ := llm.TransformerPreset("llama3-70b")
	r, err := llm.SimulateServe(tr, llmCluster(t, 1), llm.ServeOptions{TP: 8, Batch: 16})
	if err != nil {
		t.Fatal(err)
	}
	p := NewServeProfile(r, []string{"from the command"}, nil)
	var b bytes.Buffer
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Serving: 8 h100 as 1 replica(s) of tp 8, bfloat16; batch 16, 1024 prompt + 256 output tokens",
		"time to first token", "time per output token", "tokens/s per GPU", "│ kv cache ", "largest batch that fits"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ttft_ms", "tpot_ms", "tokens_per_s", "tokens_per_s_per_gpu", "memory_per_gpu", "tp", "max_batch"} {
		if _, ok := d[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
}
