package whatif_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
	"github.com/wolong-dev/wolong/simulate/whatif"
)

func predictor(t *testing.T, m *ir.Model) func(*hw.Hardware) (float64, error) {
	return func(h *hw.Hardware) (float64, error) {
		r, err := simulate.Run(m, h, simulate.Options{})
		if err != nil {
			return 0, err
		}
		return r.TotalS * 1e3, nil
	}
}

// edited is h's hardware file with the fields scaled by hand, parsed back
// (what a user writes and passes as --hw file.json).
func edited(t *testing.T, h *hw.Hardware, f float64, fields ...string) *hw.Hardware {
	t.Helper()
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, fl := range fields {
		obj := doc
		if fl[:5] == "peak_" {
			obj = doc["peak_tflops"].(map[string]any)
			fl = fl[len("peak_tflops."):]
		}
		obj[fl] = obj[fl].(float64) * f
	}
	b, _ = json.Marshal(doc)
	e, err := hw.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A bandwidth-bound model ranks bandwidth first, a compute-bound one the
// peak it runs at; the ±20% totals equal runs on hardware files edited by
// hand.
func TestSweepRanksAndMatchesEditedFiles(t *testing.T) {
	h, _ := hw.Preset("h100")
	for _, tc := range []struct {
		m     *ir.Model
		first string
		field string
	}{
		{modelgen.Chain(4, 1<<24), "bw", "memory_bandwidth_gbs"},
		{modelgen.MLP(4096, 2), "peak_fp32", "peak_tflops.fp32"},
	} {
		ir.InferModel(tc.m, ir.InferOptions{Dims: map[string]int64{"N": 8192}})
		pred := predictor(t, tc.m)
		base, _ := pred(h)
		rows, err := whatif.Sweep(h, base, pred)
		if err != nil {
			t.Fatal(err)
		}
		if rows[0].Param != tc.first {
			t.Errorf("%s: first %s, want %s (%+v)", tc.m.Graph.Name, rows[0].Param, tc.first, rows[:3])
		}
		for _, f := range []float64{0.8, 1.2} {
			got, _ := pred(edited(t, h, f, tc.field))
			want := rows[0].MinusMs
			if f > 1 {
				want = rows[0].PlusMs
			}
			if got != want {
				t.Errorf("%s x%.1f: edited file %v ms, what-if %v ms", tc.field, f, got, want)
			}
		}
	}
}

// --set parses relative, factor and absolute forms and refuses the rest.
func TestParseSet(t *testing.T) {
	h, _ := hw.Preset("h100")
	for spec, f := range map[string]float64{"bw=+30%": 1.3, "bw=-20%": 0.8, "launch=x2": 2, "bw=6700": 6700 / h.MemoryBandwidthGBs} {
		s, err := whatif.ParseSet(spec, h)
		if err != nil || s.Factor != f {
			t.Errorf("%s: %+v %v, want factor %g", spec, s, err, f)
		}
	}
	for _, bad := range []string{"bw", "nope=+1%", "bw=-100%", "bw=abc", "host=3", "bw=x0"} {
		if _, err := whatif.ParseSet(bad, h); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	s, _ := whatif.ParseSet("bw=+30%", h)
	if got := whatif.Apply(h, []whatif.Set{s}).MemoryBandwidthGBs; got != h.MemoryBandwidthGBs*1.3 {
		t.Errorf("applied bw %g", got)
	}
}
