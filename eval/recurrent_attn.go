package eval

// This file implements LinearAttention and CausalConvWithState (the
// recurrent-state ops of recent opsets), after the ONNX reference.

import (
	"math"
)

func registerRecurrentAttn() {
	register(kernelLinearAttention, "LinearAttention")
	register(kernelCausalConvWithState, "CausalConvWithState")
}

// unpack3 views a (B, T, H*D) tensor as an accessor at (b, h, t, d).
func unpack3(t *Tensor, heads int) (func(b, h, ti, d int) float64, int, error) {
	if t.Rank() != 3 || heads <= 0 || t.Shape[2]%heads != 0 {
		return nil, 0, errf("%s is not (B, T, %d*D)", t, heads)
	}
	f := t.f64()
	T, HD := t.Shape[1], t.Shape[2]
	d := HD / heads
	return func(b, h, ti, dd int) float64 { return f[(b*T+ti)*HD+h*d+dd] }, d, nil
}

func kernelLinearAttention(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	q, k, v := in[0], in[1], in[2]
	rule := c.Str("update_rule", "gated_delta")
	gating := rule == "gated" || rule == "gated_delta"
	delta := rule == "delta" || rule == "gated_delta"
	if !gating && !delta && rule != "linear" {
		return nil, c.Errorf("unknown update_rule %q", rule)
	}
	hq, hkv := int(c.Int("q_num_heads", 0)), int(c.Int("kv_num_heads", 0))
	if hq <= 0 || hkv <= 0 || hq%hkv != 0 {
		return nil, c.Errorf("q_num_heads %d must be a positive multiple of kv_num_heads %d", hq, hkv)
	}
	qa, dk, err := unpack3(q, hq)
	if err != nil {
		return nil, err
	}
	ka, dk2, err := unpack3(k, hkv)
	if err != nil {
		return nil, err
	}
	va, dv, err := unpack3(v, hkv)
	if err != nil {
		return nil, err
	}
	if dk2 != dk || k.Shape[0] != q.Shape[0] || v.Shape[1] != q.Shape[1] || k.Shape[1] != q.Shape[1] {
		return nil, c.Errorf("query %s, key %s and value %s do not fit", q, k, v)
	}
	B, T := q.Shape[0], q.Shape[1]
	past, decay, beta, erase := optIn(in, 3), optIn(in, 4), optIn(in, 5), optIn(in, 6)
	if gating != (decay != nil) || delta != (beta != nil) || (erase != nil && !delta) {
		return nil, c.Errorf("update_rule %q does not fit the decay/beta/erase_gate inputs given", rule)
	}
	decayAt, betaAt, err := linearAttnGates(c, decay, beta, T, hkv, dk)
	if err != nil {
		return nil, err
	}
	var eraseAt func(b, h, ti, d int) float64
	if erase != nil {
		if eraseAt, _, err = unpack3(erase, hkv); err != nil {
			return nil, err
		}
	}
	state := make([]float64, B*hkv*dk*dv)
	stateDT := q.DType
	if past != nil {
		if past.Len() != len(state) {
			return nil, c.Errorf("past_state %s does not fit (%d,%d,%d,%d)", past, B, hkv, dk, dv)
		}
		copy(state, past.f64())
		stateDT = past.DType
	}
	scale := float64(c.Float("scale", 0))
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(dk))
	}
	group := hq / hkv
	out := make([]float64, B*T*hq*dv)
	ret := make([]float64, dv)
	vt := make([]float64, dv)
	for b := 0; b < B; b++ {
		for ti := 0; ti < T; ti++ {
			for h := 0; h < hkv; h++ {
				S := state[(b*hkv+h)*dk*dv : (b*hkv+h+1)*dk*dv]
				if gating {
					for d := 0; d < dk; d++ {
						g := math.Exp(decayAt(b, h, ti, d))
						for m := 0; m < dv; m++ {
							S[d*dv+m] *= g
						}
					}
				}
				for m := 0; m < dv; m++ {
					vt[m] = va(b, h, ti, m)
				}
				if delta {
					for m := range ret {
						ret[m] = 0
					}
					for d := 0; d < dk; d++ {
						ke := ka(b, h, ti, d)
						if eraseAt != nil {
							ke *= eraseAt(b, h, ti, d)
						}
						for m := 0; m < dv; m++ {
							ret[m] += S[d*dv+m] * ke
						}
					}
					bt := betaAt(b, h, ti)
					for m := 0; m < dv; m++ {
						vt[m] = bt * (vt[m] - ret[m])
					}
				}
				for d := 0; d < dk; d++ {
					kd := ka(b, h, ti, d)
					for m := 0; m < dv; m++ {
						S[d*dv+m] += kd * vt[m]
					}
				}
			}
			for h := 0; h < hq; h++ {
				S := state[(b*hkv+h/group)*dk*dv:]
				for m := 0; m < dv; m++ {
					s := 0.0
					for d := 0; d < dk; d++ {
						s += qa(b, h, ti, d) * S[d*dv+m]
					}
					out[((b*T+ti)*hq+h)*dv+m] = scale * s
				}
			}
		}
	}
	return []*Tensor{
		fromFloat64s(q.DType, []int{B, T, hq * dv}, out),
		fromFloat64s(stateDT, []int{B, hkv, dk, dv}, state),
	}, nil
}

// linearAttnGates gives access to LinearAttention's decay (per KV head,
// or per KV head and key dim) and beta (per KV head, or one per token)
// inputs at (batch b, KV head h, time ti, key dim d); a nil input gives a
// nil accessor.
func linearAttnGates(c *Ctx, decay, beta *Tensor, T, hkv, dk int) (decayAt func(b, h, ti, d int) float64, betaAt func(b, h, ti int) float64, err error) {
	if decay != nil {
		if decay.Rank() != 3 {
			return nil, nil, c.Errorf("decay must be rank 3")
		}
		df := decay.f64()
		switch decay.Shape[2] {
		case hkv:
			decayAt = func(b, h, ti, d int) float64 { return df[(b*T+ti)*hkv+h] }
		case hkv * dk:
			decayAt = func(b, h, ti, d int) float64 { return df[(b*T+ti)*hkv*dk+h*dk+d] }
		default:
			return nil, nil, c.Errorf("decay last dim %d fits neither %d nor %d", decay.Shape[2], hkv, hkv*dk)
		}
	}
	if beta != nil {
		bl := beta.Shape[beta.Rank()-1]
		if beta.Rank() != 3 || (bl != hkv && bl != 1) {
			return nil, nil, c.Errorf("beta %s does not fit", beta)
		}
		bf := beta.f64()
		betaAt = func(b, h, ti int) float64 {
			if bl == 1 {
				return bf[b*T+ti]
			}
			return bf[(b*T+ti)*hkv+h]
		}
	}
	return decayAt, betaAt, nil
}

func kernelCausalConvWithState(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, w := in[0], in[1]
	if x.Rank() != 3 || w.Rank() != 3 || w.Shape[0] != x.Shape[1] || w.Shape[1] != 1 {
		return nil, c.Errorf("input %s and weight %s do not fit (B, C, L) and (C, 1, k)", x, w)
	}
	act := c.Str("activation", "none")
	if act != "none" && act != "silu" && act != "swish" {
		return nil, c.Errorf("unknown activation %q", act)
	}
	B, C, L, K := x.Shape[0], x.Shape[1], x.Shape[2], w.Shape[2]
	if K < 1 {
		return nil, c.Errorf("empty kernel")
	}
	P := L + K - 1
	padded := make([]float64, B*C*P)
	xf := x.f64()
	if past := optIn(in, 3); past != nil {
		if past.Len() != B*C*(K-1) {
			return nil, c.Errorf("past_state %s does not fit (%d,%d,%d)", past, B, C, K-1)
		}
		pf := past.f64()
		for bc := 0; bc < B*C; bc++ {
			copy(padded[bc*P:], pf[bc*(K-1):(bc+1)*(K-1)])
		}
	}
	for bc := 0; bc < B*C; bc++ {
		copy(padded[bc*P+K-1:], xf[bc*L:(bc+1)*L])
	}
	wf := w.f64()
	var bias []float64
	if b := optIn(in, 2); b != nil {
		if b.Len() != C {
			return nil, c.Errorf("bias %s does not match %d channels", b, C)
		}
		bias = b.f64()
	}
	out := make([]float64, B*C*L)
	for bc := 0; bc < B*C; bc++ {
		ch := bc % C
		for l := 0; l < L; l++ {
			s := 0.0
			for j := 0; j < K; j++ {
				s += padded[bc*P+l+j] * wf[ch*K+j]
			}
			if bias != nil {
				s += bias[ch]
			}
			if act != "none" {
				s = s * sigmoid(s)
			}
			out[bc*L+l] = s
		}
	}
	state := make([]float64, B*C*(K-1))
	for bc := 0; bc < B*C; bc++ {
		copy(state[bc*(K-1):], padded[bc*P+P-(K-1):(bc+1)*P])
	}
	return []*Tensor{fromFloat64s(x.DType, x.Shape, out), fromFloat64s(x.DType, []int{B, C, K - 1}, state)}, nil
}
