package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// Through the CLI: a big Add is bandwidth-bound and a big MatMul
// compute-bound; --what-if ranks bw and peak_fp32 first, and the ±20%
// totals equal profile runs with the preset edited by hand (--hw
// file.json). --set applies the same edit; every prediction carries an
// error band and a breakdown that sums to it.
func TestProfileWhatIfMatchesEditedPreset(t *testing.T) {
	for _, tc := range []struct {
		model        string
		first, field string
	}{
		{writeModel(t, "Add", ir.Float32, ir.ShapeOf(4096, 4096), ir.ShapeOf(4096, 4096)), "bw", "memory_bandwidth_gbs"},
		{writeModel(t, "MatMul", ir.Float32, ir.ShapeOf(4096, 4096), ir.ShapeOf(4096, 4096)), "peak_fp32", "fp32"},
	} {
		out, errs, code := run("profile", tc.model, "--hw", "h100", "--what-if", "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var doc struct {
			TotalMs   float64 `json:"total_ms"`
			Breakdown []struct {
				Ms float64 `json:"ms"`
			} `json:"breakdown"`
			ErrorBand *struct {
				Pct    float64 `json:"pct"`
				Source string  `json:"source"`
			} `json:"error_band"`
			WhatIf struct {
				Params []struct {
					Param   string  `json:"param"`
					MinusMs float64 `json:"minus_20_ms"`
					PlusMs  float64 `json:"plus_20_ms"`
				} `json:"params"`
			} `json:"what_if"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, c := range doc.Breakdown {
			sum += c.Ms
		}
		if d := sum/doc.TotalMs - 1; d > 1e-3 || d < -1e-3 {
			t.Errorf("causes sum to %g ms, total %g ms", sum, doc.TotalMs)
		}
		if doc.ErrorBand == nil || doc.ErrorBand.Pct <= 0 || doc.ErrorBand.Source == "" {
			t.Errorf("error band %+v", doc.ErrorBand)
		}
		top := doc.WhatIf.Params[0]
		if top.Param != tc.first {
			t.Errorf("%s: first %s, want %s", tc.model, top.Param, tc.first)
		}
		h, _ := hw.Preset("h100")
		for _, f := range []float64{0.8, 1.2} {
			file := editedPreset(t, h, tc.field, f)
			got := profileTotal(t, tc.model, "--hw", file)
			want := top.MinusMs
			if f > 1 {
				want = top.PlusMs
			}
			if got != want {
				t.Errorf("%s x%g: edited preset %v ms, what-if %v ms", tc.field, f, got, want)
			}
		}
		if got := profileTotal(t, tc.model, "--hw", "h100", "--set", tc.first+"=+20%"); got != top.PlusMs {
			t.Errorf("--set %s=+20%%: %v ms, what-if %v ms", tc.first, got, top.PlusMs)
		}
	}
}

// editedPreset writes h's preset JSON with one field scaled (under
// peak_tflops for a dtype name), as a user would edit it.
func editedPreset(t *testing.T, h *hw.Hardware, field string, f float64) string {
	t.Helper()
	b, _ := json.Marshal(h)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	obj := doc
	if !strings.Contains(field, "_") {
		obj = doc["peak_tflops"].(map[string]any)
	}
	obj[field] = obj[field].(float64) * f
	b, _ = json.Marshal(doc)
	p := filepath.Join(t.TempDir(), "edited.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func profileTotal(t *testing.T, args ...string) float64 {
	t.Helper()
	out, errs, code := run(append([]string{"profile"}, append(args, "--format", "json")...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		TotalMs float64 `json:"total_ms"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.TotalMs
}

// --hw A,B compares two presets by cause and op type; bad --set values
// are usage errors.
func TestProfileCompareAndBadSet(t *testing.T) {
	m := writeModel(t, "Add", ir.Float32, ir.ShapeOf(4096, 4096), ir.ShapeOf(4096, 4096))
	out, errs, code := run("profile", m, "--hw", "h100,h200")
	if code != 0 || !strings.Contains(out, "The difference by op type") || !strings.Contains(out, "memory-bound kernels") {
		t.Errorf("exit %d: %s%s", code, out, errs)
	}
	for _, bad := range []string{"bw", "bw=-100%", "nope=+3%"} {
		if _, _, code := run("profile", m, "--set", bad); code != 2 {
			t.Errorf("--set %s: exit %d, want 2", bad, code)
		}
	}
}
