package eval

// This file implements the com.microsoft EmbedLayerNormalization and
// Attention ops (the fused GPT-2 / BERT forms ONNX Runtime's transformer
// optimizer emits).

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerContribAttention() {
	registerDomain(msDomain, "EmbedLayerNormalization", kernelEmbedLayerNorm)
	registerDomain(msDomain, "Attention", kernelMSAttention)
}

func kernelEmbedLayerNorm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	ids, word, pos := in[0], in[2], in[3]
	if ids.Rank() != 2 || word.Rank() != 2 || pos.Rank() != 2 || pos.Shape[1] != word.Shape[1] {
		return nil, c.Errorf("input_ids %s, word_embedding %s, position_embedding %s do not fit", ids, word, pos)
	}
	B, S, H := ids.Shape[0], ids.Shape[1], word.Shape[1]
	gamma, err := lastAxisParam(optIn(in, 5), H, "gamma")
	if err != nil {
		return nil, err
	}
	beta, err := lastAxisParam(optIn(in, 6), H, "beta")
	if err != nil {
		return nil, err
	}
	iv, err := ints(ids, "input_ids")
	if err != nil {
		return nil, err
	}
	var segIDs []int64
	var segF []float64
	if sid, se := optIn(in, 1), optIn(in, 4); sid != nil && se != nil {
		if segIDs, err = ints(sid, "segment_ids"); err != nil {
			return nil, err
		}
		segF = se.f64()
	}
	var posIDs []int64
	if p := optIn(in, 8); p != nil {
		if posIDs, err = ints(p, "position_ids"); err != nil {
			return nil, err
		}
	}
	wf, pf := word.f64(), pos.f64()
	eps := float64(c.Float("epsilon", 1e-12))
	sum := make([]float64, B*S*H)
	y := make([]float64, B*S*H)
	for b := 0; b < B; b++ {
		for s := 0; s < S; s++ {
			w, err := fixIndex(iv[b*S+s], word.Shape[0])
			if err != nil {
				return nil, err
			}
			p := s
			if posIDs != nil {
				if len(posIDs) == S {
					p = int(posIDs[s])
				} else {
					p = int(posIDs[b*S+s])
				}
			}
			if p, err = fixIndex(int64(p), pos.Shape[0]); err != nil {
				return nil, err
			}
			row := sum[(b*S+s)*H : (b*S+s+1)*H]
			for h := 0; h < H; h++ {
				row[h] = wf[w*H+h] + pf[p*H+h]
			}
			if segIDs != nil {
				sg := int(segIDs[b*S+s])
				if sg < 0 || (sg+1)*H > len(segF) {
					return nil, c.Errorf("segment id %d out of range", sg)
				}
				for h := 0; h < H; h++ {
					row[h] += segF[sg*H+h]
				}
			}
			m, v := meanVar(row)
			inv := 1 / math.Sqrt(v+eps)
			for h, x := range row {
				o := (x - m) * inv
				if gamma != nil {
					o *= gamma[h]
				}
				if beta != nil {
					o += beta[h]
				}
				y[(b*S+s)*H+h] = o
			}
		}
	}
	maskIdx := &Tensor{DType: ir.Int32, Shape: []int{B}, I: make([]int64, B)}
	if m := optIn(in, 7); m != nil {
		mv, err := ints(m, "mask")
		if err != nil || len(mv) != B*S {
			return nil, c.Errorf("mask %s does not fit (%d,%d)", m, B, S)
		}
		for b := 0; b < B; b++ {
			for s := 0; s < S; s++ {
				maskIdx.I[b] += mv[b*S+s]
			}
		}
	}
	dt := word.DType
	return []*Tensor{fromFloat64s(dt, []int{B, S, H}, y), maskIdx, fromFloat64s(dt, []int{B, S, H}, sum)}, nil
}

// kernelMSAttention: com.microsoft Attention(input, weights, bias,
// mask_index, past) with a fused QKV projection, optional raw 2-D mask
// (0 = masked), past/present key-value cache [2, B, N, P, D] and causal
// masking (unidirectional).
func kernelMSAttention(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, w := in[0], in[1]
	if _, ok := c.Ints("qkv_hidden_sizes"); ok {
		return nil, c.unsupported("qkv_hidden_sizes")
	}
	if optIn(in, 5) != nil || optIn(in, 6) != nil {
		return nil, c.unsupported("attention_bias or past_sequence_length inputs")
	}
	if x.Rank() != 3 || w.Rank() != 2 || w.Shape[0] != x.Shape[2] || w.Shape[1]%3 != 0 {
		return nil, c.Errorf("input %s and weights %s do not fit", x, w)
	}
	B, S := x.Shape[0], x.Shape[1]
	H := w.Shape[1] / 3
	N := int(c.Int("num_heads", 0))
	if N <= 0 || H%N != 0 {
		return nil, c.Errorf("num_heads %d does not divide hidden size %d", N, H)
	}
	D := H / N
	xt := &Tensor{DType: ir.Float64, Shape: x.Shape, D: x.f64()}
	wt := &Tensor{DType: ir.Float64, Shape: w.Shape, D: w.f64()}
	qkv, err := c.matmul(xt, wt, ir.Float64)
	if err != nil {
		return nil, err
	}
	if b := optIn(in, 2); b != nil {
		bf := b.f64()
		if len(bf) != 3*H {
			return nil, c.Errorf("bias %s does not match %d", b, 3*H)
		}
		for i := range qkv.D {
			qkv.D[i] += bf[i%(3*H)]
		}
	}
	P := 0
	var pastF []float64
	if p := optIn(in, 4); p != nil {
		if p.Rank() != 5 || p.Shape[0] != 2 || p.Shape[1] != B || p.Shape[2] != N || p.Shape[4] != D {
			return nil, c.Errorf("past %s does not fit (2,%d,%d,P,%d)", p, B, N, D)
		}
		P = p.Shape[3]
		pastF = p.f64()
	}
	T := P + S
	// present [2, B, N, T, D]
	present := make([]float64, 2*B*N*T*D)
	for kv := 0; kv < 2; kv++ {
		for b := 0; b < B; b++ {
			for h := 0; h < N; h++ {
				dst := present[(((kv*B+b)*N+h)*T)*D:]
				if P > 0 {
					copy(dst[:P*D], pastF[(((kv*B+b)*N+h)*P)*D:(((kv*B+b)*N+h)*P+P)*D])
				}
				for s := 0; s < S; s++ {
					src := qkv.D[(b*S+s)*3*H+(kv+1)*H+h*D:]
					copy(dst[(P+s)*D:(P+s+1)*D], src[:D])
				}
			}
		}
	}
	filter := float64(c.Float("mask_filter_value", -10000))
	var mask []int64
	if m := optIn(in, 3); m != nil {
		if m.Rank() != 2 || m.Shape[0] != B || m.Shape[1] != T {
			return nil, c.unsupported("mask_index of shape %v (only a raw (batch, total_seq) mask)", m.Shape)
		}
		if mask, err = ints(m, "mask_index"); err != nil {
			return nil, err
		}
	}
	causal := c.Int("unidirectional", 0) != 0
	scale := float64(c.Float("scale", 0))
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(D))
	}
	lowPrec := x.DType != ir.Float64
	out := make([]float64, B*S*H)
	row := make([]float64, T)
	for b := 0; b < B; b++ {
		for h := 0; h < N; h++ {
			K := present[(((0*B+b)*N+h)*T)*D:]
			V := present[(((1*B+b)*N+h)*T)*D:]
			for s := 0; s < S; s++ {
				q := qkv.D[(b*S+s)*3*H+h*D:]
				m := math.Inf(-1)
				for j := 0; j < T; j++ {
					sc := 0.0
					for d := 0; d < D; d++ {
						sc += q[d] * K[j*D+d]
					}
					sc *= scale
					if mask != nil && mask[b*T+j] <= 0 {
						sc += filter
					}
					if causal && j > P+s {
						sc += filter
					}
					if lowPrec {
						sc = float64(float32(sc))
					}
					row[j] = sc
					m = math.Max(m, sc)
				}
				softmaxAttend(row, m, V, D, D, out[(b*S+s)*H+h*D:])
			}
		}
	}
	return []*Tensor{fromFloat64s(x.DType, []int{B, S, H}, out), fromFloat64s(x.DType, []int{2, B, N, T, D}, present)}, nil
}

func registerContribAttention2() {
	registerDomain(msDomain, "QAttention", kernelQAttention)
	registerDomain(msDomain, "GatherBlockQuantized", kernelGatherBlockQuantized)
}

// kernelQAttention dequantizes input and weights (per-tensor scales and
// zero points) and evaluates com.microsoft Attention.
func kernelQAttention(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, w, xs, ws := in[0], in[1], in[3], in[4]
	if xs.Len() != 1 {
		return nil, c.unsupported("per-channel input scale")
	}
	xf, err := dequantize(c, x, xs, optIn(in, 6), -1)
	if err != nil {
		return nil, err
	}
	wf, err := dequantize(c, w, ws, optIn(in, 7), w.Rank()-1)
	if err != nil {
		return nil, err
	}
	dt := ir.Float32
	if b := optIn(in, 2); b != nil {
		dt = b.DType
	}
	args := []*Tensor{fromFloat64s(dt, x.Shape, xf), fromFloat64s(dt, w.Shape, wf), optIn(in, 2), optIn(in, 5), optIn(in, 8)}
	return kernelMSAttention(c, args)
}

// kernelGatherBlockQuantized gathers rows of a block-quantized tensor
// (4-bit values packed two per uint8, low nibble first, or int4/uint4
// data) and dequantizes them: (q - zero_point) * scale per block along
// quantize_axis.
func kernelGatherBlockQuantized(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	data, idxT, sc := in[0], in[1], in[2]
	bits := int(c.Int("bits", 4))
	bs := int(c.Int("block_size", 128))
	if data.cls() != clsI || data.Rank() < 1 || bs <= 0 {
		return nil, c.Errorf("data %s must be an integer tensor", data)
	}
	qa, err := normAxis(c.Int("quantize_axis", 1), data.Rank())
	if err != nil {
		return nil, err
	}
	// Unpack uint8 carrying 4-bit values along the last axis.
	q := data
	packed := data.DType == ir.Uint8 && bits == 4
	if packed {
		if qa != data.Rank()-1 {
			return nil, c.unsupported("packed data quantized along a non-last axis")
		}
		shape := append([]int{}, data.Shape...)
		shape[len(shape)-1] *= 2
		q = newTensor(ir.Int64, shape)
		for i, v := range data.I {
			q.I[2*i], q.I[2*i+1] = v&0xF, v>>4&0xF
		}
	} else if bits != 4 && bits != 8 {
		return nil, c.unsupported("bits=%d", bits)
	}
	zpDefault := 0.0
	if packed || data.DType == ir.Uint4 {
		zpDefault = 8
	}
	var zp []float64
	if z := optIn(in, 3); z != nil {
		if z.DType == ir.Uint8 && packed {
			zp = make([]float64, 2*z.Len())
			for i, v := range z.I {
				zp[2*i], zp[2*i+1] = float64(v&0xF), float64(v>>4&0xF)
			}
		} else {
			zp = z.f64()
		}
	}
	// Dequantize: parameters are indexed like data with quantize_axis
	// divided by block_size.
	pshape := append([]int{}, q.Shape...)
	pshape[qa] = (pshape[qa] + bs - 1) / bs
	if sc.Len() != numel(pshape) {
		return nil, c.Errorf("scales %s do not fit %v", sc, pshape)
	}
	sf := sc.f64()
	qs, ps := strides(q.Shape), strides(pshape)
	deq := make([]float64, q.Len())
	for i, v := range q.I {
		off := 0
		for d := range q.Shape {
			k := (i / qs[d]) % q.Shape[d]
			if d == qa {
				k /= bs
			}
			off += k * ps[d]
		}
		z := zpDefault
		if zp != nil {
			if off >= len(zp) {
				return nil, c.Errorf("zero_points too short")
			}
			z = zp[off]
		}
		deq[i] = (float64(v) - z) * sf[off]
	}
	dq := fromFloat64s(sc.DType, q.Shape, deq)
	gc := *c
	gc.attrs = []*ir.Attr{{Name: "axis", Type: ir.AttrInt, I: c.Int("gather_axis", 0)}}
	g, err := kernelGather(&gc, []*Tensor{dq, idxT})
	if err != nil {
		return nil, err
	}
	return g, nil
}
