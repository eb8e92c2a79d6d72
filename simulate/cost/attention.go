package cost

// This file implements the cost of attention ops (ai.onnx Attention from
// opset 23 and the com.microsoft contrib attentions):
//
//	FLOPs = 2 B N Sq Skv dqk  (Q K^T)
//	      + 2 B N Sq Skv dv   (P V)
//	      + 5 B N Sq Skv      (scale, mask, softmax)
//	      + the Q/K/V projection GEMMs where the op includes them.
//
// Bytes are the op's inputs and outputs (a flash-style kernel keeps the
// Sq x Skv scores on chip).

import (
	"fmt"
	"math"
)

func registerAttention() {
	Register("", onnxAttentionCost, "Attention")
	Register("com.microsoft", msAttentionCost(4, false), "Attention")
	Register("com.microsoft", msAttentionCost(8, true), "QAttention")
	Register("com.microsoft", mhaCost, "MultiHeadAttention")
	Register("com.microsoft", gqaCost, "GroupQueryAttention")
}

// attention builds the cost from its dimensions.
func (c *Ctx) attention(b, heads, sq, skv, dqk, dv, projFLOPs, projTiles float64) (Cost, error) {
	if b <= 0 || heads <= 0 || sq <= 0 || skv <= 0 {
		return Cost{}, fmt.Errorf("attention dims B=%g heads=%g Sq=%g Skv=%g not positive", b, heads, sq, skv)
	}
	core := 2*b*heads*sq*skv*(dqk+dv) + 5*b*heads*sq*skv
	cost, err := c.Simple(core + projFLOPs)
	if err != nil {
		return Cost{}, err
	}
	cost.Work = []Work{{FLOPs: core, Tiles: c.Tiles(b*heads, sq, dv), Count: 1}}
	if projFLOPs > 0 {
		cost.Work = append(cost.Work, Work{FLOPs: projFLOPs, Tiles: projTiles, Count: 1})
	}
	if c.cpuLibrary() {
		// a CPU runtime runs attention unfused: per batch and head a QK^T
		// GEMM, a softmax and a PV GEMM, each a library call
		cost.Steps = int64(math.Min(3*b*heads, 1<<30))
		if projFLOPs > 0 {
			cost.Steps++
		}
	}
	return cost, nil
}

// Attention(Q, K, V, attn_mask?, past_key?, past_value?) -> Y,
// present_key?, present_value?: 4-D [B, heads, S, d] or 3-D [B, S, heads*d]
// with q_num_heads / kv_num_heads.
func onnxAttentionCost(c *Ctx) (Cost, error) {
	q, err := c.InDims(0)
	if err != nil {
		return Cost{}, err
	}
	k, err := c.InDims(1)
	if err != nil {
		return Cost{}, err
	}
	v, err := c.InDims(2)
	if err != nil {
		return Cost{}, err
	}
	var b, heads, sq, skv, dqk, dv float64
	switch {
	case len(q) == 4 && len(k) == 4 && len(v) == 4:
		b, heads, sq, dqk = float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])
		skv, dv = float64(k[2]), float64(v[3])
	case len(q) == 3 && len(k) == 3 && len(v) == 3:
		qh, kvh := c.Node.AttrInt("q_num_heads", 0), c.Node.AttrInt("kv_num_heads", 0)
		if qh <= 0 || kvh <= 0 {
			return Cost{}, fmt.Errorf("3-D Attention needs q_num_heads and kv_num_heads")
		}
		b, heads, sq, skv = float64(q[0]), float64(qh), float64(q[1]), float64(k[1])
		dqk, dv = float64(q[2])/float64(qh), float64(v[2])/float64(kvh)
	default:
		return Cost{}, fmt.Errorf("Attention Q/K/V ranks %d/%d/%d not supported", len(q), len(k), len(v))
	}
	if pk := c.Input(4); pk != nil {
		if p, err := c.Dims(pk); err == nil && len(p) == 4 {
			skv += float64(p[2])
		}
	}
	return c.attention(b, heads, sq, skv, dqk, dv, 0, 0)
}

// com.microsoft Attention(input[B,S,Hin], weights[Hin, 3H], bias, mask?,
// past[2,B,N,P,d]?) with num_heads: a QKV projection plus attention.
func msAttentionCost(pastIdx int, quantized bool) Func {
	return func(c *Ctx) (Cost, error) {
		x, err := c.InDims(0)
		if err != nil {
			return Cost{}, err
		}
		w, err := c.InDims(1)
		if err != nil {
			return Cost{}, err
		}
		if len(x) != 3 || len(w) != 2 {
			return Cost{}, fmt.Errorf("Attention input %v weights %v: want 3-D and 2-D", x, w)
		}
		heads := float64(c.Node.AttrInt("num_heads", 0))
		if heads <= 0 {
			return Cost{}, fmt.Errorf("Attention needs num_heads")
		}
		b, s := float64(x[0]), float64(x[1])
		hq, hv := float64(w[1])/3, float64(w[1])/3
		if sizes, ok := c.Node.AttrInts("qkv_hidden_sizes"); ok && len(sizes) == 3 {
			hq, hv = float64(sizes[0]), float64(sizes[2])
		}
		skv := s
		if p := c.Input(pastIdx); p != nil {
			if pd, err := c.Dims(p); err == nil && len(pd) == 5 {
				skv += float64(pd[3])
			}
		}
		proj := 2 * b * s * float64(x[2]) * float64(w[1])
		cost, err := c.attention(b, heads, s, skv, hq/heads, hv/heads, proj, c.Tiles(1, b*s, float64(w[1])))
		if quantized && err == nil {
			// the QKV projection, most of the arithmetic, is an integer
			// GEMM of the quantized input and weights: costed at the
			// input's (int8) peak, the float attention core with it
			cost.DType = c.m.dtype(c.Node.Inputs[0].Type.DType)
			err = c.packAtRun(&cost, 1)
		}
		return cost, err
	}
}

// MultiHeadAttention(query, key?, value?, bias?, ..., past_key?) with
// num_heads; output [B, Sq, Hv].
func mhaCost(c *Ctx) (Cost, error) {
	q, err := c.InDims(0)
	if err != nil {
		return Cost{}, err
	}
	out, err := c.OutDims(0)
	if err != nil {
		return Cost{}, err
	}
	heads := float64(c.Node.AttrInt("num_heads", 0))
	if heads <= 0 || len(out) != 3 || len(q) < 3 {
		return Cost{}, fmt.Errorf("MultiHeadAttention needs num_heads and a [B,S,H] output")
	}
	b, sq, hidden := float64(out[0]), float64(out[1]), float64(out[2])
	skv := sq
	if pk := c.Output(1); pk != nil {
		if p, err := c.Dims(pk); err == nil && len(p) == 4 {
			skv = float64(p[2])
		}
	} else if k := c.Input(1); k != nil {
		kd, err := c.Dims(k)
		if err != nil {
			return Cost{}, err
		}
		switch len(kd) {
		case 3, 5:
			skv = float64(kd[1])
		case 4:
			skv = float64(kd[2])
		}
	}
	d := hidden / heads
	return c.attention(b, heads, sq, skv, d, d, 0, 0)
}

// GroupQueryAttention(query, key?, value?, past_key?, past_value?, ...)
// with num_heads, kv_num_heads; output [B, S, N*d], present_key [B, kvN,
// Stotal, d].
func gqaCost(c *Ctx) (Cost, error) {
	out, err := c.OutDims(0)
	if err != nil {
		return Cost{}, err
	}
	heads := float64(c.Node.AttrInt("num_heads", 0))
	if heads <= 0 || len(out) != 3 {
		return Cost{}, fmt.Errorf("GroupQueryAttention needs num_heads and a [B,S,H] output")
	}
	b, sq := float64(out[0]), float64(out[1])
	d := float64(out[2]) / heads
	skv := sq
	if pk := c.Output(1); pk != nil {
		if p, err := c.Dims(pk); err == nil && len(p) == 4 {
			skv = float64(p[2])
		}
	} else if pk := c.Input(3); pk != nil {
		if p, err := c.Dims(pk); err == nil && len(p) == 4 {
			skv = sq + float64(p[2])
		}
	}
	return c.attention(b, heads, sq, skv, d, d, 0, 0)
}
