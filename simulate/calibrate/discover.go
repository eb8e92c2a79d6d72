package calibrate

// This file finds the model a measurement file records.

import (
	"os"
	"path/filepath"
)

// RecordedModel finds the model a measurement file records: in modelsDir
// when given; else as recorded (absolute, or relative to the working
// folder), beside the measurement file, at the absolute path the file
// recorded too (abs, "" if none), or in $WOLONG_MODELS. The first
// candidate is returned when none exists (the load error names it).
func RecordedModel(rec, abs, measurement, modelsDir string) string {
	if filepath.IsAbs(rec) {
		return rec
	}
	if modelsDir != "" {
		return filepath.Join(modelsDir, rec)
	}
	cands := []string{rec, filepath.Join(filepath.Dir(measurement), rec)}
	if abs != "" {
		cands = append(cands, abs)
	}
	if env := os.Getenv("WOLONG_MODELS"); env != "" {
		cands = append(cands, filepath.Join(env, rec))
	}
	for _, c := range cands {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return cands[0]
}
