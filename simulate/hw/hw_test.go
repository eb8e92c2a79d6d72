package hw

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

func TestPresetsPresent(t *testing.T) {
	for _, name := range []string{"v100", "a100", "h100", "h200", "cpu"} {
		t.Run(name, func(t *testing.T) {
			h, err := Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Sources) == 0 {
				t.Errorf("%s cites no sources", name)
			}
			if len(h.Assumptions) == 0 {
				t.Errorf("%s states no assumptions", name)
			}
		})
	}
}

// Datasheet figures, copied here independently of presets.json so that a
// typo there fails: dense tensor-core bf16 TFLOP/s and memory bandwidth.
func TestDatasheetFigures(t *testing.T) {
	tests := []struct {
		name   string
		bf16   float64 // dense; 0 = none
		fp16   float64
		bwGBs  float64
		memGB  float64
		sms    int
		source string
	}{
		{"v100", 0, 125, 900, 32, 80, "Tesla V100 datasheet (SXM2)"},
		{"a100", 312, 312, 2039, 80, 108, "A100 datasheet (80GB SXM)"},
		{"h100", 989.4, 989.4, 3350, 80, 132, "H100 datasheet (SXM), sparse 1,979 / 2"},
		{"h200", 989.4, 989.4, 4800, 141, 132, "H200 datasheet (SXM), sparse 1,979 / 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Preset(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if h.PeakTFLOPS.BF16 != tc.bf16 || h.PeakTFLOPS.FP16 != tc.fp16 || h.MemoryBandwidthGBs != tc.bwGBs || h.MemoryGB != tc.memGB || h.SMs != tc.sms {
				t.Errorf("%s: have bf16 %v fp16 %v bw %v mem %v sms %d; want %v %v %v %v %d (%s)", tc.name,
					h.PeakTFLOPS.BF16, h.PeakTFLOPS.FP16, h.MemoryBandwidthGBs, h.MemoryGB, h.SMs,
					tc.bf16, tc.fp16, tc.bwGBs, tc.memGB, tc.sms, tc.source)
			}
		})
	}
}

func TestPeakFallback(t *testing.T) {
	v100, _ := Preset("v100")
	h200, _ := Preset("h200")
	tests := []struct {
		name     string
		h        *Hardware
		dt       ir.DType
		mode     MathMode
		tf32     bool
		want     float64
		wantNote bool
	}{
		{"h200 bf16", h200, ir.BFloat16, Tensor, false, 989.4e12, false},
		{"h200 fp32 no tf32", h200, ir.Float32, Tensor, false, 67e12, false},
		{"h200 fp32 tf32", h200, ir.Float32, Tensor, true, 494.7e12, false},
		{"h200 vector", h200, ir.BFloat16, Vector, false, 67e12, false},
		{"v100 bf16 runs as fp32 (no bf16 units; fp16 would overflow its range)", v100, ir.BFloat16, Tensor, false, 15.7e12, true},
		{"v100 tf32 falls back to fp32", v100, ir.Float32, Tensor, true, 15.7e12, true},
		{"v100 fp16 on the CUDA cores: half2", v100, ir.Float16, Vector, false, 31.4e12, false},
		{"h200 fp16 vector without fp16_vector: fp32 rate", h200, ir.Float16, Vector, false, 67e12, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, note := tc.h.PeakFLOPS(tc.dt, tc.mode, tc.tf32)
			if d := got/tc.want - 1; d > 1e-9 || d < -1e-9 {
				t.Errorf("peak = %g, want %g", got, tc.want)
			}
			if (note != "") != tc.wantNote {
				t.Errorf("note = %q, want note: %v", note, tc.wantNote)
			}
		})
	}
}

func TestLoadRoundTrip(t *testing.T) {
	h, _ := Preset("h100")
	h.Name = "mine"
	h.Efficiency.MatMul.Compute = 0.5
	var buf bytes.Buffer
	if err := h.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mine.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := Resolve(path)
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "mine" || g.Efficiency.MatMul.Compute != 0.5 || g.MemoryBandwidthGBs != 3350 {
		t.Errorf("round trip lost data: %+v", g)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, body, want string
	}{
		{"unknown field", `{"name":"x","bogus":1}`, "bogus"},
		{"not json", `{`, "unexpected EOF"},
		{"zero bandwidth", `{"name":"x","kind":"gpu","peak_tflops":{"fp32":1},"memory_gb":1,"sms":1}`, "memory_bandwidth_gbs"},
		{"bad efficiency", `{"name":"x","kind":"gpu","peak_tflops":{"fp32":1},"memory_gb":1,"memory_bandwidth_gbs":1,"sms":1,"efficiency":{"matmul":{"compute":2}}}`, "efficiency.matmul.compute"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			os.WriteFile(p, []byte(tc.body), 0o644)
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := Preset("tpu"); err == nil || !strings.Contains(err.Error(), "h200") {
		t.Errorf("unknown preset: err = %v", err)
	}
}

// TestHostFieldsValidated: the executor and cache fields must be finite
// and non-negative.
func TestHostFieldsValidated(t *testing.T) {
	for _, set := range []func(h *Hardware){
		func(h *Hardware) { h.RunOverheadUs = -1 },
		func(h *Hardware) { h.AllocUsPerMB = math.Inf(1) },
		func(h *Hardware) { h.FreeNodeUs = math.NaN() },
		func(h *Hardware) { h.CacheBandwidthGBs = -5 },
		func(h *Hardware) { h.MemoryBandwidthGBs = math.Inf(1) },
		func(h *Hardware) { h.TensorCoreAlign = -8 },
		func(h *Hardware) { h.PeakTFLOPS.FP16Vector = math.NaN() },
	} {
		h, _ := Preset("cpu-1t")
		set(h)
		if err := h.Validate(); err == nil {
			t.Errorf("accepted %+v", h)
		}
	}
}

// TestDepthwiseDefaultsToConv: a hardware file written before the
// depthwise class existed takes the conv class's values for it.
func TestDepthwiseDefaultsToConv(t *testing.T) {
	h, _ := Preset("h100")
	var b strings.Builder
	if err := h.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	old := regexp.MustCompile(`(?s)\s*"depthwise": \{[^}]*\},`).ReplaceAllString(b.String(), "")
	if strings.Contains(old, "depthwise") {
		t.Fatal("test setup: depthwise still in the file")
	}
	got, err := Parse(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if got.Efficiency.Depthwise != got.Efficiency.Conv {
		t.Errorf("depthwise %+v, want the conv class %+v", got.Efficiency.Depthwise, got.Efficiency.Conv)
	}
}

// TestRunsAs: a dtype the hardware has no units of is stated as what it
// runs as (issue 26 item 5); a native one is not.
func TestRunsAs(t *testing.T) {
	for _, tc := range []struct {
		hw   string
		dt   ir.DType
		want string
	}{
		{"v100", ir.BFloat16, "bfloat16 runs as float32 on v100"},
		{"a100", ir.Float8E4M3FN, "float8e4m3fn runs as float16 on a100"},
		{"h100", ir.Float8E4M3FN, ""},
		{"a100", ir.BFloat16, ""},
		{"v100", ir.Float16, ""},
	} {
		h, err := Preset(tc.hw)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.RunsAs(tc.dt, false); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: %q, want %q", tc.hw, tc.dt, got, tc.want)
		}
	}
}
