package report

// This file implements the LLM reports of `wolong profile --cluster` on a
// decoder transformer: a training step under a TP x PP x DP x EP x CP
// layout (the step split, throughput, MFU against the labelled dense peak,
// the communication by kind, the memory per GPU with its parts and
// whether it fits, the layouts a --strategy auto search ranked) and a
// serving run (TTFT, TPOT, tokens/s per GPU, KV cache).

import (
	"fmt"
	"io"

	"github.com/wolong-dev/wolong/simulate/band"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// LLMProfile is the training report. The JSON form carries the result's
// fields at the top level: model, gpus, tp, pp, dp, ep, cp,
// virtual_stages, sequence_parallel, zero, recompute, micro_batch,
// global_batch, step_ms, compute_ms, comm_ms, bubble_ms, optimizer_ms,
// comm (kind, total_ms, exposed_ms, group, domains), tokens_per_s,
// tokens_per_s_per_gpu, samples_per_s, model_tflops_per_gpu,
// hardware_tflops_per_gpu, mfu, hfu, peak, peak_tflops, memory_per_gpu
// (weights_gb, gradients_gb, optimizer_gb, activations_gb, kv_cache_gb,
// comm_buffers_gb, runtime_gb, total_gb, capacity_gb, fits, stage); and
// the search's alternatives when --strategy auto ran.
type LLMProfile struct {
	*llm.LLMResult
	Machines       int    `json:"machines"`
	GPUsPerMachine int    `json:"gpus_per_machine"`
	NICsPerMachine int    `json:"nics_per_machine"`
	Network        string `json:"network"`
	// Search: layouts predicted and fitting, and the next-fastest ones
	// (the result itself is the fastest); nil without a search.
	Search *LLMSearch `json:"search,omitempty"`
	// Breakdown splits step_ms into causes; ErrorBand is how sure it is
	// (the planner's anchor error for the framework).
	Breakdown []Cause    `json:"breakdown"`
	ErrorBand *ErrorBand `json:"error_band"`
	Caveats
}

// LLMSearch summarizes a --strategy auto search.
type LLMSearch struct {
	Evaluated    int              `json:"evaluated"`
	Fitting      int              `json:"fitting"`
	Alternatives []*llm.LLMResult `json:"alternatives"`
}

// NewLLMProfile wraps a training prediction on c; assumptions and
// warnings are the command's, put before the result's.
func NewLLMProfile(c *cluster.Cluster, r *llm.LLMResult, assumptions, warnings []string) *LLMProfile {
	p := &LLMProfile{LLMResult: r, Machines: c.Machines, GPUsPerMachine: c.GPUsPerMachine, NICsPerMachine: max(1, c.NICsPerMachine), Network: c.Net.Name,
		Caveats: caveatsOf(assumptions, warnings, r.Caveats)}
	p.Breakdown, p.ErrorBand = llmWhy(r)
	return p
}

// NewLLMSearchProfile reports a search's fastest fitting layout with the
// others it kept, or, when none fits, the smallest (its warnings say
// why); nil when the search kept nothing.
func NewLLMSearchProfile(c *cluster.Cluster, s *llm.SearchResult, assumptions, warnings []string) *LLMProfile {
	best := s.Smallest
	var alt []*llm.LLMResult
	if len(s.Best) > 0 {
		best, alt = s.Best[0], s.Best[1:]
	}
	if best == nil {
		return nil
	}
	p := NewLLMProfile(c, best, assumptions, warnings)
	p.Search = &LLMSearch{Evaluated: s.Evaluated, Fitting: s.Fitting, Alternatives: alt}
	return p
}

// WriteText prints the layout, the step split, throughput and MFU, the
// communication by kind, the memory per GPU, the search's alternatives
// and the assumptions.
func (p *LLMProfile) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	r := p.LLMResult
	writeLLMHeader(ew, r, p.GPUsPerMachine, p.NICsPerMachine)
	writeLLMStep(ew, r)
	writeMemory(ew, r.Memory, fmt.Sprintf("stage %d", r.Memory.Stage))
	if s := p.Search; s != nil {
		fmt.Fprintf(ew, "\nSearch: %d layouts predicted, %d fit", s.Evaluated, s.Fitting)
		if len(s.Alternatives) == 0 {
			fmt.Fprintln(ew)
		} else {
			fmt.Fprintln(ew, "; the next fastest:")
			var rows [][]string
			for _, a := range s.Alternatives {
				rows = append(rows, []string{a.Layout(), Millis(a.StepMs / 1e3), Pct(a.MFU), fmt.Sprintf("%.1f GB", a.Memory.TotalGB)})
			}
			ew.check(WriteTable(ew, []string{"layout", "step", "MFU", "memory"}, rows))
		}
	}
	writeNotes(ew, p.Assumptions)
	return ew.err
}

// writeLLMHeader prints the model, cluster, layout and batch of a step.
func writeLLMHeader(ew *errWriter, r *llm.LLMResult, perMachine, nics int) {
	fmt.Fprintf(ew, "Model: %s\n", r.Model)
	fmt.Fprintf(ew, "Cluster: %s (%d GPUs, %d per NVLink domain, %d NIC(s) per machine)\n", r.Cluster, r.GPUs, perMachine, nics)
	fmt.Fprintf(ew, "Layout: %s; %s, framework %s\n", r.Layout(), r.DType, r.Framework)
	fmt.Fprintf(ew, "Batch: %d sequences of %d tokens per step, %d micro-batch(es) of %d per pipeline\n\n", r.GlobalBatch, r.Seq, r.MicroBatches, r.MicroBatch)
}

// writeLLMStep prints a training step's prediction: the step split,
// throughput, MFU and the communication by kind.
func writeLLMStep(ew *errWriter, r *llm.LLMResult) {
	fmt.Fprintf(ew, "Predicted step time: %s, %.4g tokens/s (%.4g per GPU)\n", Millis(r.StepMs/1e3), r.TokensPerS, r.TokensPerSPerGPU)
	rows := [][]string{
		{"compute (heaviest stage)", Millis(r.ComputeMs / 1e3), share(r.ComputeMs, r.StepMs)},
		{"exposed communication", Millis(r.CommMs / 1e3), share(r.CommMs, r.StepMs)},
	}
	if r.OverheadMs > 0 {
		rows = append(rows, []string{"framework overhead", Millis(r.OverheadMs / 1e3), share(r.OverheadMs, r.StepMs)})
	}
	rows = append(rows, [][]string{
		{"pipeline bubble", Millis(r.BubbleMs / 1e3), share(r.BubbleMs, r.StepMs)},
		{"optimizer", Millis(r.OptimizerMs / 1e3), share(r.OptimizerMs, r.StepMs)},
	}...)
	ew.check(WriteTable(ew, []string{"part of the step", "time", "share"}, rows))
	fmt.Fprintf(ew, "MFU %s, HFU %s of the %s; %.4g model TFLOP/s per GPU (%.4g with recomputation)\n",
		Pct(r.MFU), Pct(r.HFU), r.Peak, r.ModelTFLOPSPerGPU, r.HardwareTFLOPSPerGPU)
	if len(r.Comm) > 0 {
		fmt.Fprintln(ew, "\nCommunication per step (heaviest stage):")
		var rows [][]string
		for _, c := range r.Comm {
			rows = append(rows, []string{c.Kind, fmt.Sprint(c.Group), fmt.Sprint(c.Domains), Millis(c.TotalMs / 1e3), Millis(c.ExposedMs / 1e3)})
		}
		ew.check(WriteTable(ew, []string{"kind", "ranks", "domains", "total", "exposed"}, rows))
	}
}

// writeMemory prints one GPU's memory by part and whether it fits.
func writeMemory(ew *errWriter, m llm.Memory, where string) {
	verdict := "fits"
	if !m.Fits {
		verdict = "DOES NOT FIT"
	}
	fmt.Fprintf(ew, "\nMemory per GPU (%s): %.1f of %.0f GB, %s\n", where, m.TotalGB, m.CapacityGB, verdict)
	var rows [][]string
	for _, part := range []struct {
		name string
		gb   float64
	}{{"weights", m.WeightsGB}, {"gradients", m.GradientsGB}, {"optimizer states", m.OptimizerGB}, {"activations", m.ActivationsGB},
		{"kv cache", m.KVCacheGB}, {"communication buffers", m.CommBuffersGB}, {"runtime", m.RuntimeGB}} {
		if part.gb > 0 {
			rows = append(rows, []string{part.name, fmt.Sprintf("%.2f GB", part.gb), share(part.gb, m.TotalGB)})
		}
	}
	ew.check(WriteTable(ew, []string{"part", "size", "share"}, rows))
}

// ServeProfile is the serving report; its JSON form carries the result's
// fields at the top level (tp, replicas, batch, prompt, output, ttft_ms,
// tpot_ms, decode_first_ms, decode_last_ms, request_ms, tokens_per_s,
// tokens_per_s_per_gpu, decode_tokens_per_s_per_gpu, tp_comm_ms,
// max_batch, memory_per_gpu).
type ServeProfile struct {
	*llm.ServeResult
	// ErrorBand is the serving simulator's anchor error (TensorRT-LLM
	// tables), around the time per output token and the first token's.
	ErrorBand *band.Band `json:"error_band"`
	Caveats
}

// NewServeProfile wraps a serving prediction.
func NewServeProfile(r *llm.ServeResult, assumptions, warnings []string) *ServeProfile {
	b := band.LLM("serve")
	return &ServeProfile{ServeResult: r, ErrorBand: &b, Caveats: caveatsOf(assumptions, warnings, r.Caveats)}
}

// WriteText prints the latencies, throughput, memory and assumptions.
func (p *ServeProfile) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	r := p.ServeResult
	if r.Requests != nil {
		writeServeRequests(ew, r)
		writeServeSearch(ew, r.Search)
		writeMemory(ew, r.Memory, "each GPU of a replica")
		writeNotes(ew, p.Assumptions)
		return ew.err
	}
	fmt.Fprintf(ew, "Model: %s\n", r.Model)
	fmt.Fprintf(ew, "Serving: %d %s as %d replica(s) of tp %d, %s; batch %d, %d prompt + %d output tokens per sequence\n\n",
		r.GPUs, r.GPU, r.Replicas, r.TP, r.DType, r.Batch, r.Prompt, r.Output)
	ew.check(WriteTable(ew, []string{"measure", "value"}, [][]string{
		{"time to first token (prefill of the batch)", Millis(r.TTFTMs / 1e3)},
		{"time per output token (mean)", Millis(r.TPOTMs / 1e3)},
		{"decode step, first .. last", Millis(r.DecodeFirstMs/1e3) + " .. " + Millis(r.DecodeLastMs/1e3)},
		{"of which tensor-parallel all-reduces", Millis(r.TPCommMs / 1e3)},
		{"request latency", Millis(r.RequestMs / 1e3)},
		{"tokens/s (cluster)", fmt.Sprintf("%.4g", r.TokensPerS)},
		{"tokens/s per GPU", fmt.Sprintf("%.4g", r.TokensPerSPerGPU)},
		{"decode tokens/s per GPU (no prefill)", fmt.Sprintf("%.4g", r.DecodeTokensPerSPerGPU)},
		{"largest batch that fits", fmt.Sprint(r.MaxBatch)},
	}))
	writeMemory(ew, r.Memory, "each GPU of a replica")
	writeNotes(ew, p.Assumptions)
	return ew.err
}
