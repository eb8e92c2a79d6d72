package report

// This file implements the request-level serving report (`profile
// --serve` with --requests, --rate or --workload): the latency
// distributions (TTFT, TPOT, end-to-end), throughput and goodput, the
// scheduler's KV use and preemptions, where the engines' time went; and
// the iterations as a Perfetto timeline (one process per engine, one
// slice per iteration with its mix).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/wolong-dev/wolong/simulate/llm"
)

// writeServeRequests prints a request-level run.
func writeServeRequests(ew *errWriter, r *llm.ServeResult) {
	s := r.Requests
	rate := "all at once (offline, max load)"
	if !s.Offline {
		rate = fmt.Sprintf("Poisson at %.4g requests/s", s.RateRPS)
	}
	fmt.Fprintf(ew, "Model: %s\n", r.Model)
	deploy := fmt.Sprintf("%d replica(s) of tp %d x pp %d", s.Replicas, r.TP, s.PP)
	if s.Disagg != "" {
		deploy += ", disaggregated prefill:decode " + s.Disagg
	}
	fmt.Fprintf(ew, "Serving: %d %s as %s, router %s; %s\n", r.GPUs, r.GPU, deploy, s.Router, s.Precision)
	fmt.Fprintf(ew, "Workload: %d requests, %s, %d prompt + %d output tokens (%s lengths)\n", s.Requests, rate, r.Prompt, r.Output, s.LengthDist)
	fmt.Fprintf(ew, "Scheduler (%s): %d sequences and %d tokens per iteration, chunked prefill %v, %d KV blocks of %d tokens (%d tokens), preemption %s, prefix caching %v\n\n",
		s.Runtime, s.MaxSeqs, s.MaxBatchedTokens, s.ChunkedPrefill, s.KVBlocks, s.BlockSize, s.KVTokens, s.Preemption, s.PrefixCaching)
	row := func(name string, d llm.Dist) []string {
		return []string{name, Millis(d.MeanMs / 1e3), Millis(d.P50Ms / 1e3), Millis(d.P90Ms / 1e3), Millis(d.P99Ms / 1e3)}
	}
	ew.check(WriteTable(ew, []string{"latency", "mean", "p50", "p90", "p99"}, [][]string{
		row("time to first token", s.TTFT), row("time per output token", s.TPOT), row("longest token gap", s.MaxGap), row("request (end to end)", s.E2E),
	}))
	rows := [][]string{
		{"duration", fmt.Sprintf("%.4g s", s.DurationS)},
		{"output tokens/s (per GPU)", fmt.Sprintf("%.4g (%.4g)", s.OutputTokensPerS, s.OutputTokensPerSPerGPU)},
		{"total tokens/s (per GPU)", fmt.Sprintf("%.4g (%.4g)", s.TotalTokensPerS, s.TotalTokensPerSPerGPU)},
		{"requests/s", fmt.Sprintf("%.4g", s.RequestsPerS)},
	}
	if s.SLO != nil {
		rows = append(rows, []string{fmt.Sprintf("goodput under ttft <= %g ms, tpot <= %g ms", s.SLO.TTFTMs, s.SLO.TPOTMs),
			fmt.Sprintf("%.4g requests/s, %.4g output tokens/s (%.4g per GPU), %s of requests", s.GoodputRPS, s.GoodputTokensPerS, s.GoodputTokensPerSGPU, Pct(s.SLOAttainment))})
	}
	rows = append(rows, [][]string{
		{"KV cache use, mean (peak)", fmt.Sprintf("%s (%s)", Pct(s.KVUtilMean), Pct(s.KVUtilPeak))},
		{"preemptions", fmt.Sprint(s.Preemptions)},
		{"iterations; mean tokens, decodes", fmt.Sprintf("%d; %.4g, %.4g", s.Iterations, s.MeanBatchTokens, s.MeanDecodes)},
	}...)
	if s.PrefixHitTokens > 0 {
		rows = append(rows, []string{"prefix-cache hits", fmt.Sprintf("%d tokens", s.PrefixHitTokens)})
	}
	fmt.Fprintln(ew)
	ew.check(WriteTable(ew, []string{"measure", "value"}, rows))
	p := s.TimeParts
	total := p.ComputeMs + p.CommMs + p.HostMs + p.SwapMs + p.IdleMs
	fmt.Fprintln(ew, "\nEngine time (summed over engines):")
	ew.check(WriteTable(ew, []string{"part", "time", "share"}, [][]string{
		{"kernels", Millis(p.ComputeMs / 1e3), share(p.ComputeMs, total)},
		{"tensor/pipeline-parallel communication", Millis(p.CommMs / 1e3), share(p.CommMs, total)},
		{"runtime host time (exposed)", Millis(p.HostMs / 1e3), share(p.HostMs, total)},
		{"swaps", Millis(p.SwapMs / 1e3), share(p.SwapMs, total)},
		{"idle (waiting for requests)", Millis(p.IdleMs / 1e3), share(p.IdleMs, total)},
	}))
}

// WriteServeTrace writes a request-level run's iterations as Chrome-trace
// JSON (ui.perfetto.dev): one process per engine, one slice per
// iteration named by its mix, with its parts as arguments.
func WriteServeTrace(w io.Writer, r *llm.ServeResult) error {
	tr := &Trace{DisplayTimeUnit: "ms", OtherData: map[string]string{
		"model": r.Model, "gpu": r.GPU, "producer": "wolong profile --serve (predicted, not measured)",
	}}
	if r.Requests == nil {
		return fmt.Errorf("no request-level run to trace")
	}
	for e, its := range r.Requests.Trace {
		tr.TraceEvents = append(tr.TraceEvents, TraceEvent{Name: "process_name", Ph: "M", Pid: e, Args: map[string]any{"name": fmt.Sprintf("engine %d (tp %d)", e, r.TP)}})
		for _, it := range its {
			name := fmt.Sprintf("decode %d", it.Decodes)
			if it.Prefills > 0 {
				name = fmt.Sprintf("prefill %d + decode %d", it.Prefills, it.Decodes)
			}
			tr.TraceEvents = append(tr.TraceEvents, TraceEvent{Name: name, Cat: "iteration", Ph: "X", Ts: it.StartMs * 1e3, Dur: it.DurMs * 1e3, Pid: e,
				Args: map[string]any{"tokens": it.Tokens, "decodes": it.Decodes, "prefills": it.Prefills, "kv_blocks_used": it.KVUse,
					"compute_ms": it.ComputeMs, "comm_ms": it.CommMs, "host_ms": it.HostMs}})
		}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tr); err != nil {
		return err
	}
	return bw.Flush()
}

// writeServeSearch prints a serving search's ranking and launch flags.
func writeServeSearch(ew *errWriter, s *llm.ServeSearch) {
	if s == nil {
		return
	}
	fmt.Fprintf(ew, "\nSearch: %d layouts simulated (%d fit) in %.1f s, ranked by goodput per GPU:\n", s.Evaluated, s.Fitting, s.ElapsedS)
	var rows [][]string
	for _, c := range s.Ranked {
		if !c.Fits {
			rows = append(rows, []string{c.Layout(), "does not fit", "", "", ""})
			continue
		}
		rows = append(rows, []string{c.Layout(), fmt.Sprintf("%.4g", c.GoodputPerGPU), Pct(c.SLOAttainment), Millis(c.TTFTP99Ms / 1e3), Millis(c.TPOTP99Ms / 1e3)})
	}
	ew.check(WriteTable(ew, []string{"layout", "goodput tok/s/GPU", "within SLO", "TTFT p99", "TPOT p99"}, rows))
	fmt.Fprintf(ew, "Launch (vLLM): %s\nLaunch (TensorRT-LLM): %s\n", s.VLLM, s.TRTLLM)
}
