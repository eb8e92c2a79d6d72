package ortbench

import (
	"context"
	"encoding/binary"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestRunModels opens the harness (installing onnxruntime-node into the
// user's cache the first time: .ci/run runs this test for that) and runs
// Relu on [-1.5, 2] and a model ONNX Runtime refuses, in one process:
// outputs come back element for element, the refusal as the model's
// error.
func TestRunModels(t *testing.T) {
	h := openHarness(t)
	dir := t.TempDir()
	good := writeRelu(t, dir, 2)
	c := modelgen.New("custom", 13)
	c.Output(c.Op("Relu", []*ir.Value{c.Input("x", ir.Float32, 2)}))
	c.M.Graph.Nodes[0].Domain = "com.example"
	c.M.Opsets = append(c.M.Opsets, ir.OpsetID{Domain: "com.example", Version: 1})
	bad := filepath.Join(dir, "custom.onnx")
	if err := importer.WriteFile(c.Model(), bad); err != nil {
		t.Fatal(err)
	}
	raw := binary.LittleEndian.AppendUint32(nil, math.Float32bits(-1.5))
	raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(2))
	in, err := WriteInput(dir, "x", &ir.Tensor{DType: ir.Float32, Dims: []int64{2}, Raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.RunModels(context.Background(), dir, []RunJob{
		{Model: good, Inputs: []RunInput{in}, Out: "good"},
		{Model: bad, Inputs: []RunInput{in}, Out: "bad"},
	}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Error != "" || len(res[0].Outputs) != 1 {
		t.Fatalf("relu: %+v", res[0])
	}
	out, err := res[0].Tensor(res[0].Outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	got := []float32{math.Float32frombits(binary.LittleEndian.Uint32(out.Raw)), math.Float32frombits(binary.LittleEndian.Uint32(out.Raw[4:]))}
	if out.DType != ir.Float32 || len(out.Dims) != 1 || out.Dims[0] != 2 || got[0] != 0 || got[1] != 2 {
		t.Errorf("relu gave %s%v %v, want float32[2] [0 2]", out.DType, out.Dims, got)
	}
	if !strings.Contains(res[1].Error, "com.example") {
		t.Errorf("custom op: error %q, want ORT's refusal naming the domain", res[1].Error)
	}
}

// openHarness opens the harness (installing onnxruntime-node into the
// user's cache the first time), or skips the test where node is absent.
func openHarness(t *testing.T) *Harness {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: ONNX Runtime runs under Node.js")
	}
	h, err := Open(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// writeRelu writes a Relu over a float32 [n] input x into dir/relu.onnx.
func writeRelu(t *testing.T, dir string, n int) string {
	t.Helper()
	b := modelgen.New("relu", 13)
	b.Output(b.Op("Relu", []*ir.Value{b.Input("x", ir.Float32, n)}))
	p := filepath.Join(dir, "relu.onnx")
	if err := importer.WriteFile(b.Model(), p); err != nil {
		t.Fatal(err)
	}
	return p
}
