package cmd

// This file types `wolong profile --serve`'s request-level flags (issue
// 28): a workload (--requests --rate --workload --length-dist
// --prefix-tokens --seed), the serving runtime and its scheduler
// (--runtime --max-batched-tokens --block-size --kv-fraction
// --no-chunked-prefill --preemption --prefix-caching; --batch is the
// sequence limit), the deployment (--pp --replicas --router --disagg),
// the precision (--kv-dtype --fp8-attention) and the objective (--slo).
// Any of them makes --serve a request-level simulation
// (llm.ServeLoad); without them --serve is today's static batch.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/llm"
	"github.com/wolong-dev/wolong/simulate/whatif"
)

// ServeLoadFlags are --serve's request-level flags as given.
type ServeLoadFlags struct {
	Requests         int
	Rate             string
	Workload         string
	LengthDist       string
	PrefixTokens     int
	Seed             uint64
	Runtime          string
	MaxBatchedTokens int
	BlockSize        int
	KVFraction       float64
	NoChunkedPrefill bool
	MaxTokens        int
	Preemption       string
	PrefixCaching    bool
	Replicas         int
	Router           string
	Disagg           string
	SLO              string
	KVDType          string
	FP8Attention     bool
	Static           bool // --static: one static batch (the planner before issue 28)
}

// serveLoadFlags are the flags that make --serve request-level.
var serveLoadFlags = []string{"requests", "rate", "workload", "length-dist", "prefix-tokens", "seed", "max-batched-tokens", "block-size",
	"kv-fraction", "no-chunked-prefill", "max-tokens", "preemption", "prefix-caching", "replicas", "router", "disagg", "slo", "kv-dtype", "fp8-attention"}

// addServeLoadFlags registers them.
func addServeLoadFlags(c *cobra.Command, o *ServeLoadFlags) {
	f := c.Flags()
	f.IntVar(&o.Requests, "requests", 0, "LLM --serve: run `N` requests through an in-flight-batching scheduler (default: enough to fill the replicas 4 times, at least 1000)")
	f.StringVar(&o.Rate, "rate", "", "LLM --serve: Poisson arrival rate, requests/s, or max (all at once: the offline / max-load scenario; the default)")
	f.StringVar(&o.Workload, "workload", "", "LLM --serve: read the requests from `FILE` (JSONL: {\"arrival_s\":0.1,\"prompt\":512,\"output\":128} per line; or CSV with a header arrival_s,prompt,output)")
	f.StringVar(&o.LengthDist, "length-dist", "", "LLM --serve: prompt and output lengths about --prompt/--output: fixed (default), uniform (0.5-1.5x) or exponential")
	f.IntVar(&o.PrefixTokens, "prefix-tokens", 0, "LLM --serve: every generated prompt starts with the same `N` tokens (a system prompt; see --prefix-caching)")
	f.Uint64Var(&o.Seed, "seed", 0, "LLM --serve: seed of the arrivals and lengths")
	f.IntVar(&o.MaxBatchedTokens, "max-batched-tokens", 0, "LLM --serve: tokens per iteration (default: the runtime's, 8192); --batch is the sequences per iteration")
	f.IntVar(&o.BlockSize, "block-size", 0, "LLM --serve: tokens per paged KV block (default: the runtime's)")
	f.Float64Var(&o.KVFraction, "kv-fraction", 0, "LLM --serve: fraction of the memory left after weights and working set for the KV cache (default 0.9)")
	f.BoolVar(&o.NoChunkedPrefill, "no-chunked-prefill", false, "LLM --serve: prefill whole prompts in iterations of their own")
	f.IntVar(&o.MaxTokens, "max-tokens", 0, "LLM --serve: each request's max_tokens, what a reserving scheduler (trtllm) sets aside for its output (default: its output length, as trtllm-bench sets it)")
	f.StringVar(&o.Preemption, "preemption", "", "LLM --serve: when KV blocks run out, recompute (default) or swap the evicted sequence (with --runtime vllm; trtllm reserves each request's blocks and never evicts)")
	f.BoolVar(&o.PrefixCaching, "prefix-caching", false, "LLM --serve: reuse the KV blocks of a shared prompt prefix")
	f.IntVar(&o.Replicas, "replicas", 0, "LLM --serve: data-parallel replicas (default: the GPUs / (tp x pp))")
	f.StringVar(&o.Router, "router", "", "LLM --serve: round-robin (default) or least-loaded over the replicas")
	f.StringVar(&o.Disagg, "disagg", "", "LLM --serve: `P:D` prefill and decode replicas (disaggregated serving; the KV cache sent over the network)")
	f.StringVar(&o.SLO, "slo", "", "LLM --serve: latency objective `ttft=MS,tpot=MS` for goodput")
	f.StringVar(&o.KVDType, "kv-dtype", "", "LLM --serve: KV cache type bf16|fp16|fp8 (default fp8 with --dtype fp8/fp4, else the weights')")
	f.BoolVar(&o.FP8Attention, "fp8-attention", false, "LLM --serve: run attention in fp8 (needs an fp8 KV cache)")
	f.BoolVar(&o.Static, "static", false, "LLM --serve: one static batch of --batch sequences prefilled together and decoded in lockstep, instead of requests through an in-flight-batching scheduler")
	comp := func(vals ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = c.RegisterFlagCompletionFunc("router", comp(string(llm.RouteRoundRobin), string(llm.RouteLeastLoaded)))
	_ = c.RegisterFlagCompletionFunc("preemption", comp(string(llm.PreemptRecompute), string(llm.PreemptSwap)))
	_ = c.RegisterFlagCompletionFunc("length-dist", comp(string(llm.LengthFixed), string(llm.LengthUniform), string(llm.LengthExponential)))
	_ = c.RegisterFlagCompletionFunc("rate", comp("max"))
}

// serveLoad types the flags (nil when none is given, nor --pp); pp is
// --pp.
func (o *ServeLoadFlags) serveLoad(changed func(string) bool, pp int) (*llm.ServeLoad, error) {
	if firstChanged(changed, serveLoadFlags) == "" && !changed("pp") && o.Runtime == "" {
		return nil, nil
	}
	l := &llm.ServeLoad{Requests: o.Requests, PrefixTokens: o.PrefixTokens, Seed: o.Seed, MaxBatchedTokens: o.MaxBatchedTokens,
		BlockSize: o.BlockSize, KVFraction: o.KVFraction, NoChunkedPrefill: o.NoChunkedPrefill, MaxTokens: o.MaxTokens, PrefixCaching: o.PrefixCaching, Replicas: o.Replicas,
		FP8Attention: o.FP8Attention, PP: pp}
	if err := l.Validate(); err != nil {
		return nil, Usagef("--%v", err)
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"requests", o.Requests}, {"max-batched-tokens", o.MaxBatchedTokens}, {"block-size", o.BlockSize}, {"replicas", o.Replicas}, {"max-tokens", o.MaxTokens}} {
		if v.n == 0 && changed(v.name) { // 0 is the default: given, it is out of range
			return nil, Usagef("--%s 0: want 1..%d", v.name, llm.MaxServeCount)
		}
	}
	if changed("kv-fraction") && o.KVFraction == 0 {
		return nil, Usagef("--kv-fraction 0: want 0 < f <= 1")
	}
	if err := o.parseChoices(l); err != nil {
		return nil, err
	}
	if o.Workload != "" {
		if changed("requests") || changed("rate") || changed("length-dist") || changed("prefix-tokens") {
			return nil, Usagef("--workload lists the requests: --requests, --rate, --length-dist and --prefix-tokens do not apply")
		}
		f, err := os.Open(o.Workload)
		if err != nil {
			return nil, Usagef("--workload: %v", err)
		}
		defer f.Close()
		if l.Workload, err = llm.ReadWorkload(f, o.Workload); err != nil {
			return nil, Usagef("--workload: %v", err)
		}
	}
	return l, nil
}

// parseChoices types --serve's named choices and lists into l: --rate,
// --length-dist, --runtime, --preemption, --router, --disagg, --slo and
// --kv-dtype.
func (o *ServeLoadFlags) parseChoices(l *llm.ServeLoad) error {
	var err error
	if l.Rate, err = parseRate(o.Rate); err != nil {
		return err
	}
	if l.LengthDist, err = llm.ParseLengthDist(o.LengthDist); err != nil {
		return Usagef("--length-dist: %v", err)
	}
	if o.Runtime != "" {
		if l.Runtime, err = llm.ServeRuntimePreset(o.Runtime); err != nil {
			return Usagef("--runtime: %v", err)
		}
	}
	if o.Preemption != "" {
		p, err := parseChoice("preemption", o.Preemption, string(llm.PreemptRecompute), string(llm.PreemptSwap))
		if err != nil {
			return err
		}
		l.Preemption = llm.Preemption(p)
	}
	if l.Router, err = llm.ParseRouter(o.Router); err != nil {
		return Usagef("--router: %v", err)
	}
	if o.Disagg != "" {
		if l.DisaggPrefill, l.DisaggDecode, err = parseDisagg(o.Disagg); err != nil {
			return err
		}
	}
	if o.SLO != "" {
		if l.SLO, err = parseSLO(o.SLO); err != nil {
			return err
		}
	}
	if o.KVDType != "" {
		if l.KV, err = parseLLMDType("kv-dtype", o.KVDType); err != nil {
			return err
		}
	}
	return nil
}

// parseRate types --rate: requests/s, or max (0: all at once).
func parseRate(s string) (float64, error) {
	if s == "" || strings.EqualFold(s, "max") || strings.EqualFold(s, "inf") {
		return 0, nil
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(r) || math.IsInf(r, 0) || r <= 0 || r > 1e9 {
		return 0, Usagef("--rate %q: want requests per second (> 0) or max", s)
	}
	return r, nil
}

// parseDisagg types --disagg P:D.
func parseDisagg(s string) (int, int, error) {
	p, d, ok := strings.Cut(s, ":")
	np, e1 := strconv.Atoi(strings.TrimSpace(p))
	nd, e2 := strconv.Atoi(strings.TrimSpace(d))
	if !ok || e1 != nil || e2 != nil || np < 1 || nd < 1 || np > 1<<16 || nd > 1<<16 {
		return 0, 0, Usagef("--disagg %q: want P:D, prefill and decode replicas >= 1 (2:6)", s)
	}
	return np, nd, nil
}

// parseSLO types --slo ttft=MS,tpot=MS (either may be left out).
func parseSLO(s string) (llm.SLO, error) {
	var slo llm.SLO
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "ms"), 64)
		if !ok || err != nil || math.IsNaN(x) || x <= 0 || x > 1e9 {
			return slo, Usagef("--slo %q: want ttft=MS,tpot=MS (milliseconds > 0)", s)
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "ttft":
			slo.TTFTMs = x
		case "tpot", "itl":
			slo.TPOTMs = x
		default:
			return slo, Usagef("--slo %q: unknown objective %q (want ttft and tpot)", s, k)
		}
	}
	return slo, nil
}

// parseChoice returns the one of values s spells (any case).
func parseChoice(flag, s string, values ...string) (string, error) {
	for _, v := range values {
		if strings.EqualFold(s, v) {
			return v, nil
		}
	}
	return "", Usagef("--%s %q: want %s", flag, s, strings.Join(values, " or "))
}

// llmDTypeNames are the spellings of the LLM planner's types.
var llmDTypeNames = map[string]ir.DType{
	"bf16": ir.BFloat16, "bfloat16": ir.BFloat16, "fp16": ir.Float16, "float16": ir.Float16, "half": ir.Float16,
	"fp8": ir.Float8E4M3FN, "float8": ir.Float8E4M3FN, "e4m3": ir.Float8E4M3FN, "float8e4m3fn": ir.Float8E4M3FN, "fp8e4m3": ir.Float8E4M3FN,
	"fp4": ir.Float4E2M1, "nvfp4": ir.Float4E2M1, "mxfp4": ir.Float4E2M1, "float4e2m1": ir.Float4E2M1,
}

// parseLLMDType types an LLM precision flag.
func parseLLMDType(flag, s string) (ir.DType, error) {
	if d, ok := llmDTypeNames[strings.ToLower(strings.TrimSpace(s))]; ok {
		return d, nil
	}
	return ir.Undefined, Usagef("--%s %q: want bf16, fp16, fp8 or fp4 (bfloat16, float16, float8e4m3fn, float4e2m1)", flag, s)
}

// profileServeLoad runs a request-level serving simulation and prints it
// (and its --trace). A layout that does not fit is an error (exit 1)
// saying which memory part overflows and what would fit; nothing is
// printed as if it ran.
func profileServeLoad(env *Env, opts *ProfileOptions, t *llm.Transformer, assumptions, warnings []string) error {
	lr := opts.Cluster.LLM
	o := *lr.Serve
	if opts.Trace != "" {
		l := *o.Load
		l.KeepIterations = true
		o.Load = &l
	}
	out := newOutputs(opts.Path)
	defer out.abort()
	if err := out.check("--trace", opts.Trace); err != nil {
		return err
	}
	var sr whatif.ServeRun
	var r *llm.ServeResult
	var err error
	if lr.ServeSearch {
		r, err = llm.SearchServe(t, opts.Cluster.Cluster, o)
	} else {
		sr, r, err = serveRunOf(t, opts.Cluster.Cluster, o, opts.WhatIf.Changes)
	}
	var nf *llm.NotFitError
	if errors.As(err, &nf) {
		env.warn(warnings)
		return fmt.Errorf("%s; memory per GPU: %s", nf.Error(), nf.Memory)
	}
	if err != nil {
		return layoutErr(err)
	}
	if opts.Trace != "" {
		if err := out.write("--trace", opts.Trace, func(w io.Writer) error { return report.WriteServeTrace(w, r) }); err != nil {
			return err
		}
		if err := out.commit(); err != nil {
			return err
		}
	}
	p := report.NewServeProfile(r, assumptions, warnings)
	pr, text, err := serveWhatIf(opts, sr, r, p, assumptions, warnings)
	if err != nil {
		return err
	}
	return writeLLM(env, opts.Format, pr, text, p.Warnings, r.Memory, "serving")
}

// serveNotFit is the error of a static serving batch that does not fit:
// which part overflows (llm.Memory.Overflowing) and what would fit, with
// the flags that change it (no latency is printed as if it ran).
func serveNotFit(r *llm.ServeResult) error {
	fit := fmt.Sprintf("at most %d sequences of %d tokens fit (--batch %d)", r.MaxBatch, r.Prompt+r.Output, r.MaxBatch)
	if r.MaxBatch == 0 {
		fit = "not one sequence fits: raise --tp, use --dtype fp8, or more GPUs per replica"
	}
	return fmt.Errorf("serving batch %d does not fit in GPU memory: %s overflows (%s); %s; or add --requests N to run an in-flight-batching scheduler, which holds only the running sequences' cache", r.Batch, r.Memory.Overflowing(), r.Memory, fit)
}

// applyTrainPrecision applies --tp-overlap and --grad-reduce to fw.
func applyTrainPrecision(fw *llm.Framework, o *LLMFlags, changed func(string) bool) error {
	if o.TPOverlap {
		fw.OverlapTP()
	}
	if changed("grad-reduce") {
		g, err := parseChoice("grad-reduce", o.GradReduce, "bf16", "fp32")
		if err != nil {
			return err
		}
		fw.GradFP32 = g == "fp32"
	}
	return nil
}
