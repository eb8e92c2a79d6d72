package eval

// This file implements the com.microsoft RotaryEmbedding and
// MultiHeadAttention ops (the Llama-style fused forms).

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerContribMha() {
	registerDomain(msDomain, "RotaryEmbedding", kernelMSRotary)
	registerDomain(msDomain, "MultiHeadAttention", kernelMSMHA)
}

// kernelMSRotary: RotaryEmbedding(input, position_ids, cos_cache,
// sin_cache). position_ids is [B, S] or a one-element start offset.
func kernelMSRotary(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, pt, cosT, sinT := in[0], in[1], in[2], in[3]
	if cosT.Rank() != 2 || sinT.Rank() != 2 {
		return nil, c.Errorf("caches must be 2-D")
	}
	half := cosT.Shape[1]
	rd := int(c.Int("rotary_embedding_dim", 0))
	if rd == 0 {
		rd = 2 * half
	}
	var B, S, N, D int
	var at func(b, s, h, d int) int
	switch x.Rank() {
	case 3:
		B, S = x.Shape[0], x.Shape[1]
		N = int(c.Int("num_heads", 0))
		if N == 0 {
			if rd == 0 || x.Shape[2]%rd != 0 {
				return nil, c.Errorf("cannot derive num_heads from %s and cache %s", x, cosT)
			}
			N = x.Shape[2] / rd
		}
		if N <= 0 || x.Shape[2]%N != 0 {
			return nil, c.Errorf("num_heads %d does not divide %d", N, x.Shape[2])
		}
		D = x.Shape[2] / N
		at = func(b, s, h, d int) int { return ((b*S+s)*N+h)*D + d }
	case 4:
		B, N, S, D = x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
		at = func(b, s, h, d int) int { return ((b*N+h)*S+s)*D + d }
	default:
		return nil, c.Errorf("input must be 3-D or 4-D, got %s", x)
	}
	if rd > D || rd != 2*half {
		return nil, c.Errorf("rotary dim %d does not fit head size %d and cache %s", rd, D, cosT)
	}
	pos, err := ints(pt, "position_ids")
	if err != nil {
		return nil, err
	}
	posOf := func(b, s int) int {
		if len(pos) == 1 {
			return int(pos[0]) + s
		}
		return int(pos[b*S+s])
	}
	if len(pos) != 1 && len(pos) != B*S {
		return nil, c.Errorf("position_ids %s does not fit (%d,%d)", pt, B, S)
	}
	interleaved := c.Int("interleaved", 0) != 0
	f := x.f64()
	cf, sf := cosT.f64(), sinT.f64()
	out := append([]float64{}, f...)
	for b := 0; b < B; b++ {
		for s := 0; s < S; s++ {
			p := posOf(b, s)
			if p < 0 || p >= cosT.Shape[0] {
				return nil, c.Errorf("position %d out of the cache's %d rows", p, cosT.Shape[0])
			}
			for h := 0; h < N; h++ {
				rotateHead(out, f, func(d int) int { return at(b, s, h, d) }, cf[p*half:], sf[p*half:], half, interleaved)
			}
		}
	}
	return []*Tensor{fromFloat64s(x.DType, x.Shape, out)}, nil
}

// kernelMSMHA: MultiHeadAttention(query, key, value, bias,
// key_padding_mask, attention_bias, past_key, past_value) for separate
// 3-D Q/K/V.
func kernelMSMHA(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	qt := in[0]
	kt, err := need(in, 1, "key")
	if err != nil {
		return nil, err
	}
	vt, err := need(in, 2, "value")
	if err != nil {
		return nil, err
	}
	if optIn(in, 3) != nil || optIn(in, 4) != nil {
		return nil, c.unsupported("bias or key_padding_mask")
	}
	if qt.Rank() != 3 || kt.Rank() != 3 || vt.Rank() != 3 {
		return nil, c.unsupported("packed or 4-D Q/K/V")
	}
	N := int(c.Int("num_heads", 0))
	q, qs, err := heads4(c, qt, int64(N))
	if err != nil {
		return nil, err
	}
	k, ks, err := heads4(c, kt, int64(N))
	if err != nil {
		return nil, err
	}
	v, vs, err := heads4(c, vt, int64(N))
	if err != nil {
		return nil, err
	}
	if pk := optIn(in, 6); pk != nil {
		p, ps, err := heads4(c, pk, int64(N))
		if err != nil {
			return nil, err
		}
		if k, ks, err = concatSeq(p, ps, k, ks); err != nil {
			return nil, err
		}
	}
	if pv := optIn(in, 7); pv != nil {
		p, ps, err := heads4(c, pv, int64(N))
		if err != nil {
			return nil, err
		}
		if v, vs, err = concatSeq(p, ps, v, vs); err != nil {
			return nil, err
		}
	}
	B, S, D, T, Dv := qs[0], qs[2], qs[3], ks[2], vs[3]
	if ks[0] != B || ks[3] != D || vs[2] != T {
		return nil, c.Errorf("query %v, key %v and value %v do not fit", qs, ks, vs)
	}
	var bias []float64
	var bidx []int
	if ab := optIn(in, 5); ab != nil {
		full := []int{B, N, S, T}
		if sh, err := broadcastShapes(full, ab.Shape); err != nil || !equalInts(sh, full) {
			return nil, c.Errorf("attention_bias %s does not broadcast to %v", ab, full)
		}
		bias, bidx = ab.f64(), bcastIndex(full, ab.Shape)
	}
	scale := float64(c.Float("scale", 0))
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(D))
	}
	filter := float64(c.Float("mask_filter_value", -10000))
	causal := c.Int("unidirectional", 0) != 0
	lowPrec := qt.DType != ir.Float64
	y := make([]float64, B*S*N*Dv)
	row := make([]float64, T)
	for b := 0; b < B; b++ {
		for h := 0; h < N; h++ {
			for s := 0; s < S; s++ {
				qr := q[((b*N+h)*S+s)*D:]
				m := math.Inf(-1)
				for j := 0; j < T; j++ {
					sc := 0.0
					kr := k[((b*N+h)*T+j)*D:]
					for d := 0; d < D; d++ {
						sc += qr[d] * kr[d]
					}
					sc *= scale
					if bias != nil {
						sc += bias[at(bidx, ((b*N+h)*S+s)*T+j)]
					}
					if causal && j > T-S+s {
						sc += filter
					}
					if lowPrec {
						sc = float64(float32(sc))
					}
					row[j] = sc
					m = math.Max(m, sc)
				}
				softmaxAttend(row, m, v[(b*N+h)*T*Dv:], Dv, Dv, y[((b*S+s)*N+h)*Dv:])
			}
		}
	}
	return []*Tensor{
		fromFloat64s(qt.DType, []int{B, S, N * Dv}, y),
		fromFloat64s(kt.DType, []int{B, N, T, D}, k),
		fromFloat64s(vt.DType, []int{B, N, T, Dv}, v),
	}, nil
}
