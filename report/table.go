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

// Count writes n and the noun, plural unless n is 1: "1 output",
// "3 outputs", "0 nodes". The plural adds "s" (the nouns reports count
// are regular).
func Count[T ~int | ~int64](n T, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Verdict says whether bad of n compared items differ: "the output
// matches", "all 3 outputs match", "1 of 3 outputs differs".
func Verdict(bad, n int, noun string) string {
	switch {
	case bad == 0 && n == 1:
		return "the " + noun + " matches"
	case bad == 0:
		return fmt.Sprintf("all %d %ss match", n, noun)
	case bad == 1 && n == 1:
		return "the " + noun + " differs"
	case bad == 1:
		return fmt.Sprintf("1 of %d %ss differs", n, noun)
	}
	return fmt.Sprintf("%d of %d %ss differ", bad, n, noun)
}
