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
	// Family is the model's family (calibrate.ModelFamily); Development
	// says it is one of the shared models, whose errors guided changes to
	// the cost model (the development set); the others are held out.
	Family      string `json:"family,omitempty"`
	Development bool   `json:"development"`
	// CacheShared: the record's cache probe saw the core's L2 shared with
	// another tenant in every pass its target pooled (its measured time
	// may be up to 2x the machine's own).
	CacheShared bool `json:"cache_shared,omitempty"`
	// Error, when the model could not be predicted: it counts as a miss
	// (100% error, off by more than 2x) in the figures.
	Error string `json:"error,omitempty"`
}

// SetFigures is the error over a set of models. A model that could not be
// predicted is a miss: it counts 100% in the MAPE and as off by more than
// 1.5x and 2x, and is left out of the median and the worst ratio.
type SetFigures struct {
	Models    int     `json:"models"` // models measured, predicted or not
	Predicted int     `json:"predicted"`
	Missed    int     `json:"missed"`
	MAPE      float64 `json:"mape_pct"`
	MedianAbs float64 `json:"median_abs_error_pct"`
	MaxRatio  float64 `json:"max_ratio"`
	Within15  int     `json:"within_15pct"`
	Within25  int     `json:"within_25pct"`
	Over1_5x  int     `json:"over_1_5x"`
	Over2x    int     `json:"over_2x"`
}

// FamilyFigures is the error over one family's models.
type FamilyFigures struct {
	Family      string `json:"family"`
	Development bool   `json:"development"`
	SetFigures
}

// ValidationSet is a hardware file's end-to-end error over many models.
type ValidationSet struct {
	Hardware string     `json:"hardware"`
	Fitted   string     `json:"fitted,omitempty"` // where and how the file was fitted
	Models   []SetModel `json:"models"`
	// The figures over every model (SetFigures's fields at the top level,
	// as before families were reported), then over the development set
	// (the shared models) and the held-out models apart, and per family.
	SetFigures
	Development SetFigures      `json:"development"`
	HeldOut     SetFigures      `json:"held_out"`
	Families    []FamilyFigures `json:"families"`
	ValidationNotes
}

// NewValidationSet fills the per-model errors and the set's figures, and
// returns s.
func NewValidationSet(s *ValidationSet) *ValidationSet {
	sort.SliceStable(s.Models, func(i, j int) bool { return s.Models[i].Model < s.Models[j].Model })
	for i := range s.Models {
		m := &s.Models[i]
		if m.Error != "" || m.MeasuredMs <= 0 || m.PredictedMs <= 0 {
			continue
		}
		m.ErrorPct = 100 * (m.PredictedMs - m.MeasuredMs) / m.MeasuredMs
		m.Ratio = math.Max(m.PredictedMs/m.MeasuredMs, m.MeasuredMs/m.PredictedMs)
	}
	all := func(SetModel) bool { return true }
	s.SetFigures = figures(s.Models, all)
	s.Development = figures(s.Models, func(m SetModel) bool { return m.Development })
	s.HeldOut = figures(s.Models, func(m SetModel) bool { return !m.Development })
	s.Families = nil
	seen := map[string]bool{}
	for _, m := range s.Models {
		if m.Family == "" || seen[m.Family] {
			continue
		}
		seen[m.Family] = true
		fam := m.Family
		s.Families = append(s.Families, FamilyFigures{Family: fam, Development: m.Development,
			SetFigures: figures(s.Models, func(x SetModel) bool { return x.Family == fam })})
	}
	sort.Slice(s.Families, func(i, j int) bool { return s.Families[i].Family < s.Families[j].Family })
	if s.Families == nil {
		s.Families = []FamilyFigures{}
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	return s
}

// figures is the error over the models keep selects.
func figures(models []SetModel, keep func(SetModel) bool) SetFigures {
	var f SetFigures
	var abs []float64
	var sum float64
	for _, m := range models {
		if !keep(m) {
			continue
		}
		f.Models++
		if m.Error != "" || m.MeasuredMs <= 0 || m.PredictedMs <= 0 {
			f.Missed++
			f.Over1_5x++
			f.Over2x++
			sum += 100
			continue
		}
		a := math.Abs(m.ErrorPct)
		abs = append(abs, a)
		sum += a
		f.MaxRatio = math.Max(f.MaxRatio, m.Ratio)
		if a <= 15 {
			f.Within15++
		}
		if a <= 25 {
			f.Within25++
		}
		if m.Ratio > 1.5 {
			f.Over1_5x++
		}
		if m.Ratio > 2 {
			f.Over2x++
		}
	}
	f.Predicted = len(abs)
	if f.Models > 0 {
		f.MAPE = sum / float64(f.Models)
	}
	if n := len(abs); n > 0 {
		sort.Float64s(abs)
		if n%2 == 1 {
			f.MedianAbs = abs[n/2]
		} else {
			f.MedianAbs = (abs[n/2-1] + abs[n/2]) / 2
		}
	}
	return f
}

// line is f in one sentence.
func (f SetFigures) line() string {
	missed := ""
	if f.Missed > 0 {
		missed = fmt.Sprintf(" (%d not predicted: counted as misses, 100%% each)", f.Missed)
	}
	return fmt.Sprintf("%s%s: MAPE %.1f%% (median |error| %.1f%%), %d within 15%%, %d within 25%%, %d off by more than 1.5x, %d by more than 2x (worst %.2fx)",
		Count(f.Models, "model"), missed, f.MAPE, f.MedianAbs, f.Within15, f.Within25, f.Over1_5x, f.Over2x, f.MaxRatio)
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
	fmt.Fprintf(w, "\n%s\n", s.SetFigures.line())
	if len(s.Families) > 1 {
		var fr [][]string
		for _, f := range s.Families {
			set := "held out"
			if f.Development {
				set = "development"
			}
			fr = append(fr, []string{f.Family, set, fmt.Sprint(f.Models), fmt.Sprintf("%.1f%%", f.MAPE), fmt.Sprintf("%.2fx", f.MaxRatio)})
		}
		fmt.Fprintln(w)
		if err := WriteTable(w, []string{"family", "set", "models", "MAPE", "worst"}, fr); err != nil {
			return err
		}
		fmt.Fprintln(w)
		if s.Development.Models > 0 {
			fmt.Fprintf(w, "development set (shared models, whose errors guided the cost model): %s\n", s.Development.line())
		}
		if s.HeldOut.Models > 0 {
			fmt.Fprintf(w, "held-out families (not in the shared set): %s\n", s.HeldOut.line())
		}
	}
	s.writeNotes(w)
	return nil
}
