package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestWriteVerify(t *testing.T) {
	v := &Verify{
		Models: []string{"a.onnx"}, Against: "b.onnx", Inputs: "random (seed 1)", RTol: 1e-4, ATol: 1e-5,
		Outputs: []VerifyOutput{
			{Name: "y", Type: "float32[2]", MaxAbsErr: 1e-7, Elements: 2, OK: true},
			{Name: "z", Type: "float32[3]", MaxAbsErr: 0.5, MaxRelErr: 0.25, Mismatches: 1, Elements: 3},
			{Name: "w", Type: "int64[1]", MaxAbsErr: math.Inf(1), Problem: "got shape [2], want [1]"},
		},
	}
	tests := []struct {
		name   string
		format Format
		want   []string
	}{
		{"table", Table, []string{"max abs err", "y", "float32[2]", "1e-07", "MISMATCH (1 of 3 elements)", "MISMATCH: got shape [2], want [1]", "2 of 3 outputs differ"}},
		{"json", JSON, []string{`"name": "z"`, `"max_abs_err": 0.5`, `"max_abs_err": -1`, `"problem": "got shape [2], want [1]"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteVerify(&b, v, tc.format); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			if tc.format == JSON {
				var back Verify
				if err := json.Unmarshal(b.Bytes(), &back); err != nil {
					t.Fatalf("invalid JSON: %v", err)
				}
				if len(back.Outputs) != 3 || back.Outputs[1].Mismatches != 1 {
					t.Errorf("round trip lost data: %+v", back.Outputs)
				}
			}
		})
	}
}
