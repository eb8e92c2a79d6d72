package report

// This file implements the `wolong optimize` report: the before/after
// table, the per-pass contribution, and the plan (-o plan.json).

import (
	"fmt"
	"io"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
)

// OptSummary is one side of the before/after comparison.
type OptSummary struct {
	Nodes     int     `json:"nodes"`
	Kernels   int64   `json:"kernels"`
	TotalMs   float64 `json:"total_ms"`
	PeakBytes int64   `json:"peak_bytes"`
	Unknown   int     `json:"unknown_nodes,omitempty"`
}

// OptPass is one pass's contribution.
type OptPass struct {
	Name     string  `json:"name"`
	Rewrites int     `json:"rewrites"`
	DeltaMs  float64 `json:"delta_ms"` // predicted time saved (negative: added)
	Nodes    int     `json:"nodes"`    // after the pass
	Kernels  int64   `json:"kernels"`  // after the pass
	TotalMs  float64 `json:"total_ms"` // after the pass
}

// Optimize is what `wolong optimize` prints.
type Optimize struct {
	OptHeader
	Passes      []OptPass `json:"passes"`
	Assumptions []string  `json:"assumptions,omitempty"`
	Warnings    []string  `json:"warnings"`
	// Placement is the --cluster plan (nil without --cluster).
	Placement *cluster.Placement `json:"placement,omitempty"`
	// Emitted is the prediction for the model --emit-onnx wrote, with the
	// same dims (nil without --emit-onnx). It differs from Final when
	// the written model was optimized with its symbolic dims kept.
	Emitted *OptSummary `json:"emitted,omitempty"`
}

// Summary is the table row of a prediction.
func Summary(p optimize.Prediction) OptSummary {
	return OptSummary{Nodes: p.Nodes, Kernels: p.Kernels, TotalMs: p.TotalMs, PeakBytes: p.PeakBytes, Unknown: p.Unknown}
}

// NewOptimize summarizes an optimization run.
func NewOptimize(path, hardware string, res *optimize.Result, assumptions, warnings []string) *Optimize {
	r := &Optimize{OptHeader: newOptHeader(path, hardware, res),
		Assumptions: assumptions, Warnings: append([]string{}, warnings...), Passes: []OptPass{}}
	for i := range res.Passes {
		p := &res.Passes[i]
		r.Passes = append(r.Passes, OptPass{Name: p.Name, Rewrites: p.NumRewrites(), DeltaMs: p.DeltaMs(),
			Nodes: p.After.Nodes, Kernels: p.After.Kernels, TotalMs: p.After.TotalMs})
	}
	return r
}

// WriteText prints the before/after table and the per-pass table.
func (r *Optimize) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "model:    %s\nhardware: %s\nlevel:    -O%d\n\n", r.Model, r.Hardware, r.Level)
	ratio := func(a, b float64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2fx", a/b)
	}
	rows := [][]string{
		{"nodes", fmt.Sprint(r.Baseline.Nodes), fmt.Sprint(r.Final.Nodes), ratio(float64(r.Baseline.Nodes), float64(r.Final.Nodes))},
		{"kernels", fmt.Sprint(r.Baseline.Kernels), fmt.Sprint(r.Final.Kernels), ratio(float64(r.Baseline.Kernels), float64(r.Final.Kernels))},
		{"predicted time", ms(r.Baseline.TotalMs), ms(r.Final.TotalMs), ratio(r.Baseline.TotalMs, r.Final.TotalMs)},
		{"memory peak", Bytes(r.Baseline.PeakBytes), Bytes(r.Final.PeakBytes), ratio(float64(r.Baseline.PeakBytes), float64(r.Final.PeakBytes))},
	}
	if err := WriteTable(w, []string{"", "before", "after", "ratio"}, rows); err != nil {
		return err
	}
	fmt.Fprintf(w, "\npredicted speedup: %.2fx\n", r.Speedup)
	r.writeWhy(&errWriter{w: w})
	if e := r.Emitted; e != nil && e.TotalMs != r.Final.TotalMs {
		fmt.Fprintf(w, "written model (--emit-onnx, symbolic dims kept): %s predicted with the same dims, %s\n", ms(e.TotalMs), ratio(r.Baseline.TotalMs, e.TotalMs))
	}
	fmt.Fprintln(w)
	var prow [][]string
	for _, p := range r.Passes {
		prow = append(prow, []string{p.Name, fmt.Sprint(p.Rewrites), fmt.Sprint(p.Nodes), fmt.Sprint(p.Kernels), ms(p.TotalMs), signedMs(p.DeltaMs)})
	}
	if err := WriteTable(w, []string{"pass", "rewrites", "nodes", "kernels", "time after", "saved"}, prow); err != nil {
		return err
	}
	if r.Placement != nil {
		writePlacementSummary(w, r.Placement)
	}
	ew := &errWriter{w: w}
	r.writeMissed(ew)
	if ew.err != nil {
		return ew.err
	}
	if r.Baseline.Unknown > 0 || r.Final.Unknown > 0 {
		fmt.Fprintf(w, "\nnote: %d node(s) before and %d after could not be costed (unknown shapes or ops); times are lower bounds\n", r.Baseline.Unknown, r.Final.Unknown)
	}
	if len(r.Assumptions) > 0 {
		fmt.Fprintln(w, "\nassumptions:")
		for _, a := range r.Assumptions {
			fmt.Fprintf(w, "  - %s\n", a)
		}
	}
	return nil
}

func ms(v float64) string { return fmt.Sprintf("%.4f ms", v) }

// signedMs formats a time difference with its sign ("+0.0000 ms" for
// zero, never "-0.0000 ms").
func signedMs(v float64) string {
	if v == 0 {
		v = 0 // drops the sign of -0
	}
	return fmt.Sprintf("%+.4f ms", v)
}

// PlanKernel is one kernel of the plan, in schedule order.
type PlanKernel struct {
	Name    string   `json:"name"`
	Op      string   `json:"op"`
	Members []string `json:"members"` // the original nodes it runs
	TimeMs  float64  `json:"time_ms"` // predicted device time
	StartMs float64  `json:"start_ms"`
	Bound   string   `json:"bound"`
	Kernels int64    `json:"kernels"`
}

// PlanPass is one applied pass with its rewrites.
type PlanPass struct {
	Name     string   `json:"name"`
	DeltaMs  float64  `json:"delta_ms"`
	Rewrites []string `json:"rewrites"`
}

// Plan is the -o plan.json document.
type Plan struct {
	Model       string       `json:"model"`
	Hardware    string       `json:"hardware"`
	Level       int          `json:"level"`
	TotalMs     float64      `json:"total_ms"`
	Kernels     []PlanKernel `json:"kernels"`
	Passes      []PlanPass   `json:"passes"`
	Assumptions []string     `json:"assumptions"`
	// Placement is the --cluster plan: devices, transfers, receive
	// buffers, registered memory and fallbacks (nil without --cluster).
	Placement *cluster.Placement `json:"placement,omitempty"`
}

// NewPlan builds the plan from the optimization result and a simulation
// of the optimized model.
func NewPlan(path string, res *optimize.Result, sim *simulate.Result) *Plan {
	p := &Plan{Model: path, Level: res.Level, Kernels: []PlanKernel{}, Passes: []PlanPass{}, Assumptions: []string{}}
	orig := newOrigins(res)
	if sim != nil {
		if sim.Hardware != nil {
			p.Hardware = sim.Hardware.Name
		}
		p.TotalMs = sim.TotalS * 1e3
		p.Assumptions = append(p.Assumptions, sim.Assumptions...)
		for _, t := range sim.Tasks {
			if t.Est.Kernels == 0 && t.Stream < 0 {
				continue
			}
			k := PlanKernel{Name: t.Name(), Op: t.Op(), TimeMs: t.Est.DeviceS * 1e3, StartMs: t.Start * 1e3, Bound: string(t.Est.Bound), Kernels: t.Est.Kernels}
			k.Members = orig.members(t.Name())
			if k.Members == nil {
				k.Members = members(t.Node)
			}
			p.Kernels = append(p.Kernels, k)
		}
	}
	for i := range res.Passes {
		pr := &res.Passes[i]
		pp := PlanPass{Name: pr.Name, DeltaMs: pr.DeltaMs(), Rewrites: []string{}}
		for _, rw := range pr.Rewrites {
			pp.Rewrites = append(pp.Rewrites, rw.String())
		}
		p.Passes = append(p.Passes, pp)
	}
	return p
}

// members lists the original nodes a (possibly fused) node runs.
func members(n *ir.Node) []string {
	if n == nil {
		return []string{}
	}
	if body := ir.FusedBody(n); body != nil {
		out := make([]string, 0, len(body.Nodes))
		for _, m := range body.Nodes {
			out = append(out, ir.NodeLabel(m))
		}
		return out
	}
	return []string{ir.NodeLabel(n)}
}

// truncList joins at most n items, then "... (k more)".
func truncList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", ... (%d more)", len(items)-n)
}
