package report

// This file implements small number formatters the profile tables share.

import (
	"fmt"
	"math"
)

// Millis formats seconds as milliseconds with 3 significant decimals for
// small values: 0.0123 -> "12.300 ms", 4e-6 -> "0.004 ms".
func Millis(s float64) string {
	ms := s * 1e3
	switch {
	case ms == 0:
		return "0 ms"
	case math.Abs(ms) >= 100:
		return fmt.Sprintf("%.1f ms", ms)
	case math.Abs(ms) >= 0.01:
		return fmt.Sprintf("%.3f ms", ms)
	}
	return fmt.Sprintf("%.2f us", ms*1e3)
}

// Pct formats a fraction as a percentage: 0.1234 -> "12.3%".
func Pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

// Ratio formats a ratio with two decimals, "-" when undefined.
func Ratio(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f", f)
}
