package report

// This file implements the report of a hardware file validated on many
// models at once: predicted against measured end-to-end time per model, and
// the error over the set.

import (
	"fmt"
	"io"
	"math"
	"sort"
)

// SetModel is one model of a validation set.
type SetModel struct {
	Model       string  `json:"model"`
	Measurement string  `json:"measurement"` // the latency record
	MeasuredMs  float64 `json:"measured_ms"`
	PredictedMs float64 `json:"predicted_ms"`
	ErrorPct    float64 `json:"error_pct"`
	// Ratio is the larger of predicted/measured and measured/predicted:
	// how many times off the prediction is (1 = exact).
	Ratio float64 `json:"ratio"`
	// Error, when the model could not be predicted (it is then left out of
	// the figures).
	Error string `json:"error,omitempty"`
}

// ValidationSet is a hardware file's end-to-end error over many models.
type ValidationSet struct {
	Hardware string     `json:"hardware"`
	Fitted   string     `json:"fitted,omitempty"` // where and how the file was fitted
	Models   []SetModel `json:"models"`
	// Over the models predicted: mean and median |error_pct|, the largest
	// ratio, and how many are within 15% / 25% and off by more than 1.5x
	// and 2x.
	Predicted int     `json:"predicted"`
	MAPE      float64 `json:"mape_pct"`
	MedianAbs float64 `json:"median_abs_error_pct"`
	MaxRatio  float64 `json:"max_ratio"`
	Within15  int     `json:"within_15pct"`
	Within25  int     `json:"within_25pct"`
	Over1_5x  int     `json:"over_1_5x"`
	Over2x    int     `json:"over_2x"`
	ValidationNotes
}

// NewValidationSet fills the per-model errors and the set's figures, and
// sorts the models by name.
func NewValidationSet(s *ValidationSet) *ValidationSet {
	sort.SliceStable(s.Models, func(i, j int) bool { return s.Models[i].Model < s.Models[j].Model })
	var abs []float64
	s.MaxRatio, s.Within15, s.Within25, s.Over1_5x, s.Over2x = 0, 0, 0, 0, 0
	for i := range s.Models {
		m := &s.Models[i]
		if m.Error != "" || m.MeasuredMs <= 0 || m.PredictedMs <= 0 {
			continue
		}
		m.ErrorPct = 100 * (m.PredictedMs - m.MeasuredMs) / m.MeasuredMs
		m.Ratio = math.Max(m.PredictedMs/m.MeasuredMs, m.MeasuredMs/m.PredictedMs)
		a := math.Abs(m.ErrorPct)
		abs = append(abs, a)
		s.MaxRatio = math.Max(s.MaxRatio, m.Ratio)
		if a <= 15 {
			s.Within15++
		}
		if a <= 25 {
			s.Within25++
		}
		if m.Ratio > 1.5 {
			s.Over1_5x++
		}
		if m.Ratio > 2 {
			s.Over2x++
		}
	}
	s.Predicted = len(abs)
	if len(abs) > 0 {
		var sum float64
		for _, a := range abs {
			sum += a
		}
		s.MAPE = sum / float64(len(abs))
		sort.Float64s(abs)
		if n := len(abs); n%2 == 1 {
			s.MedianAbs = abs[n/2]
		} else {
			s.MedianAbs = (abs[n/2-1] + abs[n/2]) / 2
		}
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	return s
}

// WriteText prints one row per model, then the set's figures.
func (s *ValidationSet) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "hardware: %s\n", s.Hardware)
	if s.Fitted != "" {
		fmt.Fprintf(w, "fitted:   %s\n", s.Fitted)
	}
	fmt.Fprintln(w)
	var rows [][]string
	for _, m := range s.Models {
		if m.Error != "" {
			rows = append(rows, []string{m.Model, "-", "-", "not predicted: " + m.Error})
			continue
		}
		rows = append(rows, []string{m.Model, vms(m.MeasuredMs), vms(m.PredictedMs), vpct(m.ErrorPct)})
	}
	if err := WriteTable(w, []string{"model", "measured ms", "predicted ms", "error"}, rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s: MAPE %.1f%% (median |error| %.1f%%), %d within 15%%, %d within 25%%, %d off by more than 1.5x, %d by more than 2x (worst %.2fx)\n",
		Count(s.Predicted, "model"), s.MAPE, s.MedianAbs, s.Within15, s.Within25, s.Over1_5x, s.Over2x, s.MaxRatio)
	s.writeNotes(w)
	return nil
}
