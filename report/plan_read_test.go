package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func samplePlan() *Plan {
	return &Plan{
		Model: "m.onnx", Hardware: "h100", Level: 3, TotalMs: 0.25,
		Kernels: []PlanKernel{
			{Name: "fused_conv_0", Op: "wolong:FusedConv", Members: []string{"Conv_0", "Relu_0"}, TimeMs: 0.2, StartMs: 0.01, Bound: "compute", Kernels: 1},
			{Name: "Gemm_0", Op: "Gemm", Members: []string{"Gemm_0"}, TimeMs: 0.04, StartMs: 0.21, Bound: "memory", Kernels: 1},
		},
		Passes:      []PlanPass{{Name: "fuse", DeltaMs: 0.1, Rewrites: []string{"Conv_0 + Relu_0 -> fused_conv_0"}}, {Name: "cse", Rewrites: []string{}}},
		Assumptions: []string{"hardware h100"},
	}
}

func TestReadPlanRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, samplePlan()); err != nil {
		t.Fatal(err)
	}
	p, err := ReadPlan(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	WriteJSON(&again, p)
	if again.String() != buf.String() {
		t.Fatalf("round trip differs:\n%s\n%s", buf.String(), again.String())
	}
	var text bytes.Buffer
	if err := p.WriteText(&text, 1); err != nil {
		t.Fatal(err)
	}
	s := text.String()
	if !strings.Contains(s, "fused_conv_0") || strings.Contains(s, "Gemm_0") || !strings.Contains(s, "fuse") || strings.Contains(s, "cse") {
		t.Errorf("text: want the slowest kernel only and the passes that changed something:\n%s", s)
	}
}

func TestReadPlanErrors(t *testing.T) {
	good, _ := json.Marshal(samplePlan())
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "EOF"},
		{"not json", "plan?", "invalid"},
		{"unknown field", `{"model":"m","bogus":1}`, "unknown field"},
		{"trailing", string(good) + " {}", "trailing"},
		{"negative time", strings.Replace(string(good), `"time_ms":0.2`, `"time_ms":-1`, 1), "bad time_ms"},
		{"unnamed kernel", strings.Replace(string(good), `"name":"Gemm_0"`, `"name":""`, 1), "no name"},
		{"level", strings.Replace(string(good), `"level":3`, `"level":9`, 1), "level"},
	} {
		_, err := ReadPlan(strings.NewReader(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tc.name, err, tc.want)
		}
	}
}

// FuzzReadPlan: no input makes the plan reader panic, and whatever it
// accepts renders and re-reads.
func FuzzReadPlan(f *testing.F) {
	good, _ := json.Marshal(samplePlan())
	f.Add(good)
	f.Add([]byte(`{"model":"m","hardware":"cpu","level":0,"total_ms":0,"kernels":[],"passes":[],"assumptions":[]}`))
	f.Add([]byte(`{"kernels":[{"name":"k","members":null}],"placement":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadPlan(bytes.NewReader(data))
		if err != nil {
			return
		}
		var text, js bytes.Buffer
		if err := p.WriteText(&text, 10); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, p); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPlan(&js); err != nil {
			t.Fatalf("an accepted plan does not re-read: %v", err)
		}
	})
}
