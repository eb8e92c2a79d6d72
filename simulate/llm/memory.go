package llm

// This file implements the memory of one GPU under an LLM layout: weights,
// gradients and Adam states (mixed precision, sharded by ZeRO), the
// activations the pipeline schedule keeps in flight (with and without
// recomputation), the KV cache of serving, communication buffers and the
// runtime's own.

import "fmt"

// runtimeGB is the memory a training or serving process holds before any
// tensor: the CUDA context, cuBLAS / cuDNN workspaces and the caching
// allocator's slack (an assumption; PyTorch on an H100 starts at about
// 0.5 GB of context, and a few hundred MB of library workspaces).
const runtimeGB = 2.0

// Memory is one GPU's memory, GB (1e9 bytes).
type Memory struct {
	WeightsGB     float64 `json:"weights_gb"`
	GradientsGB   float64 `json:"gradients_gb"`
	OptimizerGB   float64 `json:"optimizer_gb"` // fp32 master weights and Adam moments
	ActivationsGB float64 `json:"activations_gb"`
	KVCacheGB     float64 `json:"kv_cache_gb"`
	CommBuffersGB float64 `json:"comm_buffers_gb"`
	RuntimeGB     float64 `json:"runtime_gb"`
	TotalGB       float64 `json:"total_gb"`
	CapacityGB    float64 `json:"capacity_gb"`
	Fits          bool    `json:"fits"`
	// Stage is the pipeline stage the figures are for (the fullest).
	Stage int `json:"stage"`
}

func (m *Memory) sum(capacity float64) {
	m.TotalGB = m.WeightsGB + m.GradientsGB + m.OptimizerGB + m.ActivationsGB + m.KVCacheGB + m.CommBuffersGB + m.RuntimeGB
	m.CapacityGB = capacity
	m.Fits = m.TotalGB <= capacity
}

// String is the breakdown in one line.
func (m Memory) String() string {
	s := fmt.Sprintf("%.1f of %.0f GB: weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f", m.TotalGB, m.CapacityGB,
		m.WeightsGB, m.GradientsGB, m.OptimizerGB, m.ActivationsGB)
	if m.KVCacheGB > 0 {
		s += fmt.Sprintf(", kv cache %.1f", m.KVCacheGB)
	}
	return s + fmt.Sprintf(", comm buffers %.1f, runtime %.1f", m.CommBuffersGB, m.RuntimeGB)
}

// layerActivationBytes is what one layer keeps for its backward pass for
// one micro-batch on one GPU (Korthikanti et al. 2023, section 4, with
// the terms for grouped-query heads, gated MLPs, experts and flash
// attention): 34 s b h + 5 a s^2 b bytes for GPT-3 with dropout, no
// parallelism, unfused attention.
func layerActivationBytes(t *Transformer, s layerShape, rc Recompute, dropout bool) float64 {
	tp := float64(s.tp)
	T := float64(s.mb) * float64(s.seq) / float64(s.cp)
	h, f, d := float64(t.Hidden), float64(t.FFN), float64(t.Dh())
	hq := float64(t.Heads) / tp
	hkv := max(1, float64(t.KVHeads)/tp)
	n := T * h // a hidden-state tensor in the tensor-parallel region
	nt := n    // ... in the norm / dropout region
	if s.sp {
		nt = n / tp
	}
	if rc == RecomputeFull {
		return 2 * nt // the layer's input
	}
	mask := 0.0
	if dropout {
		mask = nt
	}
	// norms' inputs, QKV input, Q K V, output projection input, dropout
	b := 2*nt + 2*nt + 2*T*(hq+2*hkv)*d + 2*T*hq*d + mask
	if s.attn == UnfusedAttention && rc != RecomputeSelective {
		scores := float64(s.mb) * hq * (T / float64(s.mb)) * float64(s.seq)
		b += 2 * scores // softmax output
		if dropout {
			b += 3 * scores // mask and dropped probabilities
		}
	} else if s.attn == FlashAttention {
		b += 4 * T * hq // log-sum-exp per query row, fp32
	}
	// MLP: norm input, FC1 input, activation input(s), FC2 input, dropout
	up := 1.0
	if t.Gated {
		up = 2
	}
	mlp := 2*nt + 2*nt + 2*T*up*f/tp + 2*T*f/tp + mask
	if t.MoE() {
		routed := T * float64(t.TopK)
		mlp = 2*nt + 2*nt + 2*routed*h + routed*(2*up*f/tp+2*f/tp) + mask + 4*T*float64(t.Experts)
	}
	return b + mlp
}
