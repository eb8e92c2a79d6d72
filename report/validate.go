package report

// This file implements `wolong validate`'s report: predicted against
// measured time per node, per op type and end to end.

import (
	"fmt"
	"io"
	"math"
	"sort"
)

// ValidateNode is one node's predicted and measured time.
type ValidateNode struct {
	Name        string  `json:"name"`
	Op          string  `json:"op"`
	PredictedMs float64 `json:"predicted_ms"`
	MeasuredMs  float64 `json:"measured_ms"`
	ErrorPct    float64 `json:"error_pct"` // signed: (predicted - measured) / measured
}

// ValidateOp sums the nodes of one op type.
type ValidateOp struct {
	Op          string  `json:"op"`
	Nodes       int     `json:"nodes"`
	PredictedMs float64 `json:"predicted_ms"`
	MeasuredMs  float64 `json:"measured_ms"`
	ErrorPct    float64 `json:"error_pct"`
}

// Validation is predicted against measured time of one model.
type Validation struct {
	Model       string  `json:"model"`
	Hardware    string  `json:"hardware"`
	Measurement string  `json:"measurement"` // the profile or table file
	PredictedMs float64 `json:"predicted_ms"`
	MeasuredMs  float64 `json:"measured_ms"`
	// MeasuredWhat says what measured_ms is: the median end-to-end run, or
	// the sum of the measured nodes when the file has no run time.
	MeasuredWhat string  `json:"measured_what"`
	ErrorPct     float64 `json:"error_pct"`     // signed, end to end
	AbsErrorPct  float64 `json:"abs_error_pct"` // |error_pct|
	// Per node: mean absolute % error over the matched nodes, and the
	// time-weighted one (sum |p - m| / sum m).
	NodeMAPE          float64        `json:"node_mape_pct"`
	NodeWeightedError float64        `json:"node_weighted_abs_error_pct"`
	Nodes             []ValidateNode `json:"nodes"`
	Ops               []ValidateOp   `json:"ops"`
	ValidationNotes
}

// ValidationNotes end a validation document: how the measurement was taken
// and predicted (printed under the tables), and the import, inference,
// simulation and hardware warnings (the command also writes them on
// stderr).
type ValidationNotes struct {
	Notes    []string `json:"notes,omitempty"`
	Warnings []string `json:"warnings"`
}

// writeNotes prints each note on a line of its own.
func (n *ValidationNotes) writeNotes(w io.Writer) {
	for _, s := range n.Notes {
		fmt.Fprintf(w, "note: %s\n", s)
	}
}

func errPct(p, m float64) float64 {
	if m <= 0 {
		if p <= 0 {
			return 0
		}
		return math.Inf(1)
	}
	return 100 * (p - m) / m
}

// jsonPct keeps infinities out of JSON.
func jsonPct(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	return v
}

// NewValidation fills the derived fields of v from its nodes and its
// end-to-end times (PredictedMs, MeasuredMs set by the caller).
func NewValidation(v *Validation) *Validation {
	v.ErrorPct = jsonPct(errPct(v.PredictedMs, v.MeasuredMs))
	v.AbsErrorPct = math.Abs(v.ErrorPct)
	byOp := map[string]*ValidateOp{}
	var absSum, mSum, mape float64
	n := 0
	for i := range v.Nodes {
		nd := &v.Nodes[i]
		nd.ErrorPct = jsonPct(errPct(nd.PredictedMs, nd.MeasuredMs))
		o := byOp[nd.Op]
		if o == nil {
			o = &ValidateOp{Op: nd.Op}
			byOp[nd.Op] = o
		}
		o.Nodes++
		o.PredictedMs += nd.PredictedMs
		o.MeasuredMs += nd.MeasuredMs
		absSum += math.Abs(nd.PredictedMs - nd.MeasuredMs)
		mSum += nd.MeasuredMs
		if nd.MeasuredMs > 0 {
			mape += math.Abs(nd.ErrorPct)
			n++
		}
	}
	if n > 0 {
		v.NodeMAPE = mape / float64(n)
	}
	if mSum > 0 {
		v.NodeWeightedError = 100 * absSum / mSum
	}
	v.Ops = v.Ops[:0]
	for _, o := range byOp {
		o.ErrorPct = jsonPct(errPct(o.PredictedMs, o.MeasuredMs))
		v.Ops = append(v.Ops, *o)
	}
	sort.Slice(v.Ops, func(i, j int) bool {
		if v.Ops[i].MeasuredMs != v.Ops[j].MeasuredMs {
			return v.Ops[i].MeasuredMs > v.Ops[j].MeasuredMs
		}
		return v.Ops[i].Op < v.Ops[j].Op
	})
	return v
}

func vms(v float64) string  { return fmt.Sprintf("%.4f", v) }
func vpct(v float64) string { return fmt.Sprintf("%+.1f%%", v) }

// WriteText prints the summary, the per-op-type table and the top nodes
// by measured time.
func (v *Validation) WriteText(w io.Writer, top int) error {
	fmt.Fprintf(w, "model:      %s\nhardware:   %s\nmeasured:   %s (%s)\n", v.Model, v.Hardware, v.Measurement, v.MeasuredWhat)
	fmt.Fprintf(w, "end to end: predicted %.4f ms, measured %.4f ms, error %+.1f%% (|%.1f%%|)\n", v.PredictedMs, v.MeasuredMs, v.ErrorPct, v.AbsErrorPct)
	fmt.Fprintf(w, "per node:   %s, mean |error| %.1f%%, time-weighted |error| %.1f%%\n\n", Count(len(v.Nodes), "node"), v.NodeMAPE, v.NodeWeightedError)
	var rows [][]string
	for _, o := range v.Ops {
		rows = append(rows, []string{o.Op, fmt.Sprint(o.Nodes), vms(o.PredictedMs), vms(o.MeasuredMs), vpct(o.ErrorPct), fmt.Sprintf("%.1f%%", math.Abs(o.ErrorPct))})
	}
	if err := WriteTable(w, []string{"op", "nodes", "predicted ms", "measured ms", "error", "|error|"}, rows); err != nil {
		return err
	}
	nodes := append([]ValidateNode(nil), v.Nodes...)
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].MeasuredMs > nodes[j].MeasuredMs })
	if top > 0 && len(nodes) > top {
		nodes = nodes[:top]
	}
	rows = rows[:0]
	for _, n := range nodes {
		rows = append(rows, []string{n.Name, n.Op, vms(n.PredictedMs), vms(n.MeasuredMs), vpct(n.ErrorPct)})
	}
	fmt.Fprintf(w, "\ntop %s by measured time\n", Count(len(nodes), "node"))
	if err := WriteTable(w, []string{"node", "op", "predicted ms", "measured ms", "error"}, rows); err != nil {
		return err
	}
	v.writeNotes(w)
	return nil
}
