package cmd

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/pipeline"
)

// TestORTTarget checks every operator --target ort writes against ONNX
// Runtime 1.30: each model of modelgen.ORTPatterns is emitted with
// `optimize --target ort`, must hold the ORT operator its pattern becomes
// (optimize's TestORTLowering checks the whole op list), and must load and
// run in ORT with the original's outputs (verify's tolerances).
func TestORTTarget(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: ONNX Runtime runs under Node.js")
	}
	h, err := pipeline.OpenORT(nil)
	if err != nil {
		t.Skipf("ONNX Runtime harness: %v", err)
	}
	wantOp := map[string]string{
		"conv bias relu": "com.microsoft:FusedConv", "conv residual relu": "com.microsoft:FusedConv",
		"conv clip": "com.microsoft:FusedConv", "conv leakyrelu opset 10": "com.microsoft:FusedConv",
		"matmul bias relu": "com.microsoft:FusedGemm", "matmul bias": "Gemm", "batched matmul scale": "com.microsoft:FusedMatMul",
		"layernorm opset 13": "LayerNormalization", "residual layernorm": "com.microsoft:SkipLayerNormalization",
		"matmul bias gelu erf opset 13": "com.microsoft:BiasGelu", "matmul bias gelu tanh opset 13": "com.microsoft:FastGelu",
		"matmul bias gelu erf opset 20": "com.microsoft:BiasGelu", "rmsnorm": "SimplifiedLayerNormalization",
		"silu": "com.microsoft:QuickGelu", "attention": "com.microsoft:FusedMatMul",
	}
	dir := t.TempDir()
	var runs []pipeline.ORTModel
	for i, p := range modelgen.ORTPatterns() {
		m := p.Model
		ir.InferModel(m, ir.InferOptions{})
		orig := filepath.Join(dir, strings.ReplaceAll(p.Name, " ", "_")+".onnx")
		if err := importer.WriteFile(m, orig); err != nil {
			t.Fatal(err)
		}
		out := strings.TrimSuffix(orig, ".onnx") + ".ort.onnx"
		if _, errs, code := run("optimize", orig, "--target", "ort", "--hw", "cpu-1t", "--emit-onnx", out); code != 0 {
			t.Fatalf("%s: optimize --target ort: %s", p.Name, errs)
		}
		back, err := importer.Load(out, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, n := range back.Graph.Nodes {
			found = found || n.QualifiedOp() == wantOp[p.Name]
		}
		back.Close()
		if !found {
			t.Errorf("%s: the emitted model has no %s", p.Name, wantOp[p.Name])
		}
		v, err := eval.RandomTensor(eval.NewRand(uint32(i+1)), ir.Float32, shapeInts(m.Graph.Inputs[0].Type.Shape), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		in := map[string]eval.Value{"x": v}
		runs = append(runs, pipeline.ORTModel{Path: orig, Graph: m.Graph, Inputs: in}, pipeline.ORTModel{Path: out, Graph: m.Graph, Inputs: in})
	}
	outs, err := pipeline.RunInORT(h, runs, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(runs); i += 2 {
		want, got := outs[i], outs[i+1]
		name := filepath.Base(runs[i+1].Path)
		if want.Err != "" || got.Err != "" {
			t.Errorf("%s: ONNX Runtime: original %q, emitted %q", name, want.Err, got.Err)
			continue
		}
		for j := range want.Outputs {
			if d := eval.Compare(got.Outputs[j], want.Outputs[j], eval.DefaultTolerance); !d.OK() {
				t.Errorf("%s: output %d differs in ONNX Runtime: max abs %.3g, max rel %.3g %s", name, j, d.MaxAbs, d.MaxRel, d.Problem)
			}
		}
	}
}

func shapeInts(s ir.Shape) []int {
	out := make([]int, len(s.Dims))
	for i, d := range s.Dims {
		out[i] = int(d.Val)
	}
	return out
}
