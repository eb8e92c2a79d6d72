package llm

// This file holds the decisions profile --serve makes about a serving run
// besides simulating it: which memory part a static batch that does not
// fit overflows, the note a request-level run's defaults add, and the
// deployed tensor-parallel overlap.

import (
	"fmt"
	"math"
)

// TPOverlapDeployed is the fraction of tensor-parallel communication
// Transformer Engine's userbuffer overlap (Megatron --tp-comm-overlap)
// hides: it splits each GEMM into chunks whose communication runs behind
// the next chunk; the first chunk's stays exposed (an assumption: 4
// chunks and 10% left).
const TPOverlapDeployed = 0.9

// OverlapTP sets fw to overlap tensor-parallel communication with the
// GEMMs as deployed (TPOverlapDeployed).
func (fw *Framework) OverlapTP() { fw.TPOverlap = TPOverlapDeployed }

// Overflowing names the part of a serving batch's memory m that does not
// fit: the weights (with the communication buffers and runtime) when they
// alone exceed the capacity, else the prefill's working set when it is
// larger than the KV cache, else the KV cache.
func (m Memory) Overflowing() string {
	switch {
	case m.WeightsGB+m.CommBuffersGB+m.RuntimeGB > m.CapacityGB:
		return "the weights"
	case m.ActivationsGB > m.KVCacheGB:
		return "the prefill's working set"
	}
	return "the KV cache"
}

// Note is the assumption a request-level run states about where its
// requests come from: the workload listed, all at once (rate max), or
// Poisson arrivals.
func (l *ServeLoad) Note() string {
	if len(l.Workload) > 0 {
		return fmt.Sprintf("--workload: %d requests as listed", len(l.Workload))
	}
	if l.Rate <= 0 {
		return "--rate max: every request arrives at once (the offline / max-load scenario trtllm-bench and MLPerf Offline measure)"
	}
	return fmt.Sprintf("--rate %g: Poisson arrivals (seed %d)", l.Rate, l.Seed)
}

// Bounds of a ServeLoad's counts (Validate).
const (
	MaxServeCount = 1 << 24 // tokens, blocks, replicas, max_tokens
	MaxRequests   = 1 << 20 // requests generated
)

// LoadError is a ServeLoad field out of its range; Field is spelt as
// profile's flag for it (requests, max-batched-tokens, kv-fraction, ...).
type LoadError struct{ Field, Value, Want string }

func (e *LoadError) Error() string { return e.Field + " " + e.Value + ": want " + e.Want }

// Validate checks l's counts and KV fraction (0 is each one's default):
// a *LoadError names the first out of range.
func (l *ServeLoad) Validate() error {
	for _, v := range []struct {
		name string
		n    int
	}{{"requests", l.Requests}, {"prefix-tokens", l.PrefixTokens}, {"max-batched-tokens", l.MaxBatchedTokens}, {"block-size", l.BlockSize}, {"replicas", l.Replicas}, {"max-tokens", l.MaxTokens}} {
		if v.n < 0 || v.n > MaxServeCount {
			return &LoadError{v.name, fmt.Sprint(v.n), fmt.Sprintf("1..%d", MaxServeCount)}
		}
	}
	if l.Requests > MaxRequests {
		return &LoadError{"requests", fmt.Sprint(l.Requests), fmt.Sprintf("1..%d", MaxRequests)}
	}
	if math.IsNaN(l.KVFraction) || l.KVFraction < 0 || l.KVFraction > 1 {
		return &LoadError{"kv-fraction", fmt.Sprintf("%g", l.KVFraction), "0 < f <= 1"}
	}
	return nil
}

// DefaultFramework is the framework a training layout runs on when none
// is named: the first preset (megatron-core), except FSDP for ZeRO 2 or 3
// with pipeline parallelism (pipelined: pp > 1, or a search that may
// choose it), since Megatron-Core's distributed optimizer stops at ZeRO-1
// with pipelines, and sharded gradients (and weights) with pipelines is
// what FSDP runs (Llama 3's layout). note says why when it is FSDP ("":
// the default).
func DefaultFramework(zero int, pipelined bool) (name, note string) {
	if zero >= 2 && pipelined {
		return "fsdp", fmt.Sprintf("--framework not given: fsdp (zero %d with pipeline parallelism; megatron-core's distributed optimizer stops at zero 1 with it)", zero)
	}
	return frameworks[0].Name, ""
}
