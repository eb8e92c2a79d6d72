package report

import (
	"testing"

	"github.com/wolong-dev/wolong/eval"
	"github.com/wolong-dev/wolong/pipeline"
)

// TestFromVerification: every field of pipeline's result reaches the
// report, each output's OK is its diff's, and the verdict counts the bad.
func TestFromVerification(t *testing.T) {
	res := &pipeline.Verification{Model: "a.onnx", Tolerance: eval.Tolerance{RTol: 1e-3, ATol: 1e-5}, Against: "b.onnx", Inputs: "random (seed 1)",
		Runtime: "ONNX Runtime", OK: false, Warnings: []string{"w"},
		Outputs: []pipeline.VerifiedOutput{
			{Name: "y", Type: "float32[2]", Diff: eval.Diff{MaxAbs: 0.5, MaxRel: 0.25, Mismatches: 1, Elements: 2}},
			{Name: "z", Type: "float32[2]", Diff: eval.Diff{Elements: 2}},
		}}
	v := FromVerification(res)
	if len(v.Models) != 1 || v.Models[0] != "a.onnx" || v.Against != "b.onnx" || v.Inputs != res.Inputs || v.RTol != 1e-3 || v.ATol != 1e-5 ||
		v.OK || len(v.Warnings) != 1 || v.Runtime != "ONNX Runtime" || len(v.Outputs) != 2 {
		t.Fatalf("%+v", v)
	}
	if o := v.Outputs[0]; o.OK || o.MaxAbsErr != 0.5 || o.MaxRelErr != 0.25 || o.Mismatches != 1 || o.Elements != 2 || !v.Outputs[1].OK {
		t.Errorf("outputs %+v", v.Outputs)
	}
	if got := v.Verdict(); got != "1 of 2 outputs differs" {
		t.Errorf("verdict %q", got)
	}
}
