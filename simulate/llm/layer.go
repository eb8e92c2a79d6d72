package llm

// This file implements the compute of one transformer layer on one GPU
// for one micro-batch under a tensor / context / expert split: the
// layer's kernels (GEMMs on their sharded shapes, the attention core,
// the memory-bound norms, activations and residual adds that Megatron
// fuses) costed by simulate/cost on the GPU preset, forward, backward and
// recomputed forward. Communication is costed by simulate/cluster (collective.go).

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// layerShape is what one layer's kernels depend on.
type layerShape struct {
	tp, cp, ep, mb, seq int
	sp                  bool
	attn                AttentionKernel
	dtype               ir.DType
}

// layerTime is one layer's compute for one micro-batch on one GPU.
type layerTime struct {
	FwdS, BwdS float64
	// CoreFwdS and CoreBwdS: the attention core's part (the window context
	// parallelism's ring exchange hides behind; what selective
	// recomputation runs again).
	CoreFwdS, CoreBwdS float64
	// FLOPs (forward, and of the attention core's forward) on this GPU.
	FwdFLOPs, CoreFLOPs float64
	// GEMMFwdS is the forward time of the layer's GEMMs (what tensor-
	// parallel communication overlap hides behind).
	GEMMFwdS float64
}

// kernels costs kernels on one GPU.
type kernels struct {
	cm    *cost.Model
	gpu   *hw.Hardware
	dt    ir.DType
	bytes float64 // element size
	s     float64
	flops float64
	// attn is the attention core's type (Undefined: dt) and gemmScale the
	// factor on GEMM FLOPs for a low-precision GEMM's efficiency (0: 1):
	// set by deployFP8.
	attn      ir.DType
	gemmScale float64
}

// deployFP8 makes an fp8 run as Transformer Engine runs it: GEMMs in FP8
// at the GPU's FP8 GEMM efficiency (serve_precision.go), activations,
// communication and the attention core in bf16.
func (k *kernels) deployFP8() {
	if k.dt != ir.Float8E4M3FN {
		return
	}
	k.bytes = 2
	k.attn = ir.BFloat16
	k.gemmScale = 1 / lowPrecisionOf(k.gpu).FP8GEMM
}

func newKernels(gpu *hw.Hardware, dt ir.DType) *kernels {
	b := 2.0
	if dt == ir.Float8E4M3FN {
		b = 1
	}
	return &kernels{cm: cost.New(gpu, nil, cost.Options{}), gpu: gpu, dt: dt, bytes: b}
}

// run adds one kernel and returns its time.
func (k *kernels) run(c cost.Cost) float64 {
	c.Kernels = 1
	if c.DType == ir.Undefined {
		c.DType = k.dt
	}
	e := k.cm.Time(c)
	k.s += e.DeviceS
	k.flops += c.FLOPs
	return e.DeviceS
}

// tiles is the output tiles of batch [m x n] results.
func (k *kernels) tiles(batch, m, n float64) float64 {
	e := k.gpu.Efficiency
	return batch * math.Ceil(m/float64(max(1, e.TileM))) * math.Ceil(n/float64(max(1, e.TileN)))
}

// gemm runs batch [m x kk] x [kk x n] products.
func (k *kernels) gemm(batch, m, n, kk float64) float64 {
	f := 2 * batch * m * n * kk
	if k.gemmScale > 0 { // operands in fp8, the output in bf16
		s := k.run(cost.Cost{Class: cost.MatMul, FLOPs: f * k.gemmScale, Bytes: batch * (m*kk + kk*n + k.bytes*m*n),
			Work: []cost.Work{{FLOPs: f * k.gemmScale, Tiles: k.tiles(batch, m, n), Count: 1}}})
		k.flops += f - f*k.gemmScale
		return s
	}
	return k.run(cost.Cost{Class: cost.MatMul, FLOPs: f, Bytes: k.bytes * batch * (m*kk + kk*n + m*n),
		Work: []cost.Work{{FLOPs: f, Tiles: k.tiles(batch, m, n), Count: 1}}})
}

// linear runs a [m x kk] x [kk x n] layer's forward or its backward
// (data gradient [m x n] x [n x kk], weight gradient [kk x m] x [m x n]).
func (k *kernels) linear(m, n, kk float64, backward bool) float64 {
	if k.gemmScale > 0 {
		// FP8 as Transformer Engine runs it: the GEMM's bf16 operand is
		// cast to fp8 with its transpose for the backward (cast_transpose:
		// read 2 bytes, write 1 + 1), the input forward, the output's
		// gradient backward
		if !backward {
			k.memory(cost.Elementwise, 4*m*kk, m*kk)
		} else {
			k.memory(cost.Elementwise, 4*m*n, m*n)
		}
	}
	if !backward {
		return k.gemm(1, m, n, kk)
	}
	return k.gemm(1, m, kk, n) + k.gemm(1, kk, n, m)
}

// memory runs a memory-bound kernel of class c moving bytes with flops.
func (k *kernels) memory(c cost.Class, bytes, flops float64) float64 {
	return k.run(cost.Cost{Class: c, Bytes: bytes, FLOPs: flops})
}

// layer costs one layer of t on shape s.
func (k *kernels) layer(t *Transformer, s layerShape, dropout bool) layerTime {
	var lt layerTime
	tp := float64(s.tp)
	T := float64(s.mb) * float64(s.seq) / float64(s.cp) // tokens on this GPU
	h, d := float64(t.Hidden), float64(t.Dh())
	hq := float64(t.Heads) / tp
	hkv := math.Max(1, float64(t.KVHeads)/tp) // fewer kv heads than tp ranks: replicated
	Tn := T                                   // tokens of the norm / dropout region
	if s.sp {
		Tn = T / tp
	}
	e := k.bytes
	for _, bwd := range []bool{false, true} {
		k.s, k.flops = 0, 0
		pass := 1.0 // memory-bound kernels move about twice the bytes backward
		if bwd {
			pass = 2
		}
		var gemmS float64
		// input norm, QKV projection, rotary embedding
		k.memory(cost.Normalization, pass*2*e*Tn*h, 5*Tn*h)
		coreD, outD := d, d
		if t.MLA() {
			gemmS += k.mlaProjections(t, T, hq, bwd)
			coreD, outD = float64(t.qkDim()+t.vDim())/2, float64(t.vDim()) // the core's QK^T at qk dims, PV at v dims
		} else {
			gemmS += k.linear(T, (hq+2*hkv)*d, h, bwd)
		}
		if !t.LearnedPositions {
			k.memory(cost.Elementwise, pass*2*e*T*(hq+hkv)*d, 6*T*(hq+hkv)*d)
		}
		coreStart := k.s
		coreFLOPs := k.flops
		k.core(t, s, T, hq, hkv, coreD, bwd, dropout)
		core := k.s - coreStart
		coreF := k.flops - coreFLOPs
		// output projection, bias-dropout-add, norm
		gemmS += k.linear(T, h, hq*outD, bwd)
		k.residual(Tn*h, pass, dropout)
		k.memory(cost.Normalization, pass*2*e*Tn*h, 5*Tn*h)
		// MLP or experts (a model with dense first layers: each layer
		// carries their share, the stages being even)
		mlpStart, mlpF := k.s, k.flops
		gemmS += k.mlp(t, s, T, Tn, bwd, t.MoE())
		if t.DenseLayers > 0 {
			moe, moeF := k.s-mlpStart, k.flops-mlpF
			k.s, k.flops = mlpStart, mlpF
			dg := k.mlp(t, s, T, Tn, bwd, false)
			dense, denseF := k.s-mlpStart, k.flops-mlpF
			fr := float64(t.DenseLayers) / float64(t.Layers)
			k.s, k.flops = mlpStart+fr*dense+(1-fr)*moe, mlpF+fr*denseF+(1-fr)*moeF
			gemmS += fr * dg // an approximation of the GEMM share
		}
		k.residual(Tn*h, pass, dropout)
		if bwd {
			lt.BwdS, lt.CoreBwdS = k.s, core
		} else {
			lt.FwdS, lt.CoreFwdS, lt.FwdFLOPs, lt.CoreFLOPs, lt.GEMMFwdS = k.s, core, k.flops, coreF, gemmS
		}
	}
	return lt
}

// mlp runs a layer's MLP: routed and shared experts, or a dense MLP
// (DenseFFN when the model has experts). Returns the GEMM time.
func (k *kernels) mlp(t *Transformer, s layerShape, T, Tn float64, bwd, experts bool) float64 {
	tp, h := float64(s.tp), float64(t.Hidden)
	pass := 1.0
	if bwd {
		pass = 2
	}
	up := 1.0
	if t.Gated {
		up = 2
	}
	dense := func(f float64) float64 {
		g := k.linear(T, up*f/tp, h, bwd)
		k.memory(cost.Elementwise, pass*k.bytes*T*f/tp*(up+1), 8*T*f/tp)
		return g + k.linear(T, h, f/tp, bwd)
	}
	if !experts {
		f := float64(t.FFN)
		if t.MoE() {
			f = float64(t.DenseFFN)
		}
		return dense(f)
	}
	g := k.experts(t, s, T, Tn, bwd)
	if n := t.SharedExperts; n > 0 {
		g += dense(float64(n * t.FFN))
	}
	return g
}

// mlaProjections runs multi-head latent attention's projections: the
// query through its latent (when it has one), the key/value latent and
// rotary key, and their expansion to per-head keys and values. Returns
// the GEMM time.
func (k *kernels) mlaProjections(t *Transformer, T, hq float64, bwd bool) float64 {
	h := float64(t.Hidden)
	qr, kvr, r := float64(t.QLoRARank), float64(t.KVLoRARank), float64(t.RopeHeadDim)
	g := 0.0
	if qr > 0 {
		g += k.linear(T, qr, h, bwd) + k.linear(T, hq*float64(t.qkDim()), qr, bwd)
	} else {
		g += k.linear(T, hq*float64(t.qkDim()), h, bwd)
	}
	return g + k.linear(T, kvr+r, h, bwd) + k.linear(T, hq*float64(t.Dh()+t.vDim()), kvr, bwd)
}

// residual is the fused bias-dropout-add on n elements.
func (k *kernels) residual(n, pass float64, dropout bool) {
	b := 3 * k.bytes * n
	if dropout {
		b += n // the mask, one byte per element
	}
	k.memory(cost.Elementwise, pass*b, 3*n)
}

// core costs the attention core: flash (causal: half the blocks; backward
// recomputes the scores, 2.5x the forward's work) or unfused (batched
// GEMMs over the full square, scale-mask-softmax and dropout on the
// scores in memory).
func (k *kernels) core(t *Transformer, s layerShape, T, hq, hkv, d float64, bwd, dropout bool) {
	b := float64(s.mb)
	sq := T / b           // query positions per sequence on this GPU
	skv := float64(s.seq) // keys each query block sees over the CP ring
	io := k.bytes * T * (2*hq + 2*hkv) * d
	if s.attn == FlashAttention {
		f := 4 * b * hq * sq * skv * d / 2 // causal: half the square
		tiles := k.tiles(b*hq, sq, d)
		if bwd {
			f *= 2.5
			io *= 2
		}
		k.run(cost.Cost{Class: cost.Attention, FLOPs: f, Bytes: io, DType: k.attn, Work: []cost.Work{{FLOPs: f, Tiles: tiles, Count: 1}}})
		return
	}
	scores := b * hq * sq * skv
	sm := 4 * k.bytes * scores // read scores, write probabilities
	drop := 0.0
	if dropout {
		drop = (2*k.bytes + 1) * scores // read, write, mask
	}
	if !bwd {
		k.gemm(b*hq, sq, skv, d)
		k.memory(cost.Elementwise, sm, 5*scores)
		if dropout {
			k.memory(cost.Elementwise, drop, scores)
		}
		k.gemm(b*hq, sq, d, skv)
		return
	}
	k.gemm(b*hq, sq, skv, d) // dP = dO V^T
	k.gemm(b*hq, skv, d, sq) // dV = P^T dO
	if dropout {
		k.memory(cost.Elementwise, drop+k.bytes*scores, scores)
	}
	k.memory(cost.Elementwise, sm+2*k.bytes*scores, 4*scores)
	k.gemm(b*hq, sq, d, skv) // dQ = dS K
	k.gemm(b*hq, skv, d, sq) // dK = dS^T Q
}

// experts costs a mixture-of-experts MLP: router GEMM, permutation of the
// T x topk routed token copies, the local experts' GEMMs (E / ep experts,
// each with T x topk x ep / E tokens on average), unpermute and combine.
// Returns the GEMM time.
func (k *kernels) experts(t *Transformer, s layerShape, T, Tn float64, bwd bool) float64 {
	h, f, tp := float64(t.Hidden), float64(t.FFN), float64(s.tp)
	E, K := float64(t.Experts), float64(t.TopK)
	routed := T * K // token copies this GPU sends and (on average) receives
	local := E / float64(s.ep)
	perExpert := routed / local
	pass := 1.0
	if bwd {
		pass = 2
	}
	gemm := k.linear(Tn, E, h, bwd)
	k.memory(cost.Elementwise, pass*2*k.bytes*routed*h, 0) // permute
	up := 1.0
	if t.Gated {
		up = 2
	}
	for i := 0; i < int(math.Min(local, 1024)); i++ {
		gemm += k.linear(perExpert, up*f/tp, h, bwd)
		k.memory(cost.Elementwise, pass*k.bytes*perExpert*f/tp*(up+1), 8*perExpert*f/tp)
		gemm += k.linear(perExpert, h, f/tp, bwd)
	}
	k.memory(cost.Elementwise, pass*3*k.bytes*routed*h, routed*h) // unpermute, weight, combine
	return gemm
}

// headTime is the language-model head on the last stage for one micro-
// batch: the [T x h] x [h x V/tp] GEMM and the vocab-parallel cross
// entropy in fp32, forward and backward; and the embedding lookup on the
// first stage.
func (k *kernels) headTime(t *Transformer, s layerShape) (fwd, bwd, emb float64) {
	T := float64(s.mb) * float64(s.seq) / float64(s.cp)
	h, V := float64(t.Hidden), float64(t.Vocab)/float64(s.tp)
	k.s, k.flops = 0, 0
	k.linear(T, V, h, false)
	k.memory(cost.Elementwise, T*V*(k.bytes+4*2), 5*T*V)
	fwd = k.s
	k.s = 0
	k.linear(T, V, h, true)
	k.memory(cost.Elementwise, T*V*(4+k.bytes), 3*T*V)
	bwd = k.s
	k.s = 0
	k.memory(cost.DataMovement, 2*k.bytes*T*h, 0)
	emb = k.s
	return fwd, bwd, emb
}
