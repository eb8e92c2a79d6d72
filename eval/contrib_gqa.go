package eval

// This file implements com.microsoft GroupQueryAttention: per-batch
// sequence lengths (seqlens_k = valid length - 1), a KV cache whose new
// entries are written after each batch's past, optional rotary embedding,
// causal and local-window masking, and grouped KV heads.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerContribGqa() {
	registerDomain(msDomain, "GroupQueryAttention", kernelGQA)
}

func kernelGQA(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	qt := in[0]
	kt, vt := optIn(in, 1), optIn(in, 2)
	if kt == nil || vt == nil {
		return nil, c.unsupported("packed QKV")
	}
	if optIn(in, 9) != nil || optIn(in, 10) != nil || optIn(in, 11) != nil {
		return nil, c.unsupported("position_ids, attention_bias or head_sink inputs")
	}
	if c.Int("smooth_softmax", 0) != 0 {
		return nil, c.unsupported("smooth_softmax")
	}
	sk := in[5]
	N, KN := int(c.Int("num_heads", 0)), int(c.Int("kv_num_heads", 0))
	if N <= 0 || KN <= 0 || N%KN != 0 {
		return nil, c.Errorf("num_heads %d must be a positive multiple of kv_num_heads %d", N, KN)
	}
	q, qs, err := heads4(c, qt, int64(N))
	if err != nil {
		return nil, err
	}
	k, ks, err := heads4(c, kt, int64(KN))
	if err != nil {
		return nil, err
	}
	v, vs, err := heads4(c, vt, int64(KN))
	if err != nil {
		return nil, err
	}
	B, S, D := qs[0], qs[2], qs[3]
	if ks[0] != B || ks[2] != S || ks[3] != D || vs != ks {
		return nil, c.Errorf("query %v, key %v and value %v do not fit", qs, ks, vs)
	}
	lens, err := ints(sk, "seqlens_k")
	if err != nil || len(lens) != B {
		return nil, c.Errorf("seqlens_k %s does not fit batch %d", sk, B)
	}
	total := 0
	if t := optIn(in, 6); t != nil {
		tv, err := ints(t, "total_sequence_length")
		if err != nil || len(tv) != 1 {
			return nil, c.Errorf("total_sequence_length must be an integer scalar")
		}
		total = int(tv[0])
	}
	P := 0
	var pk, pv []float64
	if p := optIn(in, 3); p != nil {
		if p.Rank() != 4 || p.Shape[0] != B || p.Shape[1] != KN || p.Shape[3] != D {
			return nil, c.Errorf("past_key %s does not fit (%d,%d,P,%d)", p, B, KN, D)
		}
		P = p.Shape[2]
		pk = p.f64()
		if pvT := optIn(in, 4); pvT != nil && pvT.Len() == p.Len() {
			pv = pvT.f64()
		} else {
			return nil, c.Errorf("past_value missing or of another shape")
		}
	}
	L := max(P, total)
	for b := 0; b < B; b++ {
		if int(lens[b])+1 < S || int(lens[b])+1 > max(L, S) {
			return nil, c.Errorf("seqlens_k[%d] = %d out of range for %d new tokens and a cache of %d", b, lens[b], S, L)
		}
		L = max(L, int(lens[b])+1)
	}
	g := &gqaOp{B: B, S: S, N: N, KN: KN, D: D, P: P, L: L, lens: lens}
	if c.Int("do_rotary", 0) != 0 {
		if err := g.rotary(c, optIn(in, 7), optIn(in, 8), q, k); err != nil {
			return nil, err
		}
	}
	if err := c.check(qt.DType, []int{B, KN, L, D}); err != nil {
		return nil, err
	}
	presK, presV := g.present(pk, k), g.present(pv, v)
	y := g.attend(c, q, presK, presV, qt.DType != ir.Float64)
	return []*Tensor{
		fromFloat64s(qt.DType, []int{B, S, N * D}, y),
		fromFloat64s(kt.DType, []int{B, KN, L, D}, presK),
		fromFloat64s(vt.DType, []int{B, KN, L, D}, presV),
	}, nil
}

// gqaOp is a GroupQueryAttention node's sizes: batch B, new tokens S,
// N query and KN KV heads of size D, a past cache of P and a present one
// of L, and each batch's seqlens_k (its valid length - 1).
type gqaOp struct {
	B, S, N, KN, D, P, L int
	lens                 []int64
}

// rotary rotates q ([B,N,S,D]) and k ([B,KN,S,D]) in place by the cos and
// sin caches, at each batch's positions after its past.
func (g *gqaOp) rotary(c *Ctx, cosT, sinT *Tensor, q, k []float64) error {
	if cosT == nil || sinT == nil || cosT.Rank() != 2 {
		return c.Errorf("do_rotary needs cos_cache and sin_cache")
	}
	half := cosT.Shape[1]
	if 2*half > g.D {
		return c.Errorf("rotary cache %s too wide for head size %d", cosT, g.D)
	}
	cf, sf := cosT.f64(), sinT.f64()
	inter := c.Int("rotary_interleaved", 0) != 0
	B, S, D := g.B, g.S, g.D
	rot := func(x []float64, heads int) error {
		for b := 0; b < B; b++ {
			past := int(g.lens[b]) + 1 - S
			for h := 0; h < heads; h++ {
				for s := 0; s < S; s++ {
					p := past + s
					if p < 0 || p >= cosT.Shape[0] {
						return errf("position %d out of the rotary cache", p)
					}
					r := x[((b*heads+h)*S+s)*D:]
					rotateHead(r, r, func(d int) int { return d }, cf[p*half:], sf[p*half:], half, inter)
				}
			}
		}
		return nil
	}
	if err := rot(q, g.N); err != nil {
		return err
	}
	return rot(k, g.KN)
}

// present is the [B,KN,L,D] cache: each batch's first past entries from
// the past cache (nil when P is 0), then its S new ones (cur, [B,KN,S,D]).
func (g *gqaOp) present(past, cur []float64) []float64 {
	B, KN, S, D, P, L := g.B, g.KN, g.S, g.D, g.P, g.L
	pres := make([]float64, B*KN*L*D)
	for b := 0; b < B; b++ {
		n := int(g.lens[b]) + 1 - S
		for h := 0; h < KN; h++ {
			dst := pres[(b*KN+h)*L*D:]
			if P > 0 {
				copy(dst[:min(P, n)*D], past[(b*KN+h)*P*D:])
			}
			for s := 0; s < S; s++ {
				copy(dst[(n+s)*D:(n+s+1)*D], cur[((b*KN+h)*S+s)*D:])
			}
		}
	}
	return pres
}

// attend computes Y [B,S,N*D]: each query over its batch's valid cache
// entries, causal and within local_window_size, with scale and softcap;
// lowPrec rounds the scores to float32.
func (g *gqaOp) attend(c *Ctx, q, presK, presV []float64, lowPrec bool) []float64 {
	B, S, N, KN, D, L := g.B, g.S, g.N, g.KN, g.D, g.L
	scale := float64(c.Float("scale", 0))
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(D))
	}
	softcap := float64(c.Float("softcap", 0))
	window := int(c.Int("local_window_size", -1))
	rep := N / KN
	y := make([]float64, B*S*N*D)
	row := make([]float64, L)
	for b := 0; b < B; b++ {
		valid := int(g.lens[b]) + 1
		past := valid - S
		for h := 0; h < N; h++ {
			K := presK[(b*KN+h/rep)*L*D:]
			V := presV[(b*KN+h/rep)*L*D:]
			for s := 0; s < S; s++ {
				qr := q[((b*N+h)*S+s)*D:]
				qpos := past + s
				m := math.Inf(-1)
				for j := 0; j < valid; j++ {
					if j > qpos || (window > 0 && j <= qpos-window) {
						row[j] = math.Inf(-1)
						continue
					}
					sc := 0.0
					for d := 0; d < D; d++ {
						sc += qr[d] * K[j*D+d]
					}
					sc *= scale
					if softcap > 0 {
						sc = softcap * math.Tanh(sc/softcap)
					}
					if lowPrec {
						sc = float64(float32(sc))
					}
					row[j] = sc
					m = math.Max(m, sc)
				}
				softmaxAttend(row[:valid], m, V, D, D, y[((b*S+s)*N+h)*D:])
			}
		}
	}
	return y
}
