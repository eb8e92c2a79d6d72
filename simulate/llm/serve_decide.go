package llm

// This file holds the decisions profile --serve makes about a serving run
// besides simulating it: which memory part a static batch that does not
// fit overflows, the note a request-level run's defaults add, and the
// deployed tensor-parallel overlap.

import "fmt"

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
