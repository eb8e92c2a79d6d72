package report

// This file implements the missed opportunities of optimize and explain:
// every candidate the fusion and batching passes turned down, with the
// guard (a stable code and the reason in words) and the predicted gain
// had it fired, largest first.

import (
	"fmt"

	"github.com/wolong-dev/wolong/optimize"
)

// Missed is one refused candidate.
type Missed struct {
	Pass         string   `json:"pass"`
	Code         string   `json:"code"`
	Nodes        []string `json:"nodes"`
	Reason       string   `json:"reason"`
	GainMs       float64  `json:"gain_ms"` // predicted time saved had it fired (an estimate: the traffic and launches it would save)
	SavedBytes   float64  `json:"saved_bytes"`
	SavedKernels int64    `json:"saved_kernels"`
}

// NewMissed lists res's refusals, largest gain first, only pass's when
// pass is not empty.
func NewMissed(res *optimize.Result, pass string) []Missed {
	out := []Missed{}
	if res == nil {
		return out
	}
	for _, r := range res.Refusals {
		if pass != "" && r.Pass != pass {
			continue
		}
		out = append(out, Missed{Pass: r.Pass, Code: string(r.Code), Nodes: r.Nodes, Reason: r.Reason, GainMs: r.GainMs, SavedBytes: r.SavedBytes, SavedKernels: r.SavedKernels})
	}
	return out
}

// writeMissed prints up to limit refusals (all when limit <= 0) as a
// table, with a line saying how many were left out.
func writeMissed(ew *errWriter, ms []Missed, limit int) {
	if len(ms) == 0 {
		return
	}
	n := len(ms)
	if limit > 0 && n > limit {
		n = limit
	}
	var total float64
	for _, m := range ms {
		total += m.GainMs
	}
	fmt.Fprintf(ew, "\nMissed opportunities: %s refused by the fusion and batching passes, %s predicted if all fired (largest first):\n", Count(int64(len(ms)), "candidate"), Millis(total/1e3))
	var rows [][]string
	for i, m := range ms[:n] {
		rows = append(rows, []string{fmt.Sprint(i + 1), m.Pass, m.Code, Millis(m.GainMs / 1e3), m.Reason})
	}
	ew.check(TextTable{Header: []string{"#", "pass", "code", "gain", "why not"}, Rows: rows, Drop: []int{0, 2}, Prose: []int{4}}.Write(ew))
	if n < len(ms) {
		fmt.Fprintf(ew, "  ... and %d more (--missed lists them all; --format json has every one)\n", len(ms)-n)
	}
}

// FilterMissed keeps only pass's missed opportunities (all for "").
func (o *OptHeader) FilterMissed(pass string) {
	if pass == "" {
		return
	}
	kept := []Missed{}
	for _, m := range o.Missed {
		if m.Pass == pass {
			kept = append(kept, m)
		}
	}
	o.Missed = kept
}

// writeMissed prints the missed opportunities: the table with
// ShowMissed, else one line.
func (o *OptHeader) writeMissed(ew *errWriter) {
	if o.ShowMissed {
		writeMissed(ew, o.Missed, 0)
		return
	}
	if len(o.Missed) == 0 {
		return
	}
	var total float64
	for _, m := range o.Missed {
		total += m.GainMs
	}
	fmt.Fprintf(ew, "\nmissed opportunities: %s refused by the fusion and batching passes, worth up to %s predicted (--missed lists them)\n", Count(int64(len(o.Missed)), "candidate"), Millis(total/1e3))
}
