package eval

// This file implements com.microsoft GroupQueryAttention: per-batch
// sequence lengths (seqlens_k = valid length - 1), a KV cache whose new
// entries are written after each batch's past, optional rotary embedding,
// causal and local-window masking, and grouped KV heads.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func init() {
	registerDomain(msDomain, "GroupQueryAttention", kernelGQA)
}

func kernelGQA(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	qt, err := need(in, 0, "query")
	if err != nil {
		return nil, err
	}
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
	sk, err := need(in, 5, "seqlens_k")
	if err != nil {
		return nil, err
	}
	if err := requireFloat(qt, "query"); err != nil {
		return nil, err
	}
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
	if c.Int("do_rotary", 0) != 0 {
		cosT, sinT := optIn(in, 7), optIn(in, 8)
		if cosT == nil || sinT == nil || cosT.Rank() != 2 {
			return nil, c.Errorf("do_rotary needs cos_cache and sin_cache")
		}
		half := cosT.Shape[1]
		if 2*half > D {
			return nil, c.Errorf("rotary cache %s too wide for head size %d", cosT, D)
		}
		cf, sf := cosT.f64(), sinT.f64()
		inter := c.Int("rotary_interleaved", 0) != 0
		rot := func(x []float64, heads int) error {
			for b := 0; b < B; b++ {
				past := int(lens[b]) + 1 - S
				for h := 0; h < heads; h++ {
					for s := 0; s < S; s++ {
						p := past + s
						if p < 0 || p >= cosT.Shape[0] {
							return errf("position %d out of the rotary cache", p)
						}
						r := x[((b*heads+h)*S+s)*D:]
						for i := 0; i < half; i++ {
							i1, i2 := i, i+half
							if inter {
								i1, i2 = 2*i, 2*i+1
							}
							x1, x2 := r[i1], r[i2]
							co, si := cf[p*half+i], sf[p*half+i]
							r[i1], r[i2] = x1*co-x2*si, x2*co+x1*si
						}
					}
				}
			}
			return nil
		}
		if err := rot(q, N); err != nil {
			return nil, err
		}
		if err := rot(k, KN); err != nil {
			return nil, err
		}
	}
	if err := c.check(qt.DType, []int{B, KN, L, D}); err != nil {
		return nil, err
	}
	presK := make([]float64, B*KN*L*D)
	presV := make([]float64, B*KN*L*D)
	for b := 0; b < B; b++ {
		past := int(lens[b]) + 1 - S
		for h := 0; h < KN; h++ {
			dk := presK[(b*KN+h)*L*D:]
			dv := presV[(b*KN+h)*L*D:]
			if P > 0 {
				n := min(P, past) * D
				copy(dk[:n], pk[(b*KN+h)*P*D:])
				copy(dv[:n], pv[(b*KN+h)*P*D:])
			}
			for s := 0; s < S; s++ {
				copy(dk[(past+s)*D:(past+s+1)*D], k[((b*KN+h)*S+s)*D:])
				copy(dv[(past+s)*D:(past+s+1)*D], v[((b*KN+h)*S+s)*D:])
			}
		}
	}
	scale := float64(c.Float("scale", 0))
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(D))
	}
	softcap := float64(c.Float("softcap", 0))
	window := int(c.Int("local_window_size", -1))
	lowPrec := qt.DType != ir.Float64
	rep := N / KN
	y := make([]float64, B*S*N*D)
	row := make([]float64, L)
	for b := 0; b < B; b++ {
		valid := int(lens[b]) + 1
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
				sum := 0.0
				for j := 0; j < valid; j++ {
					row[j] = math.Exp(row[j] - m)
					sum += row[j]
				}
				for d := 0; d < D; d++ {
					acc := 0.0
					for j := 0; j < valid; j++ {
						acc += row[j] / sum * V[j*D+d]
					}
					y[((b*S+s)*N+h)*D+d] = acc
				}
			}
		}
	}
	return []*Tensor{
		fromFloat64s(qt.DType, []int{B, S, N * D}, y),
		fromFloat64s(kt.DType, []int{B, KN, L, D}, presK),
		fromFloat64s(vt.DType, []int{B, KN, L, D}, presV),
	}, nil
}
