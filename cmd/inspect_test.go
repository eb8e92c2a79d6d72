package cmd

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func shared(t *testing.T, parts ...string) string {
	p := filepath.Join(append([]string{"..", "..", "shared"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skip("../shared not present")
	}
	return p
}

// run calls Main and returns stdout, stderr and the exit status.
func run(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return out.String(), errb.String(), code
}

// TestPublishedMACs compares inspect's MAC count on the light_* zoo models
// with figures published for the same architectures (within 5%).
func TestPublishedMACs(t *testing.T) {
	for _, tc := range []struct {
		model  string
		extra  []string
		macs   float64
		source string
	}{
		// Sze, Chen, Yang, Emer, "Efficient Processing of Deep Neural Networks: A Tutorial and
		// Survey", Proc. IEEE 2017, Table III: AlexNet 724M MACs at a 227x227 input (the
		// Caffe model; the ONNX file declares 224, so the test gives 227 as the paper does).
		{"light_bvlc_alexnet.onnx", []string{"--input", "data_0=1x3x227x227", "--force-input"}, 724e6, "Sze et al. 2017, Table III"},
		// Same table: GoogLeNet (Inception v1) 1.43G MACs.
		{"light_inception_v1.onnx", nil, 1.43e9, "Sze et al. 2017, Table III"},
		// He, Zhang, Ren, Sun, "Deep Residual Learning", CVPR 2016, Table 1 / Sec. 4.1:
		// VGG-19 19.6 billion FLOPs (multiply-adds).
		{"light_vgg19.onnx", nil, 19.6e9, "He et al. 2016, Sec. 4.1"},
		// torchvision model documentation (ResNet50_Weights.IMAGENET1K_V1: 4.09 GFLOPS, counted
		// as multiply-adds by fvcore); He et al. 2016 give 3.8G for the convolutions alone.
		{"light_resnet50.onnx", nil, 4.09e9, "torchvision docs, ResNet50_Weights"},
		// torchvision docs: DenseNet121_Weights.IMAGENET1K_V1, 2.83 GFLOPS (multiply-adds).
		{"light_densenet121.onnx", nil, 2.83e9, "torchvision docs, DenseNet121_Weights"},
		// torchvision docs: SqueezeNet1_1_Weights.IMAGENET1K_V1, 0.35 GFLOPS (multiply-adds);
		// the zoo model is SqueezeNet 1.1 (1.235 M parameters).
		{"light_squeezenet.onnx", nil, 0.35e9, "torchvision docs, SqueezeNet1_1_Weights"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			args := append([]string{"inspect", shared(t, "onnx-node-tests", "light", tc.model), "--format", "json"}, tc.extra...)
			out, errs, code := run(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var r struct {
				MACs  *float64 `json:"macs"`
				FLOPs *float64 `json:"flops"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if r.MACs == nil || r.FLOPs == nil {
				t.Fatalf("MACs unknown")
			}
			if *r.FLOPs != 2**r.MACs {
				t.Errorf("FLOPs %v != 2 x MACs %v", *r.FLOPs, *r.MACs)
			}
			if d := math.Abs(*r.MACs-tc.macs) / tc.macs; d > 0.05 {
				t.Errorf("MACs %.4g, published %.4g (%s): off by %.1f%%", *r.MACs, tc.macs, tc.source, 100*d)
			}
		})
	}
}

// TestInspectSharedModels: every shared model inspects without error, and
// the JSON has the documented fields.
func TestInspectSharedModels(t *testing.T) {
	root := shared(t, "models")
	var files []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".onnx") {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		out, errs, code := run("inspect", f, "--format", "json")
		if code != 0 {
			t.Errorf("%s: exit %d: %s", f, code, errs)
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, k := range []string{"ir_version", "opsets", "inputs", "outputs", "nodes", "ops", "params", "param_bytes", "flops", "warnings"} {
			if _, ok := r[k]; !ok {
				t.Errorf("%s: JSON lacks %q", f, k)
			}
		}
		if _, _, code := run("inspect", f, "--nodes"); code != 0 {
			t.Errorf("%s: inspect --nodes failed", f)
		}
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.onnx")
	os.WriteFile(bad, []byte("not a model at all"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"inspect"}, 2},
		{[]string{"inspect", "a", "b"}, 2},
		{[]string{"inspect", "--bogus", bad}, 2},
		{[]string{"inspect", bad, "--format", "xml"}, 2},
		{[]string{"inspect", bad, "--dim", "N"}, 2},
		{[]string{"nosuchcommand"}, 2},
		{[]string{"inspect", bad}, 1},
		{[]string{"inspect", filepath.Join(dir, "missing.onnx")}, 1},
		{[]string{"--version"}, 0},
	} {
		_, errs, code := run(tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errs)
		}
		if code != 0 && (strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "wolong: ")) {
			t.Errorf("%v: stderr %q is not one 'wolong: ...' line", tc.args, errs)
		}
	}
}
