package eval

// This file implements normalizations: BatchNormalization,
// InstanceNormalization, LayerNormalization, GroupNormalization,
// RMSNormalization, LRN, LpNormalization and MeanVarianceNormalization.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerNorm() {
	register(kernelBatchNorm, "BatchNormalization")
	register(kernelInstanceNorm, "InstanceNormalization")
	register(kernelLayerNorm, "LayerNormalization")
	register(kernelGroupNorm, "GroupNormalization")
	register(kernelRMSNorm, "RMSNormalization")
	register(kernelLRN, "LRN")
	register(kernelLpNorm, "LpNormalization")
	register(kernelMVN, "MeanVarianceNormalization")
}

// perChannel reads a [C] parameter.
func perChannel(t *Tensor, ch int, what string) ([]float64, error) {
	if t == nil {
		return nil, errf("missing %s", what)
	}
	if t.Len() != ch {
		return nil, errf("%s %s does not match %d channels", what, t, ch)
	}
	return t.f64(), nil
}

func kernelBatchNorm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() < 2 {
		return nil, c.Errorf("X must have rank >= 2")
	}
	ch := x.Shape[1]
	var p [4][]float64
	for i := range p {
		t, err := need(in, i+1, "BatchNormalization parameter")
		if err != nil {
			return nil, err
		}
		if p[i], err = perChannel(t, ch, "parameter"); err != nil {
			return nil, err
		}
	}
	scale, bias, mean, vr := p[0], p[1], p[2], p[3]
	eps := float64(c.Float("epsilon", 1e-5))
	mom := float64(c.Float("momentum", 0.9))
	training := c.Int("training_mode", 0) != 0 || (c.Opset < 7 && c.Int("is_test", 0) == 0 && len(c.Node.Outputs) > 1)
	n := x.Shape[0]
	sp := numel(x.Shape[2:])
	f := x.f64()
	var runMean, runVar []float64
	if training {
		bm, bv := make([]float64, ch), make([]float64, ch)
		cnt := float64(n * sp)
		for ci := 0; ci < ch; ci++ {
			s := 0.0
			for b := 0; b < n; b++ {
				for j := 0; j < sp; j++ {
					s += f[(b*ch+ci)*sp+j]
				}
			}
			bm[ci] = s / cnt
			v := 0.0
			for b := 0; b < n; b++ {
				for j := 0; j < sp; j++ {
					d := f[(b*ch+ci)*sp+j] - bm[ci]
					v += d * d
				}
			}
			bv[ci] = v / cnt
		}
		runMean, runVar = make([]float64, ch), make([]float64, ch)
		for ci := range bm {
			runMean[ci] = mean[ci]*mom + bm[ci]*(1-mom)
			runVar[ci] = vr[ci]*mom + bv[ci]*(1-mom)
		}
		mean, vr = bm, bv
	}
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	for b := 0; b < n; b++ {
		for ci := 0; ci < ch; ci++ {
			inv := scale[ci] / math.Sqrt(vr[ci]+eps)
			for j := 0; j < sp; j++ {
				k := (b*ch+ci)*sp + j
				out.setF(k, (f[k]-mean[ci])*inv+bias[ci])
			}
		}
	}
	outs := []*Tensor{out}
	if training {
		outs = append(outs, fromFloat64s(in[3].DType, []int{ch}, runMean), fromFloat64s(in[4].DType, []int{ch}, runVar))
	}
	return outs, nil
}

func kernelInstanceNorm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() < 3 {
		return nil, c.Errorf("input must have rank >= 3")
	}
	ch := x.Shape[1]
	scale, err := perChannel(in[1], ch, "scale")
	if err != nil {
		return nil, err
	}
	if len(in) < 3 {
		return nil, c.Errorf("missing B")
	}
	bias, err := perChannel(in[2], ch, "B")
	if err != nil {
		return nil, err
	}
	eps := float64(c.Float("epsilon", 1e-5))
	sp := numel(x.Shape[2:])
	f := x.f64()
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	for img := 0; img < x.Shape[0]*ch; img++ {
		ci := img % ch
		seg := f[img*sp : (img+1)*sp]
		m, v := meanVar(seg)
		inv := 1 / math.Sqrt(v+eps)
		for j, val := range seg {
			out.setF(img*sp+j, (val-m)*inv*scale[ci]+bias[ci])
		}
	}
	return []*Tensor{out}, nil
}

func meanVar(seg []float64) (float64, float64) {
	if len(seg) == 0 {
		return 0, 0
	}
	s := 0.0
	for _, v := range seg {
		s += v
	}
	m := s / float64(len(seg))
	q := 0.0
	for _, v := range seg {
		q += (v - m) * (v - m)
	}
	return m, q / float64(len(seg))
}

// normParams broadcasts an optional scale/bias over the normalized tail
// (shape tail) and returns a per-element accessor.
func tailParam(c *Ctx, p *Tensor, tail []int) (func(i int) float64, error) {
	if p == nil {
		return nil, nil
	}
	if _, err := broadcastShapes(tail, p.Shape); err != nil || len(p.Shape) > len(tail) {
		return nil, c.Errorf("parameter %s does not broadcast to %v", p, tail)
	}
	idx := bcastIndex(tail, p.Shape)
	f := p.f64()
	return func(i int) float64 { return f[at(idx, i)] }, nil
}

// lastAxesNorm reads what LayerNormalization and RMSNormalization share:
// the float input X, the first normalized axis, epsilon, and the scale
// (input 1) broadcast over the normalized tail.
func lastAxesNorm(c *Ctx, in []*Tensor) (x *Tensor, axis int, eps float64, scale func(int) float64, err error) {
	x = in[0]
	if axis, err = normAxis(c.Int("axis", -1), x.Rank()); err != nil {
		return
	}
	eps = float64(c.Float("epsilon", 1e-5))
	scale, err = tailParam(c, optIn(in, 1), x.Shape[axis:])
	return
}

func kernelLayerNorm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, axis, eps, scale, err := lastAxesNorm(c, in)
	if err != nil {
		return nil, err
	}
	tail := x.Shape[axis:]
	bias, err := tailParam(c, optIn(in, 2), tail)
	if err != nil {
		return nil, err
	}
	outer, n := numel(x.Shape[:axis]), numel(tail)
	f := x.f64()
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	stat := append(append([]int{}, x.Shape[:axis]...), make([]int, x.Rank()-axis)...)
	for i := axis; i < x.Rank(); i++ {
		stat[i] = 1
	}
	st := ir.Float32
	if a := c.Attr("stash_type"); a != nil && ir.DType(a.I) == ir.Float64 {
		st = ir.Float64
	}
	meanT, _ := c.alloc(st, stat)
	invT, _ := c.alloc(st, stat)
	for o := 0; o < outer; o++ {
		seg := f[o*n : (o+1)*n]
		m, v := meanVar(seg)
		inv := 1 / math.Sqrt(v+eps)
		if st == ir.Float32 {
			// The reference computes the statistics in float32.
			inv = float64(float32(1) / float32(math.Sqrt(float64(float32(v)+float32(eps)))))
		}
		meanT.setF(o, m)
		invT.setF(o, inv)
		for j, val := range seg {
			y := (val - m) * inv
			if scale != nil {
				y *= scale(j)
			}
			if bias != nil {
				y += bias(j)
			}
			out.setF(o*n+j, y)
		}
	}
	return []*Tensor{out, meanT, invT}, nil
}

func kernelRMSNorm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, axis, eps, scale, err := lastAxesNorm(c, in)
	if err != nil {
		return nil, err
	}
	tail := x.Shape[axis:]
	outer, n := numel(x.Shape[:axis]), numel(tail)
	f := x.f64()
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	for o := 0; o < outer; o++ {
		seg := f[o*n : (o+1)*n]
		q := 0.0
		for _, v := range seg {
			q += v * v
		}
		inv := 1 / math.Sqrt(q/float64(max(n, 1))+eps)
		for j, v := range seg {
			y := v * inv
			if scale != nil {
				y *= scale(j)
			}
			out.setF(o*n+j, y)
		}
	}
	return []*Tensor{out}, nil
}

func kernelGroupNorm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() < 3 {
		return nil, c.Errorf("X must have rank >= 3")
	}
	g := int(c.Int("num_groups", 0))
	ch := x.Shape[1]
	if g <= 0 || ch%g != 0 {
		return nil, c.Errorf("num_groups %d does not divide %d channels", g, ch)
	}
	st, bt := in[1], in[2]
	sc, bs := st.f64(), bt.f64()
	perGroup := len(sc) == g && g != ch
	if !perGroup && len(sc) != ch || len(bs) != len(sc) {
		return nil, c.Errorf("scale %s and bias %s fit neither %d channels nor %d groups", st, bt, ch, g)
	}
	eps := float64(c.Float("epsilon", 1e-5))
	sp := numel(x.Shape[2:])
	cg := ch / g
	f := x.f64()
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	for b := 0; b < x.Shape[0]; b++ {
		for gi := 0; gi < g; gi++ {
			start := (b*ch + gi*cg) * sp
			seg := f[start : start+cg*sp]
			m, v := meanVar(seg)
			inv := 1 / math.Sqrt(v+eps)
			for j, val := range seg {
				ci := gi*cg + j/sp
				pi := ci
				if perGroup {
					pi = gi
				}
				out.setF(start+j, (val-m)*inv*sc[pi]+bs[pi])
			}
		}
	}
	return []*Tensor{out}, nil
}

func kernelLRN(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() < 3 {
		return nil, c.Errorf("X must have rank >= 3")
	}
	size := int(c.Int("size", 0))
	if size <= 0 {
		return nil, c.Errorf("size must be positive")
	}
	alpha, beta, bias := float64(c.Float("alpha", 1e-4)), float64(c.Float("beta", 0.75)), float64(c.Float("bias", 1))
	ch := x.Shape[1]
	sp := numel(x.Shape[2:])
	f := x.f64()
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	lo, hi := (size-1)/2, (size-1)-(size-1)/2
	for b := 0; b < x.Shape[0]; b++ {
		for ci := 0; ci < ch; ci++ {
			for j := 0; j < sp; j++ {
				s := 0.0
				for k := max(0, ci-lo); k <= min(ch-1, ci+hi); k++ {
					v := f[(b*ch+k)*sp+j]
					s += v * v
				}
				i := (b*ch+ci)*sp + j
				out.setF(i, f[i]/math.Pow(bias+alpha/float64(size)*s, beta))
			}
		}
	}
	return []*Tensor{out}, nil
}

func kernelLpNorm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	axis, err := normAxis(c.Int("axis", -1), x.Rank())
	if err != nil {
		return nil, err
	}
	p := c.Int("p", 2)
	if p != 1 && p != 2 {
		return nil, c.Errorf("p must be 1 or 2, got %d", p)
	}
	outer, n, inner := numel(x.Shape[:axis]), x.Shape[axis], numel(x.Shape[axis+1:])
	f := x.f64()
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			s := 0.0
			for j := 0; j < n; j++ {
				v := f[(o*n+j)*inner+i]
				if p == 1 {
					s += math.Abs(v)
				} else {
					s += v * v
				}
			}
			if p == 2 {
				s = math.Sqrt(s)
			}
			for j := 0; j < n; j++ {
				k := (o*n+j)*inner + i
				if s == 0 {
					out.setF(k, 0)
				} else {
					out.setF(k, f[k]/s)
				}
			}
		}
	}
	return []*Tensor{out}, nil
}

func kernelMVN(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	axes, ok := c.Ints("axes")
	if !ok {
		axes = []int64{0, 2, 3}
	}
	red := make([]bool, x.Rank())
	for _, a := range axes {
		ax, err := normAxis(a, x.Rank())
		if err != nil {
			return nil, err
		}
		red[ax] = true
	}
	var perm []int
	for i := range red {
		if !red[i] {
			perm = append(perm, i)
		}
	}
	group := 1
	for i := range red {
		if red[i] {
			perm = append(perm, i)
			group *= x.Shape[i]
		}
	}
	_, idx := transposeIndex(x.Shape, perm)
	f := x.f64()
	out, err := c.alloc(x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	seg := make([]float64, group)
	for o := 0; o*group < len(idx); o++ {
		for j := 0; j < group; j++ {
			seg[j] = f[idx[o*group+j]]
		}
		m, v := meanVar(seg)
		sd := math.Sqrt(v) + 1e-9
		for j := 0; j < group; j++ {
			out.setF(idx[o*group+j], (seg[j]-m)/sd)
		}
	}
	return []*Tensor{out}, nil
}
