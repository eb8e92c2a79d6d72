package report

// This file implements reading a plan back (wolong plan show): the
// -o plan.json document of wolong optimize, decoded strictly and checked.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/wolong-dev/wolong/internal/strictjson"
)

// maxPlanSize bounds a plan file read from disk (a 100k-node model's plan
// is a few tens of MiB).
const maxPlanSize = 256 << 20

// ReadPlan decodes a plan written by wolong optimize -o. Unknown fields,
// trailing data, negative or non-finite times and unnamed kernels are
// errors; nothing in the file can make it allocate more than the file's
// own size allows.
func ReadPlan(r io.Reader) (*Plan, error) {
	var p Plan
	if err := strictjson.Decode(r, maxPlanSize, &p); err != nil {
		var tl *strictjson.TooLargeError
		switch {
		case errors.As(err, &tl):
			return nil, fmt.Errorf("plan: larger than %d MiB", maxPlanSize>>20)
		case errors.Is(err, strictjson.ErrTrailing):
			return nil, errors.New("plan: trailing data after the plan object")
		}
		return nil, fmt.Errorf("plan: %v", err)
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Check reports the first inconsistency in a plan.
func (p *Plan) Check() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }
	if p.Level < 0 || p.Level > 3 {
		return fmt.Errorf("plan: level %d out of range 0..3", p.Level)
	}
	if !finite(p.TotalMs) {
		return fmt.Errorf("plan: total_ms %v is not a finite time", p.TotalMs)
	}
	for i, k := range p.Kernels {
		if k.Name == "" {
			return fmt.Errorf("plan: kernel %d has no name", i)
		}
		if !finite(k.TimeMs) || !finite(k.StartMs) || k.Kernels < 0 {
			return fmt.Errorf("plan: kernel %s: bad time_ms %v, start_ms %v or kernels %d", k.Name, k.TimeMs, k.StartMs, k.Kernels)
		}
	}
	for i, ps := range p.Passes {
		if ps.Name == "" {
			return fmt.Errorf("plan: pass %d has no name", i)
		}
		if math.IsNaN(ps.DeltaMs) || math.IsInf(ps.DeltaMs, 0) {
			return fmt.Errorf("plan: pass %s: delta_ms %v", ps.Name, ps.DeltaMs)
		}
	}
	return nil
}

// WriteText prints a plan: the header, the slowest kernels, the passes
// that changed something, the placement (when there is one) and the
// assumptions.
func (p *Plan) WriteText(w io.Writer, top int) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "plan for %s on %s at -O%d: %d kernel(s), predicted %s\n", p.Model, p.Hardware, p.Level, len(p.Kernels), ms(p.TotalMs))
	ks := append([]PlanKernel(nil), p.Kernels...)
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].TimeMs > ks[j].TimeMs })
	if top > 0 && len(ks) > top {
		ks = ks[:top]
	}
	if len(ks) > 0 {
		fmt.Fprintf(ew, "\nslowest %d kernel(s):\n", len(ks))
		rows := make([][]string, len(ks))
		for i, k := range ks {
			rows[i] = []string{k.Name, k.Op, ms(k.TimeMs), ms(k.StartMs), k.Bound, truncList(k.Members, 4)}
		}
		ew.check(WriteTable(ew, []string{"kernel", "op", "time", "start", "bound", "members"}, rows))
	}
	var rows [][]string
	for _, ps := range p.Passes {
		if len(ps.Rewrites) > 0 {
			rows = append(rows, []string{ps.Name, fmt.Sprint(len(ps.Rewrites)), signedMs(ps.DeltaMs)})
		}
	}
	if len(rows) > 0 {
		fmt.Fprintln(ew, "\npasses that changed the graph:")
		ew.check(WriteTable(ew, []string{"pass", "rewrites", "saved"}, rows))
	}
	if p.Placement != nil {
		fmt.Fprintln(ew)
		writePlacementSummary(ew, p.Placement)
	}
	if len(p.Assumptions) > 0 {
		fmt.Fprintln(ew, "\nassumptions:")
		for _, a := range p.Assumptions {
			fmt.Fprintf(ew, "  - %s\n", a)
		}
	}
	return ew.err
}
