package hw

import "testing"

func TestErrorBands(t *testing.T) {
	var res []Residual
	// five small models 20% off, five large ones 5% off, one mid-size
	for i := 0; i < 5; i++ {
		res = append(res, Residual{PredictedMs: 0.05, MeasuredMs: 0.0625}, Residual{PredictedMs: 21, MeasuredMs: 20})
	}
	res = append(res, Residual{PredictedMs: 0.5, MeasuredMs: 0.5})
	bands := ErrorBands(res, "test")
	if len(bands) != 4 {
		t.Fatalf("%d bands, want 4", len(bands))
	}
	h := &Hardware{Fitted: &Fitted{ExpectedError: bands}}
	for _, c := range []struct {
		ms     float64
		pct    float64
		models int
	}{{0.01, 20, 5}, {50, 5, 5}, {0.5, 11.4, 11}, {3, 11.4, 11}} {
		b, ok := h.ExpectedError(c.ms)
		if !ok || b.Pct != c.pct || b.Models != c.models {
			t.Errorf("%g ms: %+v %v; want %g%% over %d", c.ms, b, ok, c.pct, c.models)
		}
	}
	if _, ok := (&Hardware{}).ExpectedError(1); ok {
		t.Error("a file without a fit has an expected error")
	}
}
