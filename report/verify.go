package report

// This file implements the rendering of `wolong verify`: one row per
// compared output, as a table or JSON.

import (
	"fmt"
	"io"
	"math"
)

// VerifyOutput is the comparison of one output.
type VerifyOutput struct {
	Name       string  `json:"name"`
	Type       string  `json:"type"` // e.g. "float32[1,1000]"
	MaxAbsErr  float64 `json:"max_abs_err"`
	MaxRelErr  float64 `json:"max_rel_err"`
	Mismatches int     `json:"mismatches"` // elements outside the tolerance
	Elements   int     `json:"elements"`
	Problem    string  `json:"problem,omitempty"` // type, shape or structure mismatch
	OK         bool    `json:"ok"`
}

// Verify is the result of `wolong verify`.
type Verify struct {
	Models   []string       `json:"models"`
	Against  string         `json:"against"` // "model B" or the expected-output folder
	Inputs   string         `json:"inputs"`  // the input folder, or "random (seed N)"
	RTol     float64        `json:"rtol"`
	ATol     float64        `json:"atol"`
	Outputs  []VerifyOutput `json:"outputs"`
	OK       bool           `json:"ok"`
	Warnings []string       `json:"warnings"`
	// Runtime is what ran the models when not wolong's evaluator.
	Runtime string `json:"runtime,omitempty"`
}

// finite makes JSON-safe numbers (JSON has no Inf or NaN): they are
// reported as -1 with the problem text saying why.
func finite(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return -1
	}
	return v
}

// WriteVerify renders v as a table (with a verdict line) or JSON.
func WriteVerify(w io.Writer, v *Verify, f Format) error {
	if f == JSON {
		c := *v
		if c.Warnings == nil {
			c.Warnings = []string{}
		}
		c.Outputs = make([]VerifyOutput, len(v.Outputs))
		for i, o := range v.Outputs {
			if math.IsInf(o.MaxAbsErr, 0) || math.IsNaN(o.MaxAbsErr) {
				if o.Problem == "" {
					o.Problem = "non-finite difference (NaN or Inf where the other has a number)"
				}
			}
			o.MaxAbsErr, o.MaxRelErr = finite(o.MaxAbsErr), finite(o.MaxRelErr)
			c.Outputs[i] = o
		}
		return WriteJSON(w, &c)
	}
	rows := make([][]string, 0, len(v.Outputs))
	bad := 0
	for _, o := range v.Outputs {
		ok := "ok"
		if !o.OK {
			ok = "MISMATCH"
			bad++
		}
		abs, rel := fmt.Sprintf("%.3g", o.MaxAbsErr), fmt.Sprintf("%.3g", o.MaxRelErr)
		if o.Problem != "" {
			abs, rel = "-", "-"
			ok = "MISMATCH: " + o.Problem
		} else if !o.OK {
			ok = fmt.Sprintf("MISMATCH (%d of %d elements)", o.Mismatches, o.Elements)
		}
		rows = append(rows, []string{o.Name, o.Type, abs, rel, ok})
	}
	if err := WriteTable(w, []string{"output", "type", "max abs err", "max rel err", "ok"}, rows); err != nil {
		return err
	}
	verdict := Verdict(bad, len(v.Outputs), "output")
	in := ""
	if v.Runtime != "" {
		in = " in " + v.Runtime
	}
	_, err := fmt.Fprintf(w, "%s against %s on %s%s (rtol %g, atol %g): %s\n", joinComma(v.Models), v.Against, v.Inputs, in, v.RTol, v.ATol, verdict)
	return err
}
