package cmd

// This file wires profile's what-if flags: --what-if (the elasticity of
// the total to each hardware parameter), --set NAME=CHANGE (overrides of
// the hardware), and --hw A,B (a comparison of two presets).

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/pipeline"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
	"github.com/wolong-dev/wolong/simulate/whatif"
)

// whatIfFlags are the what-if flags as given.
type whatIfFlags struct {
	whatIf bool
	set    []string
}

// WhatIfOptions are the what-if flags, typed.
type WhatIfOptions struct {
	WhatIf  bool         // --what-if
	Sets    []whatif.Set // --set, applied to the hardware (and to Compare)
	Compare *hw.Hardware // the second of --hw A,B (nil: none)
	// Cluster and LLM runs (cmd/whatif_cluster.go): the --set changes of
	// the cluster and layout, and the second preset's cluster.
	Changes        []whatif.Change
	CompareCluster *cluster.Cluster
	raw            []string // --set as given, typed once the run's kind is known
}

func addWhatIfFlags(c *cobra.Command, f *whatIfFlags) {
	fs := c.Flags()
	fs.BoolVar(&f.whatIf, "what-if", false, "also predict the total with each hardware parameter at -20% and +20% (peaks per dtype, bandwidths, launch, dispatch, host speed, ...; with --cluster the network's bandwidth and latency; with the LLM flags each parallel degree and the micro-batch at its neighbouring valid values), ranked by effect")
	stringArrayVar(fs, &f.set, "set", "change a hardware parameter before predicting: `NAME=+30%`, NAME=-20%, NAME=x1.5 or NAME=VALUE (repeatable; names: "+strings.Join(whatif.Names(), ", ")+"; with --cluster also "+strings.Join(whatif.ClusterNames()[len(whatif.Names()):], ", ")+"; with the LLM flags a degree: tp=4, pp, dp, cp, ep, micro_batch, serving batch)")
	_ = c.RegisterFlagCompletionFunc("set", func(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, p := range whatif.ClusterParams() {
			out = append(out, p.Name+"=\t"+p.Doc)
		}
		for _, n := range append(whatif.TrainDegreeNames(), "batch") {
			out = append(out, n+"=\tLLM layout: "+n)
		}
		return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	})
}

// splitCompare splits --hw A,B into A and B ("" when one is given).
func splitCompare(arg string) (string, string) {
	a, b, _ := strings.Cut(arg, ",")
	return strings.TrimSpace(a), strings.TrimSpace(b)
}

// toOptions checks the what-if flags against the hardware h (already
// resolved from the first of --hw) and the second preset's name.
func (f *whatIfFlags) toOptions(h *hw.Hardware, second string, cluster bool) (*hw.Hardware, WhatIfOptions, error) {
	var o WhatIfOptions
	o.WhatIf = f.whatIf
	if cluster { // typed by applyCluster once the cluster is built
		o.raw = f.set
		if second != "" {
			c, err := hw.Resolve(second)
			if err != nil {
				return nil, o, Usagef("--hw: %v", err)
			}
			o.Compare = c
		}
		return h, o, nil
	}
	for _, s := range f.set {
		set, err := whatif.ParseSet(s, h)
		if err != nil {
			return nil, o, Usagef("%v", err)
		}
		o.Sets = append(o.Sets, set)
	}
	h = whatif.Apply(h, o.Sets)
	if second != "" {
		c, err := hw.Resolve(second)
		if err != nil {
			return nil, o, Usagef("--hw: %v", err)
		}
		o.Compare = whatif.Apply(c, o.Sets)
	}
	return h, o, nil
}

// overrides are the --set changes in words.
func (o WhatIfOptions) overrides(before *hw.Hardware) []string {
	var out []string
	for _, s := range o.Sets {
		out = append(out, s.Spec+": "+s.Param.Fields+" x"+trimFloat(s.Factor))
	}
	return out
}

func trimFloat(f float64) string {
	return strings.TrimRight(strings.TrimRight(strings.Replace(strings.TrimSpace(fmt.Sprintf("%.6f", f)), ",", ".", 1), "0"), ".")
}

// whatIfRun fills p's what-if panel: the sweep over every parameter, each
// prediction a simulation of stage on the edited hardware.
func whatIfRun(opts *ProfileOptions, stage pipeline.Stage, p *report.Profile) error {
	p.Overrides = opts.WhatIf.overrides(opts.Sim.HW)
	if !opts.WhatIf.WhatIf {
		return nil
	}
	rows, err := whatif.Sweep(opts.Sim.HW, p.TotalMs, func(h *hw.Hardware) (float64, error) {
		so := opts.Sim
		so.HW = h
		r, err := pipeline.Simulate(stage, so)
		if err != nil {
			return 0, err
		}
		return r.TotalS * 1e3, nil
	})
	if err != nil {
		return err
	}
	p.WhatIf = &report.WhatIf{Step: whatif.Step, Rows: rows}
	return nil
}

// compareRun predicts stage on the second preset and prints the
// comparison with a.
func compareRun(env *Env, opts *ProfileOptions, stage pipeline.Stage, a *report.Profile, warnings []string) error {
	so := opts.Sim
	so.HW = opts.WhatIf.Compare
	r, err := pipeline.Simulate(stage, so)
	if err != nil {
		return err
	}
	b := report.NewProfile(opts.Path, r.Result, warnings)
	c := report.NewComparison(a, b)
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, c)
	}
	return c.WriteText(env.Out, opts.Top)
}
