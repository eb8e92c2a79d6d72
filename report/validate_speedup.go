package report

// This file reports validate --optimized: a predicted speedup against the
// one a runtime measured.

import (
	"fmt"
	"io"
	"math"
)

// SpeedupValidation compares the speedup wolong predicts for an optimized
// model over its original with the speedup measured in a runtime.
type SpeedupValidation struct {
	Model     string `json:"model"`
	Optimized string `json:"optimized"`
	Hardware  string `json:"hardware"`
	// Predicted and measured end-to-end times, ms.
	PredictedMs          float64 `json:"predicted_ms"`
	PredictedOptimizedMs float64 `json:"predicted_optimized_ms"`
	MeasuredMs           float64 `json:"measured_ms"`
	MeasuredOptimizedMs  float64 `json:"measured_optimized_ms"`
	PredictedSpeedup     float64 `json:"predicted_speedup"`
	MeasuredSpeedup      float64 `json:"measured_speedup"`
	// ErrorPct is (predicted - measured) / measured speedup, in percent.
	ErrorPct float64 `json:"error_pct"`
	// OutputsEqual is whether the runtime gave both models the same
	// outputs (verify's tolerances); nil when it could not be checked.
	OutputsEqual *bool    `json:"outputs_equal"`
	Measurement  string   `json:"measurement"`
	Notes        []string `json:"notes,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
}

// NewSpeedupValidation fills in the speedups and the error.
func NewSpeedupValidation(v *SpeedupValidation) {
	ratio := func(a, b float64) float64 {
		if b <= 0 {
			return 0
		}
		return a / b
	}
	v.PredictedSpeedup = ratio(v.PredictedMs, v.PredictedOptimizedMs)
	v.MeasuredSpeedup = ratio(v.MeasuredMs, v.MeasuredOptimizedMs)
	if v.MeasuredSpeedup > 0 {
		v.ErrorPct = 100 * (v.PredictedSpeedup - v.MeasuredSpeedup) / v.MeasuredSpeedup
	}
}

// WriteText prints the comparison.
func (v *SpeedupValidation) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "model:     %s\noptimized: %s\nhardware:  %s\nmeasured:  %s\n\n", v.Model, v.Optimized, v.Hardware, v.Measurement)
	rows := [][]string{
		{"predicted", ms(v.PredictedMs), ms(v.PredictedOptimizedMs), fmt.Sprintf("%.3fx", v.PredictedSpeedup)},
		{"measured", ms(v.MeasuredMs), ms(v.MeasuredOptimizedMs), fmt.Sprintf("%.3fx", v.MeasuredSpeedup)},
	}
	if err := WriteTable(w, []string{"", "model", "optimized", "speedup"}, rows); err != nil {
		return err
	}
	eq := "not checked"
	if v.OutputsEqual != nil {
		eq = map[bool]string{true: "equal", false: "DIFFER"}[*v.OutputsEqual]
	}
	fmt.Fprintf(w, "\nspeedup error: %+.1f%% (predicted %.3fx, measured %.3fx); outputs %s\n", v.ErrorPct, v.PredictedSpeedup, v.MeasuredSpeedup, eq)
	for _, n := range v.Notes {
		fmt.Fprintf(w, "  - %s\n", n)
	}
	return nil
}

// SpeedupMAPE is the mean absolute speedup error of vs, in percent.
func SpeedupMAPE(vs []SpeedupValidation) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range vs {
		s += math.Abs(v.ErrorPct)
	}
	return s / float64(len(vs))
}
