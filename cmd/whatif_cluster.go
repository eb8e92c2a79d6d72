package cmd

// This file wires profile's what-if flags for cluster and LLM runs
// (issue 31): --what-if sweeps the GPU's, network's and hosts'
// parameters (simulate/whatif ClusterParams) and, with the LLM flags, the
// layout's degrees; --set changes any of them (a degree to a value:
// tp=4); --hw A,B predicts the same cluster of B's GPUs and prints the
// difference by cause.

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
	"github.com/wolong-dev/wolong/simulate/llm"
	"github.com/wolong-dev/wolong/simulate/whatif"
)

// active says whether any what-if flag was given.
func (o *WhatIfOptions) active() bool { return o.WhatIf || len(o.raw) > 0 || o.Compare != nil }

// degreeNames are the layout parameters of cr's run (none for a
// graph-level strategy).
func degreeNames(cr *ClusterRun) []string {
	switch {
	case cr.LLM == nil:
		return nil
	case cr.LLM.Serve != nil:
		return whatif.ServeDegreeNames()
	}
	return whatif.TrainDegreeNames()
}

// applyCluster types --set for the cluster run cr, applies the changes of
// the GPU, network and hosts to cr's cluster and builds --hw A,B's second
// cluster; it returns the GPU the run predicts on. The layout's changes
// are applied when the planner runs (trainRunOf, serveRunOf).
func (o *WhatIfOptions) applyCluster(cr *ClusterRun) (*hw.Hardware, error) {
	if !o.active() {
		return cr.Cluster.GPU, nil
	}
	if cr.Sweep != nil {
		return nil, Usagef("--what-if, --set and --hw A,B predict one cluster step: drop --sweep")
	}
	if cr.LLM != nil && (cr.LLM.Search != nil || cr.LLM.ServeSearch) {
		return nil, Usagef("--what-if, --set and --hw A,B need a fixed layout: drop --strategy auto (or give the layout it found)")
	}
	deg := degreeNames(cr)
	known := append(whatif.ClusterNames(), deg...)
	for _, s := range o.raw {
		ch, err := whatif.ParseChange(s, known)
		if err != nil {
			return nil, Usagef("%v", err)
		}
		if slices.Contains(deg, ch.Name) && (ch.Abs < 1 || ch.Abs != math.Trunc(ch.Abs) || ch.Abs > 1<<24) {
			return nil, Usagef("--set %q: a parallel degree or batch takes a whole value (%s=4)", s, ch.Name)
		}
		o.Changes = append(o.Changes, ch)
	}
	base := cr.Cluster
	c, err := whatif.ApplyCluster(base, o.Changes)
	if err != nil {
		return nil, Usagef("%v", err)
	}
	cr.Cluster, cr.Network = c, c.Net
	if o.Compare != nil {
		if o.Compare.Kind != "gpu" {
			return nil, Usagef("--hw %s: a cluster needs a GPU preset, not a %s", o.Compare.Name, o.Compare.Kind)
		}
		b := whatif.CloneCluster(base)
		b.GPU, b.Intra = o.Compare.Clone(), "pcie"
		if b.GPU.NVLinkGBs > 0 {
			b.Intra = "nvlink"
		}
		if o.CompareCluster, err = whatif.ApplyCluster(b, o.Changes); err != nil {
			return nil, Usagef("%v", err)
		}
	}
	return c.GPU, nil
}

// panel is the overrides of a cluster run (and its sweep, when given).
func (o *WhatIfOptions) panel(metric string, rows, layout []whatif.Row, serve bool) report.WhatIfPanel {
	var p report.WhatIfPanel
	for _, ch := range o.Changes {
		fields := whatif.DegreeDoc(ch.Name, serve)
		if cp, ok := whatif.LookupCluster(ch.Name); ok {
			fields = cp.Fields
		}
		p.Overrides = append(p.Overrides, ch.Spec+": "+fields)
	}
	if rows != nil {
		p.WhatIf = report.NewWhatIf(metric, rows)
		p.WhatIf.Layout = layout
	}
	return p
}

// degreeChanges are the --set changes of the layout.
func degreeChanges(changes []whatif.Change, names []string) []whatif.Change {
	var out []whatif.Change
	for _, ch := range changes {
		if slices.Contains(names, ch.Name) {
			out = append(out, ch)
		}
	}
	return out
}

// trainRunOf predicts the training step of t on c under o with the
// layout's --set changes applied in order (each from the layout the one
// before resolved).
func trainRunOf(t *llm.Transformer, c *cluster.Cluster, o llm.LLMOptions, changes []whatif.Change) (whatif.TrainRun, *llm.LLMResult, error) {
	for _, ch := range changes {
		if ch.Name == "host" { // relative only (applyCluster refused a value)
			o = whatif.HostFramework(o, ch.Factor)
		}
	}
	run := whatif.TrainRun{T: t, C: c, O: o}
	r, err := llm.SimulateLLM(t, c, o)
	for _, ch := range degreeChanges(changes, whatif.TrainDegreeNames()) {
		if err != nil {
			break
		}
		if run, err = run.WithDegree(r, ch.Name, int(ch.Abs)); err != nil {
			return run, nil, Usagef("--set %s: %v", ch.Spec, err)
		}
		r, err = llm.SimulateLLM(run.T, run.C, run.O)
	}
	return run, r, err
}

// serveRunOf is trainRunOf for serving (static batch or requests).
func serveRunOf(t *llm.Transformer, c *cluster.Cluster, o llm.ServeOptions, changes []whatif.Change) (whatif.ServeRun, *llm.ServeResult, error) {
	for _, ch := range changes {
		if ch.Name == "host" {
			o = whatif.HostServe(o, ch.Factor)
		}
	}
	run := whatif.ServeRun{T: t, C: c, O: o}
	r, err := llm.SimulateServe(t, c, o)
	for _, ch := range degreeChanges(changes, whatif.ServeDegreeNames()) {
		if err != nil {
			break
		}
		if run, err = run.WithDegree(r, ch.Name, int(ch.Abs)); err != nil {
			return run, nil, Usagef("--set %s: %v", ch.Spec, err)
		}
		r, err = llm.SimulateServe(run.T, run.C, run.O)
	}
	return run, r, err
}

// sameNote says what --hw A,B's two runs share.
func sameNote(c *cluster.Cluster, layout string) string {
	s := fmt.Sprintf("%dx%d GPUs, network %s with %d NIC(s) per machine", c.Machines, c.GPUsPerMachine, c.Net.Name, max(1, c.NICsPerMachine))
	if layout != "" {
		s += ", layout " + layout
	}
	return s
}

// clusterWhatIf prints a graph-level cluster step with its what-if panel
// or its comparison with --hw A,B's second GPU. prof is the one-GPU
// profile r was predicted from.
func clusterWhatIf(env *Env, opts *ProfileOptions, stage pipeline.Stage, prof *cluster.Profile, r *cluster.Result, p *report.ClusterProfile, assumptions, warnings []string) error {
	c, copt := opts.Cluster.Cluster, opts.Cluster.Options
	copt.Timeline = false
	profileOn := func(gpu *hw.Hardware) (*cluster.Profile, error) {
		so := opts.Sim
		so.HW = gpu
		return pipeline.ClusterProfile(stage, so)
	}
	predict := func(cc *cluster.Cluster, device bool) (*cluster.Result, error) {
		pr := prof
		if device {
			var err error
			if pr, err = profileOn(cc.GPU); err != nil {
				return nil, err
			}
		}
		return cluster.Simulate(pr, cc, copt)
	}
	if cb := opts.WhatIf.CompareCluster; cb != nil {
		profB, err := profileOn(cb.GPU)
		if err != nil {
			return err
		}
		rb, err := cluster.Simulate(profB, cb, copt)
		if err != nil {
			return err
		}
		pb := report.NewClusterProfile(opts.Path, cb, rb, assumptions, warnings)
		cmp := report.NewClusterComparison(p, pb, c.GPU.Name, cb.GPU.Name, "step_ms: one "+string(copt.Mode)+" step", r.StepMs, rb.StepMs, p.Breakdown, pb.Breakdown, sameNote(c, ""))
		cmp.CompareOps(opTimes(prof, copt.Mode), opTimes(profB, copt.Mode))
		cmp.Top = opts.Top
		return writeComparison(env, opts.Format, cmp)
	}
	var rows []whatif.Row
	if opts.WhatIf.WhatIf {
		var err error
		rows, err = whatif.SweepCluster(c, func(cc *cluster.Cluster, device bool) (whatif.Point, error) {
			res, err := predict(cc, device)
			if err != nil {
				return whatif.Point{}, err
			}
			return whatif.Point{Ms: res.StepMs}, nil
		})
		if err != nil {
			return err
		}
	}
	w := report.ClusterProfileWhatIf{ClusterProfile: p, WhatIfPanel: opts.WhatIf.panel("step_ms: one "+string(copt.Mode)+" step", rows, nil, false)}
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, w)
	}
	if err := p.WriteText(env.Out); err != nil {
		return err
	}
	return w.WhatIfPanel.WriteText(env.Out)
}

// writeComparison prints a --hw A,B comparison.
func writeComparison(env *Env, format report.Format, c *report.ClusterComparison) error {
	if format == report.JSON {
		return report.WriteJSON(env.Out, c)
	}
	return c.WriteText(env.Out)
}

// llmTrainWhatIf returns what profile prints for an LLM training step
// with a what-if flag: the profile with its panel (p itself when no flag
// is given), or --hw A,B's comparison.
func llmTrainWhatIf(opts *ProfileOptions, run whatif.TrainRun, r *llm.LLMResult, p *report.LLMProfile, assumptions, warnings []string) (any, func(io.Writer) error, error) {
	wo := &opts.WhatIf
	if !wo.active() {
		return p, p.WriteText, nil
	}
	if cb := wo.CompareCluster; cb != nil {
		rb, err := llm.SimulateLLM(run.T, cb, run.O)
		if err != nil {
			return nil, nil, layoutErr(err)
		}
		pb := report.NewLLMProfile(cb, rb, assumptions, warnings)
		cmp := report.NewClusterComparison(p, pb, run.C.GPU.Name, cb.GPU.Name, "step_ms: one training step", r.StepMs, rb.StepMs, p.Breakdown, pb.Breakdown, sameNote(run.C, r.Layout()))
		return cmp, cmp.WriteText, nil
	}
	var rows, layout []whatif.Row
	if wo.WhatIf {
		var err error
		if rows, err = whatif.SweepTrainHardware(run); err != nil {
			return nil, nil, err
		}
		layout = whatif.SweepTrain(run, r, whatif.TrainDegrees(run.T, run.O, r))
	}
	w := report.LLMProfileWhatIf{LLMProfile: p, WhatIfPanel: wo.panel("step_ms: one training step", rows, layout, false)}
	return w, func(out io.Writer) error {
		if err := p.WriteText(out); err != nil {
			return err
		}
		return w.WhatIfPanel.WriteText(out)
	}, nil
}

// serveWhatIf is llmTrainWhatIf for serving.
func serveWhatIf(opts *ProfileOptions, run whatif.ServeRun, r *llm.ServeResult, p *report.ServeProfile, assumptions, warnings []string) (any, func(io.Writer) error, error) {
	wo := &opts.WhatIf
	if !wo.active() {
		return p, p.WriteText, nil
	}
	metric := whatif.ServeMetric(r)
	if cb := wo.CompareCluster; cb != nil {
		rb, err := llm.SimulateServe(run.T, cb, run.O)
		if err != nil {
			return nil, nil, layoutErr(err)
		}
		pb := report.NewServeProfile(rb, assumptions, warnings)
		cmp := report.NewClusterComparison(p, pb, run.C.GPU.Name, cb.GPU.Name, metric, whatif.ServePointOf(r).Ms, whatif.ServePointOf(rb).Ms, nil, nil,
			sameNote(run.C, fmt.Sprintf("tp %d", r.TP)))
		cmp.CompareFigures(report.ServeFigures(p), report.ServeFigures(pb))
		return cmp, cmp.WriteText, nil
	}
	var rows, layout []whatif.Row
	if wo.WhatIf {
		var err error
		if rows, err = whatif.SweepServeHardware(run); err != nil {
			return nil, nil, err
		}
		layout = whatif.SweepServe(run, r, whatif.ServeDegrees(run.O))
	}
	w := report.ServeProfileWhatIf{ServeProfile: p, WhatIfPanel: wo.panel(metric, rows, layout, true)}
	return w, func(out io.Writer) error {
		if err := p.WriteText(out); err != nil {
			return err
		}
		return w.WhatIfPanel.WriteText(out)
	}, nil
}

// opTimes is the one-GPU device time per op type of profile p, ms:
// forward and backward in training, forward alone in inference.
func opTimes(p *cluster.Profile, mode simulate.Mode) map[string]float64 {
	out := map[string]float64{}
	for _, o := range p.Ops {
		t := o.FwdS
		if mode == simulate.Train {
			t += o.BwdS
		}
		out[o.Op] += t * 1e3
	}
	return out
}
