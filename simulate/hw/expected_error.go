package hw

// This file is the expected error of a calibrated CPU file's predictions:
// what the fit's held-out residuals say about a model of a given size.

import (
	"fmt"
	"math"
	"sort"
)

// ErrorBand is the expected error of a prediction from a calibrated file for
// models whose predicted time falls in [MinMs, MaxMs) (MaxMs 0: no upper
// bound): the mean |error| (Pct) and its 90th percentile (P90Pct) of the
// held-out models of that size class, % of the measured time, over Models
// models; Source says which models and where they were measured.
type ErrorBand struct {
	Class  string  `json:"class"`
	MinMs  float64 `json:"min_ms"`
	MaxMs  float64 `json:"max_ms"` // 0: unbounded
	Pct    float64 `json:"pct"`
	P90Pct float64 `json:"p90_pct"`
	Models int     `json:"models"`
	Source string  `json:"source"`
}

// SizeClasses are the bounds (ms of predicted time) of ErrorBands' size
// classes: a per-call cost dominates below 0.1 ms, kernels above 10 ms.
var SizeClasses = []float64{0.1, 1, 10}

// minBandModels is how many held-out models a size class needs for a band
// of its own; a class with fewer takes the band of every held-out model.
const minBandModels = 4

// Residual is one held-out model's prediction against its measurement.
type Residual struct {
	PredictedMs, MeasuredMs float64
}

// ErrorBands groups held-out residuals by the size class of their
// predicted time into bands. A class with fewer than minBandModels models
// gets the pooled figure over all of them (its Models says how many it
// pools). source is each band's Source.
func ErrorBands(res []Residual, source string) []ErrorBand {
	var all []float64
	for _, r := range res {
		if r.MeasuredMs > 0 && r.PredictedMs > 0 {
			all = append(all, 100*math.Abs(r.PredictedMs-r.MeasuredMs)/r.MeasuredMs)
		}
	}
	if len(all) == 0 {
		return nil
	}
	bounds := append([]float64{0}, SizeClasses...)
	var out []ErrorBand
	for i, lo := range bounds {
		hi := 0.0
		if i+1 < len(bounds) {
			hi = bounds[i+1]
		}
		var errs []float64
		for _, r := range res {
			if r.MeasuredMs > 0 && r.PredictedMs >= lo && (hi == 0 || r.PredictedMs < hi) {
				errs = append(errs, 100*math.Abs(r.PredictedMs-r.MeasuredMs)/r.MeasuredMs)
			}
		}
		b := ErrorBand{Class: classLabel(lo, hi), MinMs: lo, MaxMs: hi, Source: source}
		if len(errs) < minBandModels {
			errs = all
			b.Source += fmt.Sprintf(" (fewer than %d in this class: all size classes pooled)", minBandModels)
		}
		b.Models = len(errs)
		b.Pct, b.P90Pct = round1(mean(errs)), round1(quantile(errs, 0.9))
		out = append(out, b)
	}
	return out
}

func classLabel(lo, hi float64) string {
	switch {
	case lo == 0:
		return fmt.Sprintf("< %g ms", hi)
	case hi == 0:
		return fmt.Sprintf(">= %g ms", lo)
	}
	return fmt.Sprintf("%g-%g ms", lo, hi)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func quantile(v []float64, q float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// ExpectedError is the band of h's calibration that a prediction of
// predictedMs falls in; ok is false when h carries none (a preset or file
// not fitted by calibrate, or fitted before bands were recorded).
func (h *Hardware) ExpectedError(predictedMs float64) (b ErrorBand, ok bool) {
	if h == nil || h.Fitted == nil {
		return b, false
	}
	for _, b := range h.Fitted.ExpectedError {
		if predictedMs >= b.MinMs && (b.MaxMs == 0 || predictedMs < b.MaxMs) {
			return b, true
		}
	}
	return b, false
}
