package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sharedModel(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{"..", "..", "shared", "models"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skip("../shared/models absent")
	}
	return p
}

// TestSubgraphWeightsAndBranchTaken (issue 26 items 3, 10): silero v5
// keeps its weights in Constant nodes inside If branches. profile counts
// them as inspect does (both branches when the condition is not known,
// saying so), only the taken branch's with --fill sr=16000, and warns of
// nothing in the branch not taken; run with the same fill warns of
// nothing either.
func TestSubgraphWeightsAndBranchTaken(t *testing.T) {
	model := sharedModel(t, "rnn", "silero_vad_v5.onnx")
	type prof struct {
		WeightBytes float64  `json:"weight_bytes"`
		Assumptions []string `json:"assumptions"`
	}
	get := func(args ...string) (prof, string) {
		t.Helper()
		out, errs, code := run(append([]string{"profile", model, "--input", "input=1x512", "--input", "state=2x1x128", "--format", "json"}, args...)...)
		var p prof
		if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
			t.Fatalf("profile %v: exit %d: %s", args, code, errs)
		}
		return p, errs
	}
	both, _ := get()
	taken, errs := get("--fill", "sr=16000")
	if both.WeightBytes < 2e6 || !strings.Contains(strings.Join(both.Assumptions, "\n"), "both branches") {
		t.Errorf("condition unknown: weights %.0f B (inspect: 2.08 MiB), assumptions %q", both.WeightBytes, both.Assumptions)
	}
	if taken.WeightBytes < 1e6 || taken.WeightBytes >= both.WeightBytes {
		t.Errorf("--fill sr=16000: weights %.0f B, both branches %.0f B", taken.WeightBytes, both.WeightBytes)
	}
	if strings.Contains(errs, "warning") {
		t.Errorf("--fill sr=16000: warnings about the branch not taken:\n%s", errs)
	}
	_, errs, code := run("run", model, "--input", "input=1x512", "--input", "state=2x1x128", "--fill", "sr=16000", "-o", t.TempDir())
	if code != 0 || strings.Contains(errs, "warning") {
		t.Errorf("run --fill sr=16000: exit %d, stderr:\n%s", code, errs)
	}
	if _, errs, code := run("profile", model, "--fill", "nope=1"); code != 2 || !strings.Contains(errs, "no input nope") {
		t.Errorf("--fill of no input: exit %d, %q", code, errs)
	}
}

// TestOneWarningPerCause (issue 26 item 10): a shape a batch contradicts
// is warned of once, not once for the node and once for the value.
func TestOneWarningPerCause(t *testing.T) {
	model := sharedModel(t, "cnn", "ultraface_version-RFB-320.onnx")
	_, errs, code := run("profile", model, "--batch", "8")
	if code != 0 || strings.Count(errs, `"scores"`) != 1 || strings.Count(errs, `"boxes"`) != 1 {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
}

// TestEvalDefaultsDims (issue 26 item 7): run and verify set the symbolic
// dims --dim and --input leave open to 1, as profile does, and say so.
func TestEvalDefaultsDims(t *testing.T) {
	model := filepath.Join("..", "testdata", "models", "sample_cnn.onnx") // input [N,3,32,32]: cheap to evaluate
	_, errs, code := run("run", model, "-o", t.TempDir())
	if code != 0 || !strings.Contains(errs, "set to 1 (as profile sets them): N=1") {
		t.Errorf("run: exit %d, stderr %q", code, errs)
	}
	_, errs, code = run("verify", model, model)
	if code != 0 || !strings.Contains(errs, "N=1") {
		t.Errorf("verify: exit %d, stderr %q", code, errs)
	}
	if _, errs, code := run("run", model, "--dim", "N=2", "-o", t.TempDir()); code != 0 || strings.Contains(errs, "set to 1") {
		t.Errorf("run --dim: exit %d, stderr %q", code, errs)
	}
}

// TestBatchAgainstFixedReshape (issue 26 item 4): a --batch that a fixed
// Reshape target contradicts is propagated where the target's leading 1
// is the batch (costed at the batch, said in the assumptions), refused
// (exit 2) where it is not; never silently mixed.
func TestBatchAgainstFixedReshape(t *testing.T) {
	vgg := filepath.Join("..", "..", "shared", "onnx-node-tests", "light", "light_vgg19.onnx")
	if _, err := os.Stat(vgg); err != nil {
		t.Skip("../shared/onnx-node-tests absent")
	}
	flops := func(args ...string) (float64, []string) {
		out, errs, code := run(append([]string{"profile", vgg, "--format", "json"}, args...)...)
		var p struct {
			FLOPs       float64  `json:"flops"`
			Assumptions []string `json:"assumptions"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
			t.Fatalf("profile %v: exit %d: %s", args, code, errs)
		}
		return p.FLOPs, p.Assumptions
	}
	one, _ := flops()
	b64, as := flops("--batch", "64")
	if r := b64 / one; r < 63.9 || r > 64.1 || !strings.Contains(strings.Join(as, "\n"), "read as [64,25088]") {
		t.Errorf("--batch 64: %.4g FLOP vs %.4g at batch 1 (x%.2f, want x64); assumptions %q", b64, one, b64/one, as)
	}
	det := sharedModel(t, "cnn", "fastestdet_yolo_like.onnx")
	if _, errs, code := run("profile", det, "--batch", "4"); code != 2 || !strings.Contains(errs, "cannot take this batch") || strings.Count(errs, "\n") != 1 {
		t.Errorf("fastestdet --batch 4: exit %d, %q", code, errs)
	}
}

// TestQuantizedOnInt8Units (issue 26 item 6): a QOperator model's
// QLinearConv / QLinearMatMul are costed on a GPU's int8 units and the
// profile says int8; on the CPU presets they keep the fp32 rate the
// presets were fitted with (simulate/cost/int8.go says why).
func TestQuantizedOnInt8Units(t *testing.T) {
	model := sharedModel(t, "quant", "mobilenetv2-7-quantized_qlinear.onnx")
	for _, tc := range []struct{ hw, dtype string }{{"h100", "int8"}, {"v100", "int8"}, {"a100", "int8"}, {"cpu-1t", "float32"}} {
		out, errs, code := run("profile", model, "--hw", tc.hw, "--format", "json")
		var p struct {
			DType string  `json:"dtype"`
			Peak  float64 `json:"peak_tflops"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &p) != nil || p.DType != tc.dtype {
			t.Errorf("%s: exit %d (%s), dtype %q, want %s", tc.hw, code, errs, p.DType, tc.dtype)
		}
	}
}
