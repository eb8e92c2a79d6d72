package report

import "github.com/wolong-dev/wolong/simulate/cluster"

// Caveats end a prediction's report: what was assumed where no source or
// measurement gave a number, and the warnings of the import, inference
// and simulation (both keys always present).
type Caveats struct {
	Assumptions []string `json:"assumptions"`
	Warnings    []string `json:"warnings"`
}

// caveatsOf reports a cluster prediction's caveats after the command's own
// assumptions and warnings (copies: the result's slices are not shared).
func caveatsOf(assumptions, warnings []string, r cluster.Caveats) Caveats {
	return Caveats{
		Assumptions: append(append([]string{}, assumptions...), r.Assumptions...),
		Warnings:    append(append([]string{}, warnings...), r.Warnings...),
	}
}
