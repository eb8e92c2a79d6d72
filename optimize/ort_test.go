package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestORTLowering runs -O3 --target ort on each pattern of
// modelgen.ORTPatterns and checks the operators written (the main graph's
// ops in order) and that the evaluator gives the original's outputs.
// cmd's TestORTTarget runs the same models in ONNX Runtime.
func TestORTLowering(t *testing.T) {
	want := map[string]string{
		"conv bias relu":                 "com.microsoft:FusedConv",
		"conv residual relu":             "Sigmoid com.microsoft:FusedConv",
		"conv clip":                      "com.microsoft:FusedConv",
		"conv leakyrelu opset 10":        "com.microsoft:FusedConv",
		"matmul bias relu":               "com.microsoft:FusedGemm",
		"matmul bias":                    "Gemm Reshape Tanh",
		"batched matmul scale":           "com.microsoft:FusedMatMul",
		"layernorm opset 13":             "LayerNormalization Relu",
		"residual layernorm":             "MatMul com.microsoft:SkipLayerNormalization Add",
		"matmul bias gelu erf opset 13":  "MatMul com.microsoft:BiasGelu Relu",
		"matmul bias gelu tanh opset 13": "MatMul com.microsoft:FastGelu Relu",
		"matmul bias gelu erf opset 20":  "MatMul com.microsoft:BiasGelu Relu",
		"rmsnorm":                        "SimplifiedLayerNormalization Relu",
		"silu":                           "MatMul com.microsoft:QuickGelu",
		"attention":                      "Mul Transpose com.microsoft:FusedMatMul Softmax MatMul",
	}
	orig, models := modelgen.ORTPatterns(), modelgen.ORTPatterns()
	for i, p := range models {
		t.Run(p.Name, func(t *testing.T) {
			m := p.Model
			ir.InferModel(orig[i].Model, ir.InferOptions{})
			ir.InferModel(m, ir.InferOptions{})
			res, err := Run(m, Options{Level: MaxLevel, Target: TargetORT, VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := opHistogram(m); got != want[p.Name] {
				t.Errorf("ops %q, want %q", got, want[p.Name])
			}
			ran := false
			for _, pr := range res.Passes {
				ran = ran || pr.Name == "ort"
			}
			if !ran {
				t.Error("the ort pass did not run")
			}
			if why := compareRuns(t, orig[i].Model, m, 5, 1e-4, 1e-5); why != "" {
				t.Fatalf("cannot compare: %s", why)
			}
		})
	}
}
