package report

// This file gives the cluster and LLM predictions their breakdowns and
// error bands (issue 31), from what their result structs hold: the
// causes add up to step_ms, with "other" the remainder the model does not
// split (0 where the parts are exhaustive).

import (
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/band"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// causesOf builds causes over totalMs from (cause, detail, ms) parts,
// adding "other" for the remainder and dropping empty parts.
func causesOf(totalMs float64, parts ...Cause) []Cause {
	out := []Cause{}
	var sum float64
	for _, p := range parts {
		if p.Ms <= 0 {
			continue
		}
		sum += p.Ms
		out = append(out, p)
	}
	if rest := totalMs - sum; rest > 1e-9*math.Max(totalMs, 1) {
		out = append(out, Cause{Cause: simulate.CauseOther, Detail: "not split by the model", Ms: rest})
	}
	for i := range out {
		out[i].Label = simulate.CauseLabels[out[i].Cause]
		if totalMs > 0 {
			out[i].Pct = out[i].Ms / totalMs
		}
	}
	return out
}

// clusterWhy is the breakdown and band of a cluster step.
func clusterWhy(c *cluster.Cluster, r *cluster.Result) ([]Cause, *ErrorBand) {
	link := c.Net.Name
	if c.Machines <= 1 {
		link = c.Intra
	}
	cs := causesOf(r.StepMs,
		Cause{Cause: "compute", Detail: "the busiest GPU's kernels", Ms: r.ComputeMs},
		Cause{Cause: simulate.CauseComm, Detail: fmt.Sprintf("%s %s over %s", r.Strategy, r.Algorithm, link), Ms: r.CommMs},
		Cause{Cause: simulate.CauseBubble, Ms: r.BubbleMs})
	var dev band.Band
	if h, err := hw.Preset(r.GPU); err == nil {
		dev = band.ForRun(h, nil, r.StepMs)
	} else {
		dev = band.ForRun(nil, nil, r.StepMs)
	}
	return cs, NewErrorBand(band.Cluster(dev), r.StepMs)
}

// llmWhy is the breakdown and band of an LLM training step: compute less
// the recomputed forward (hardware over model FLOPs), recompute, the
// exposed communication by kind (step_ms's comm_ms shared in proportion
// to each kind's exposed time), bubble, optimizer and framework overhead.
func llmWhy(r *llm.LLMResult) ([]Cause, *ErrorBand) {
	rec := 0.0
	if r.HardwareTFLOPSPerGPU > 0 && r.ModelTFLOPSPerGPU < r.HardwareTFLOPSPerGPU {
		rec = r.ComputeMs * (1 - r.ModelTFLOPSPerGPU/r.HardwareTFLOPSPerGPU)
	}
	parts := []Cause{
		{Cause: "compute", Detail: "the heaviest stage's kernels, recomputation excluded", Ms: r.ComputeMs - rec},
		{Cause: simulate.CauseRecompute, Ms: rec},
	}
	var exposed float64
	for _, c := range r.Comm {
		exposed += c.ExposedMs
	}
	if exposed > 0 {
		for _, c := range r.Comm {
			link := "nvlink"
			if c.Domains > 1 {
				link = "network"
			}
			parts = append(parts, Cause{Cause: simulate.CauseComm, Detail: fmt.Sprintf("%s over %s (%d ranks)", c.Kind, link, c.Group), Ms: r.CommMs * c.ExposedMs / exposed})
		}
	} else {
		parts = append(parts, Cause{Cause: simulate.CauseComm, Ms: r.CommMs})
	}
	parts = append(parts, Cause{Cause: simulate.CauseBubble, Ms: r.BubbleMs},
		Cause{Cause: "compute", Detail: "optimizer update", Ms: r.OptimizerMs},
		Cause{Cause: simulate.CauseFramework, Ms: r.OverheadMs})
	return causesOf(r.StepMs, parts...), NewErrorBand(band.LLM(r.Framework), r.StepMs)
}
