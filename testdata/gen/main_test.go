package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// TestWriteLLM: -llm writes a model that imports with its weights in the
// sparse external-data file beside it (declared, not on disk), reads back
// as the architecture it was written from, and refuses unknown presets.
func TestWriteLLM(t *testing.T) {
	dir := t.TempDir()
	if err := writeLLM(dir, "gpt3-125m", 256); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "gpt3-125m.onnx")
	st, err := os.Stat(p + ".data")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := llm.TransformerPreset("gpt3-125m")
	// bfloat16: 2 bytes a parameter (within 5%: the position table is
	// written for the sequence asked for)
	if r := float64(st.Size()) / (2 * want.Params()); r < 0.95 || r > 1.05 {
		t.Errorf("data file declares %d bytes for %.0f parameters", st.Size(), want.Params())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Blocks*512 > st.Size()/10 {
		t.Errorf("data file takes %d bytes of disk for %d declared: not sparse", sys.Blocks*512, st.Size())
	}
	m, err := importer.Load(p, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ir.InferModel(m, ir.InferOptions{})
	got, err := llm.TransformerOf(m)
	if err != nil {
		t.Fatal(err)
	}
	if got.Layers != want.Layers || got.Hidden != want.Hidden || got.Heads != want.Heads || got.Seq != 256 {
		t.Errorf("read back %+v, want %d layers, hidden %d, %d heads, seq 256", got, want.Layers, want.Hidden, want.Heads)
	}
	if err := writeLLM(dir, "gpt5", 0); err == nil || !strings.Contains(err.Error(), "unknown transformer") {
		t.Errorf("unknown preset: %v", err)
	}
}

// TestWriteWide: -wide N writes a model of about N nodes that imports,
// and refuses counts out of range.
func TestWriteWide(t *testing.T) {
	dir := t.TempDir()
	if err := writeWide(dir, 1000); err != nil {
		t.Fatal(err)
	}
	m, err := importer.Load(filepath.Join(dir, "wide_1000.onnx"), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if n := len(m.Graph.Nodes); n < 1000 || n > 1010 {
		t.Errorf("wide_1000.onnx has %d nodes, want about 1000", n)
	}
	for _, n := range []int{0, -1, 10_000_001} {
		if err := writeWide(dir, n); err == nil || !strings.Contains(err.Error(), "node count") {
			t.Errorf("-wide %d: %v", n, err)
		}
	}
}
