package eval

// This file implements the ONNX Attention (opset 23+) and RotaryEmbedding
// ops, following the ONNX reference implementation.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerAttention() {
	register(kernelAttention, "Attention")
	register(kernelRotaryEmbedding, "RotaryEmbedding")
}

// heads4 views a [B,S,H*D] or [B,H,S,D] tensor as [B,H,S,D] float64.
func heads4(c *Ctx, t *Tensor, heads int64) ([]float64, [4]int, error) {
	f := t.f64()
	switch t.Rank() {
	case 4:
		return f, [4]int{t.Shape[0], t.Shape[1], t.Shape[2], t.Shape[3]}, nil
	case 3:
		if heads <= 0 || t.Shape[2]%int(heads) != 0 {
			return nil, [4]int{}, c.Errorf("hidden size %d is not a multiple of %d heads", t.Shape[2], heads)
		}
		b, s, h := t.Shape[0], t.Shape[1], int(heads)
		d := t.Shape[2] / h
		out := make([]float64, len(f))
		for bi := 0; bi < b; bi++ {
			for si := 0; si < s; si++ {
				for hi := 0; hi < h; hi++ {
					copy(out[((bi*h+hi)*s+si)*d:((bi*h+hi)*s+si+1)*d], f[((bi*s+si)*h+hi)*d:((bi*s+si)*h+hi+1)*d])
				}
			}
		}
		return out, [4]int{b, h, s, d}, nil
	}
	return nil, [4]int{}, c.Errorf("Q, K and V must be 3-D or 4-D, got %s", t)
}

// concatSeq joins [B,H,S1,D] and [B,H,S2,D] along S.
func concatSeq(a []float64, as [4]int, b []float64, bs [4]int) ([]float64, [4]int, error) {
	if as[0] != bs[0] || as[1] != bs[1] || as[3] != bs[3] {
		return nil, [4]int{}, errf("past %v does not fit %v", as, bs)
	}
	s := as[2] + bs[2]
	d := as[3]
	out := make([]float64, as[0]*as[1]*s*d)
	for bh := 0; bh < as[0]*as[1]; bh++ {
		copy(out[bh*s*d:], a[bh*as[2]*d:(bh+1)*as[2]*d])
		copy(out[(bh*s+as[2])*d:], b[bh*bs[2]*d:(bh+1)*bs[2]*d])
	}
	return out, [4]int{as[0], as[1], s, d}, nil
}

func kernelAttention(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	qt, kt, vt := in[0], in[1], in[2]
	if qt.Rank() != kt.Rank() || qt.Rank() != vt.Rank() {
		return nil, c.Errorf("Q, K and V ranks differ")
	}
	a, err := newAttnOp(c, in, qt, kt, vt)
	if err != nil {
		return nil, err
	}
	var nonpad []int64
	if t := optIn(in, 6); t != nil {
		if nonpad, err = ints(t, "nonpad_kv_seqlen"); err != nil {
			return nil, err
		}
		if len(nonpad) != a.B {
			return nil, c.Errorf("nonpad_kv_seqlen has %d entries for batch %d", len(nonpad), a.B)
		}
	}
	bias, err := a.maskBias(c, optIn(in, 3), nonpad)
	if err != nil {
		return nil, err
	}
	y, qkOut := a.run(c, bias, qt.DType != ir.Float64)
	B, H, Sq, D, KH, Skv, Dv := a.B, a.H, a.Sq, a.D, a.KH, a.Skv, a.Dv
	var yt *Tensor
	if qt.Rank() == 3 {
		yy := make([]float64, len(y))
		for b := 0; b < B; b++ {
			for h := 0; h < H; h++ {
				for i := 0; i < Sq; i++ {
					copy(yy[((b*Sq+i)*H+h)*Dv:((b*Sq+i)*H+h+1)*Dv], y[((b*H+h)*Sq+i)*Dv:((b*H+h)*Sq+i+1)*Dv])
				}
			}
		}
		yt = fromFloat64s(qt.DType, []int{B, Sq, H * Dv}, yy)
	} else {
		yt = fromFloat64s(qt.DType, []int{B, H, Sq, Dv}, y)
	}
	return []*Tensor{
		yt,
		fromFloat64s(kt.DType, []int{B, KH, Skv, D}, a.k),
		fromFloat64s(vt.DType, []int{B, KH, Skv, Dv}, a.v),
		fromFloat64s(qt.DType, []int{B, H, Sq, Skv}, qkOut),
	}, nil
}

// attnOp is one Attention node's Q, K and V as [B,H,S,D] float64, K and V
// with the past cache prepended, and its scale.
type attnOp struct {
	q, k, v                  []float64
	B, H, Sq, D, KH, Skv, Dv int
	scale                    float64
	pastLen                  int // -1 without a past key
}

// newAttnOp reads Q, K, V and the past key and value (inputs 4 and 5),
// and checks that they fit each other.
func newAttnOp(c *Ctx, in []*Tensor, qt, kt, vt *Tensor) (*attnOp, error) {
	qh, kvh := c.Int("q_num_heads", 0), c.Int("kv_num_heads", 0)
	q, qs, err := heads4(c, qt, qh)
	if err != nil {
		return nil, err
	}
	k, ks, err := heads4(c, kt, kvh)
	if err != nil {
		return nil, err
	}
	v, vs, err := heads4(c, vt, kvh)
	if err != nil {
		return nil, err
	}
	a := &attnOp{q: q, B: qs[0], H: qs[1], Sq: qs[2], D: qs[3], pastLen: -1}
	a.scale = 1 / math.Sqrt(float64(a.D))
	if at := c.Attr("scale"); at != nil {
		a.scale = float64(at.F)
	}
	if pk := optIn(in, 4); pk != nil {
		p, ps, err := heads4(c, pk, kvh)
		if err != nil {
			return nil, err
		}
		if k, ks, err = concatSeq(p, ps, k, ks); err != nil {
			return nil, err
		}
		a.pastLen = ps[2]
	}
	if pv := optIn(in, 5); pv != nil {
		p, ps, err := heads4(c, pv, kvh)
		if err != nil {
			return nil, err
		}
		if v, vs, err = concatSeq(p, ps, v, vs); err != nil {
			return nil, err
		}
	}
	a.k, a.v = k, v
	a.KH, a.Skv, a.Dv = ks[1], ks[2], vs[3]
	if ks[0] != a.B || vs[0] != a.B || ks[3] != a.D || vs[1] != a.KH || vs[2] != a.Skv || a.KH == 0 || a.H%a.KH != 0 {
		return nil, c.Errorf("Q %v, K %v and V %v do not fit", qs, ks, vs)
	}
	return a, nil
}

// maskBias builds the [B,H,Sq,Skv] additive bias: attn_mask m (nil:
// none) padded with -inf to Skv and broadcast, then -inf above the causal
// diagonal (is_causal) and past each batch's nonpad_kv_seqlen.
func (a *attnOp) maskBias(c *Ctx, m *Tensor, nonpad []int64) ([]float64, error) {
	B, H, Sq, Skv := a.B, a.H, a.Sq, a.Skv
	biasShape := []int{B, H, Sq, Skv}
	if err := c.check(ir.Float64, biasShape); err != nil {
		return nil, err
	}
	bias := make([]float64, B*H*Sq*Skv)
	if m != nil {
		if err := padMask(c, m, biasShape, bias); err != nil {
			return nil, err
		}
	}
	if c.Int("is_causal", 0) != 0 {
		for b := 0; b < B; b++ {
			off := 0
			switch {
			case a.pastLen >= 0:
				off = a.pastLen
			case nonpad != nil:
				off = int(nonpad[b]) - Sq
			}
			for h := 0; h < H; h++ {
				for i := 0; i < Sq; i++ {
					for j := 0; j < Skv; j++ {
						if j > i+off {
							bias[((b*H+h)*Sq+i)*Skv+j] = math.Inf(-1)
						}
					}
				}
			}
		}
	}
	if nonpad != nil {
		for b := 0; b < B; b++ {
			for h := 0; h < H; h++ {
				for i := 0; i < Sq; i++ {
					for j := int(nonpad[b]); j < Skv; j++ {
						if j >= 0 {
							bias[((b*H+h)*Sq+i)*Skv+j] = math.Inf(-1)
						}
					}
				}
			}
		}
	}
	return bias, nil
}

// padMask writes attn_mask m (a float bias, or a bool mask whose false
// is -inf) into bias of shape biasShape, its last dim padded with -inf to
// the key length and then broadcast.
func padMask(c *Ctx, m *Tensor, biasShape []int, bias []float64) error {
	Skv := biasShape[3]
	if m.Rank() < 1 || m.Rank() > 4 {
		return c.Errorf("attn_mask must have rank 1..4")
	}
	last := m.Shape[m.Rank()-1]
	if last > Skv {
		return c.Errorf("attn_mask %s is longer than the key sequence %d", m, Skv)
	}
	pshape := append([]int{}, m.Shape...)
	pshape[len(pshape)-1] = Skv
	full, err := broadcastShapes(biasShape, pshape)
	if err != nil || !equalInts(full, biasShape) {
		return c.Errorf("attn_mask %s does not broadcast to %v", m, biasShape)
	}
	mf := m.f64()
	// Pad the last dim (with -inf, or false) to Skv, then broadcast.
	padded := make([]float64, numel(pshape))
	outer := numel(m.Shape[:m.Rank()-1])
	for o := 0; o < outer; o++ {
		for j := 0; j < Skv; j++ {
			val := math.Inf(-1)
			if j < last {
				val = mf[o*last+j]
				if m.cls() == clsB {
					val = 0
					if !m.B[o*last+j] {
						val = math.Inf(-1)
					}
				}
			}
			padded[o*Skv+j] = val
		}
	}
	idx := bcastIndex(biasShape, pshape)
	for i := range bias {
		bias[i] = padded[at(idx, i)]
	}
	return nil
}

// run computes Y [B,H,Sq,Dv] and the qk_matmul_output the
// qk_matmul_output_mode attribute selects (0: scaled scores after
// softcap, 2: with the bias added, 3: the softmax); lowPrec adds the bias
// in float32 as the reference does for Q types other than float64.
func (a *attnOp) run(c *Ctx, bias []float64, lowPrec bool) (y, qkOut []float64) {
	B, H, Sq, D, KH, Skv, Dv := a.B, a.H, a.Sq, a.D, a.KH, a.Skv, a.Dv
	q, k, v := a.q, a.k, a.v
	softcap := float64(c.Float("softcap", 0))
	mode := c.Int("qk_matmul_output_mode", 0)
	rep := H / KH
	qkOut = make([]float64, B*H*Sq*Skv)
	y = make([]float64, B*H*Sq*Dv)
	row := make([]float64, Skv)
	ss := math.Sqrt(a.scale)
	for b := 0; b < B; b++ {
		for h := 0; h < H; h++ {
			kh := h / rep
			for i := 0; i < Sq; i++ {
				qrow := q[((b*H+h)*Sq+i)*D:]
				for j := 0; j < Skv; j++ {
					krow := k[((b*KH+kh)*Skv+j)*D:]
					s := 0.0
					for d := 0; d < D; d++ {
						s += qrow[d] * ss * krow[d] * ss
					}
					if softcap > 0 {
						s = math.Tanh(s/softcap) * softcap
					}
					bi := ((b*H+h)*Sq+i)*Skv + j
					qkOut[bi] = s
					row[j] = s + bias[bi]
					if lowPrec {
						// The reference adds the bias in Q's precision: a huge
						// negative mask value swallows the scores.
						row[j] = float64(float32(s) + float32(bias[bi]))
					}
					if mode == 2 {
						qkOut[bi] = row[j]
					}
				}
				m := math.Inf(-1)
				for _, x := range row {
					m = math.Max(m, x)
				}
				sum := 0.0
				for j, x := range row {
					row[j] = math.Exp(x - m)
					sum += row[j]
				}
				for j := range row {
					if math.IsInf(m, -1) {
						// A fully masked row attends to nothing (zeros, not NaN).
						row[j], sum = 0, 1
					}
					row[j] /= sum
					if mode == 3 {
						qkOut[((b*H+h)*Sq+i)*Skv+j] = row[j]
					}
				}
				yrow := y[((b*H+h)*Sq+i)*Dv:]
				for d := 0; d < Dv; d++ {
					s := 0.0
					for j := 0; j < Skv; j++ {
						s += row[j] * v[((b*KH+kh)*Skv+j)*Dv+d]
					}
					yrow[d] = s
				}
			}
		}
	}
	return y, qkOut
}

func kernelRotaryEmbedding(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, cosT, sinT := in[0], in[1], in[2]
	var pos []int64
	if len(in) > 3 && in[3] != nil {
		var err error
		if pos, err = ints(in[3], "position_ids"); err != nil {
			return nil, err
		}
	}
	// View X as [B, S, H, D] with an index map back to its layout.
	var B, S, H, D int
	var at func(b, s, h, d int) int
	switch x.Rank() {
	case 4:
		B, H, S, D = x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
		at = func(b, s, h, d int) int { return ((b*H+h)*S+s)*D + d }
	case 3:
		nh := int(c.Int("num_heads", 0))
		if nh <= 0 || x.Shape[2]%nh != 0 {
			return nil, c.Errorf("num_heads %d does not divide hidden size %d", nh, x.Shape[2])
		}
		B, S, H, D = x.Shape[0], x.Shape[1], nh, x.Shape[2]/nh
		at = func(b, s, h, d int) int { return ((b*S+s)*H+h)*D + d }
	default:
		return nil, c.Errorf("X must be 3-D or 4-D, got %s", x)
	}
	rd := int(c.Int("rotary_embedding_dim", 0))
	if rd == 0 {
		rd = D
	}
	half := rd / 2
	if rd > D || rd%2 != 0 {
		return nil, c.Errorf("rotary_embedding_dim %d does not fit head size %d", rd, D)
	}
	cf, sf := cosT.f64(), sinT.f64()
	if cosT.Shape[cosT.Rank()-1] != half || sinT.Shape[sinT.Rank()-1] != half {
		return nil, c.Errorf("caches %s, %s do not have %d columns", cosT, sinT, half)
	}
	// cache row for (b, s).
	rowOf := func(b, s int) (int, error) {
		if pos != nil {
			p := 0
			if len(pos) == B*S {
				p = int(pos[b*S+s])
			} else if len(pos) == S {
				p = int(pos[s])
			} else {
				return 0, errf("position_ids has %d entries", len(pos))
			}
			if p < 0 || (p+1)*half > len(cf) {
				return 0, errf("position %d out of range", p)
			}
			return p * half, nil
		}
		if cosT.Rank() == 3 {
			return (b*S + s) * half, nil
		}
		return s * half, nil
	}
	interleaved := c.Int("interleaved", 0) != 0
	f := x.f64()
	out := make([]float64, len(f))
	copy(out, f)
	for b := 0; b < B; b++ {
		for s := 0; s < S; s++ {
			r, err := rowOf(b, s)
			if err != nil {
				return nil, err
			}
			if r+half > len(cf) || r+half > len(sf) {
				return nil, c.Errorf("cache too small")
			}
			for h := 0; h < H; h++ {
				rotateHead(out, f, func(d int) int { return at(b, s, h, d) }, cf[r:], sf[r:], half, interleaved)
			}
		}
	}
	return []*Tensor{fromFloat64s(x.DType, x.Shape, out)}, nil
}
