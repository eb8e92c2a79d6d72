package cmd

import (
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestShapesInferredOnce counts the shape inferences (ir.Inferences) and
// model loads (loadHook) each command makes of its model: one load and
// one inference per model, whatever the shape flags, defaulted symbolic
// dims, --batch, -O or --cluster ask for (before, five commands re-inferred
// to default symbolic dims and simulate re-inferred for --batch).
// --emit-onnx, which writes other graphs, is TestEmitONNXLoadsOnce.
func TestShapesInferredOnce(t *testing.T) {
	models := shared(t, "models")
	fixed := filepath.Join(models, "cnn", "mnist_cntk_opset7.onnx")
	symbolic := filepath.Join(models, "cnn", "pytorch_super_resolution.onnx") // input [batch_size,1,224,224]
	profile := filepath.Join("..", "testdata", "measured", "cpu", "cnn__mnist_cntk_opset7.profile.json")
	dir := t.TempDir()
	for _, tc := range []struct {
		args          []string
		loads, infers int
	}{
		{[]string{"inspect", fixed}, 1, 1},
		{[]string{"inspect", symbolic, "--dim", "batch_size=2"}, 1, 1},
		{[]string{"microbench", symbolic}, 1, 1},
		{[]string{"profile", symbolic}, 1, 1},
		{[]string{"profile", symbolic, "--batch", "4", "--hw", "cpu-1t"}, 1, 1},
		{[]string{"profile", fixed, "-O3"}, 1, 1},
		{[]string{"profile", symbolic, "--cluster", "1x2", "--mode", "inference"}, 1, 1},
		{[]string{"optimize", symbolic, "--batch", "2"}, 1, 1},
		{[]string{"optimize", fixed, "-o", filepath.Join(dir, "plan.json")}, 1, 1},
		{[]string{"explain", fixed, "--pass", "fuse"}, 1, 1},
		{[]string{"validate", fixed, "--ort-profile", profile, "--hw", "cpu-1t"}, 1, 1},
		{[]string{"run", fixed, "-o", filepath.Join(dir, "out")}, 1, 1},
		{[]string{"verify", fixed, fixed}, 2, 2},
	} {
		loads, infers := 0, 0
		loadHook = func(*ir.Model) { loads++ }
		before := ir.Inferences()
		_, stderr, code := run(tc.args...)
		infers = int(ir.Inferences() - before)
		loadHook = nil
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
			continue
		}
		if loads != tc.loads || infers != tc.infers {
			t.Errorf("%v: %d loads, %d inferences; want %d and %d", tc.args, loads, infers, tc.loads, tc.infers)
		}
	}
}

// TestEmitONNXLoadsOnce: --emit-onnx writes the model optimize optimized
// without reading the file again; with the shapes specialized (a defaulted
// batch_size) it optimizes a copy of the loaded model with them kept
// symbolic (pipeline.Exportable). What it writes is typed twice more by
// the exporter, graphs of their own: the copy optimize.ToONNX rewrites,
// and the written file read back by importer's check.
func TestEmitONNXLoadsOnce(t *testing.T) {
	models := shared(t, "models")
	dir := t.TempDir()
	for _, tc := range []struct {
		model  string
		infers int
	}{
		// the command's, the exporter's two
		{filepath.Join(models, "cnn", "mnist_cntk_opset7.onnx"), 3},
		// and the generic copy's, and its prediction at the defaulted batch_size
		{filepath.Join(models, "cnn", "pytorch_super_resolution.onnx"), 5},
	} {
		loads, infers := 0, 0
		loadHook = func(*ir.Model) { loads++ }
		before := ir.Inferences()
		_, stderr, code := run("optimize", tc.model, "--emit-onnx", filepath.Join(dir, filepath.Base(tc.model)))
		infers = int(ir.Inferences() - before)
		loadHook = nil
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.model, code, stderr)
		}
		if loads != 1 || infers != tc.infers {
			t.Errorf("%s: %d loads, %d inferences; want 1 and %d", tc.model, loads, infers, tc.infers)
		}
	}
}
