package report

// This file implements the layout plan of `wolong optimize --cluster` with
// the LLM flags: a training layout to launch (the degrees, the layers of
// each pipeline stage and model chunk, where each parallel group's ranks
// sit, the Megatron-LM arguments) with its predicted step, memory per GPU
// by part and per-step collectives. The JSON form is the plan file.

import (
	"fmt"
	"io"
	"strings"

	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// LLMPlan is the plan report. Its JSON form carries llm.LLMPlan's
// fields (the result's at the top level: tp, pp, dp, ep, cp,
// virtual_stages, sequence_parallel, zero, recompute, micro_batch,
// global_batch, step_ms, mfu, tokens_per_s, memory_per_gpu, comm; and
// architecture, stages, ranks, megatron_args, notes) with the machines,
// network, assumptions and warnings.
type LLMPlan struct {
	*llm.LLMPlan
	Machines       int    `json:"machines"`
	GPUsPerMachine int    `json:"gpus_per_machine"`
	NICsPerMachine int    `json:"nics_per_machine"`
	Network        string `json:"network"`
	Caveats
}

// NewLLMPlan wraps plan p on c; assumptions and warnings are the
// command's, put before the result's.
func NewLLMPlan(c *cluster.Cluster, p *llm.LLMPlan, assumptions, warnings []string) *LLMPlan {
	prof := NewLLMProfile(c, p.LLMResult, assumptions, warnings)
	return &LLMPlan{LLMPlan: p, Machines: prof.Machines, GPUsPerMachine: prof.GPUsPerMachine, NICsPerMachine: prof.NICsPerMachine,
		Network: prof.Network, Caveats: prof.Caveats}
}

// WriteText prints the plan: layout, stages, rank groups, the Megatron-LM
// arguments, the predicted step, memory per GPU and the assumptions.
func (p *LLMPlan) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	r := p.LLMResult
	writeLLMHeader(ew, r, p.GPUsPerMachine, p.NICsPerMachine)
	fmt.Fprintln(ew, "Pipeline stages:")
	var rows [][]string
	for _, s := range p.Stages {
		var chunks []string
		for i, c := range s.Chunks {
			switch {
			case c.Empty() && i == 0 && s.Embedding:
				chunks = append(chunks, "(embedding)")
			case c.Empty():
				chunks = append(chunks, "(head)")
			case c.FirstLayer == c.LastLayer:
				chunks = append(chunks, fmt.Sprint(c.FirstLayer))
			default:
				chunks = append(chunks, fmt.Sprintf("%d-%d", c.FirstLayer, c.LastLayer))
			}
		}
		var holds []string
		if s.Embedding {
			holds = append(holds, "embedding")
		}
		if s.Head {
			holds = append(holds, "head")
		}
		rows = append(rows, []string{fmt.Sprint(s.Stage), fmt.Sprint(s.Layers), strings.Join(chunks, ", "), strings.Join(holds, ", "),
			fmt.Sprintf("%d-%d", s.FirstMachine, s.LastMachine)})
	}
	ew.check(WriteTable(ew, []string{"stage", "layers", "layer ranges", "also", "machines"}, rows))
	fmt.Fprintf(ew, "\nRanks (order %s): %s\n", p.Ranks.Order, p.Ranks.Formula)
	rows = nil
	for _, g := range p.Ranks.Groups {
		rows = append(rows, []string{g.Kind, fmt.Sprint(g.Size), fmt.Sprint(g.Stride), fmt.Sprint(g.Groups), fmt.Sprint(g.Domains), g.Where})
	}
	ew.check(WriteTable(ew, []string{"group", "size", "stride", "groups", "domains", "what"}, rows))
	fmt.Fprintf(ew, "\nMegatron-LM arguments:\n  %s\n", p.MegatronArgs)
	for _, n := range p.Notes {
		fmt.Fprintf(ew, "  note: %s\n", n)
	}
	fmt.Fprintln(ew)
	writeLLMStep(ew, r)
	writeMemory(ew, r.Memory, fmt.Sprintf("stage %d", r.Memory.Stage))
	writeNotes(ew, p.Assumptions)
	return ew.err
}
