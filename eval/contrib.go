package eval

// This file implements the com.microsoft (ONNX Runtime contrib) ops the
// shared models use, and a few ai.onnx.ml ops: QLinearAdd, QLinearMul,
// QLinearGlobalAveragePool, SkipLayerNormalization,
// SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization, FastGelu,
// MatMulNBits; Scaler, Binarizer and ArrayFeatureExtractor.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

const msDomain = "com.microsoft"

func registerContrib() {
	registerDomain(msDomain, "QLinearAdd", qlinearBinary(func(a, b float64) float64 { return a + b }))
	registerDomain(msDomain, "QLinearMul", qlinearBinary(func(a, b float64) float64 { return a * b }))
	registerDomain(msDomain, "QLinearGlobalAveragePool", kernelQLinearGAP)
	registerDomain(msDomain, "SkipLayerNormalization", skipNorm(false))
	registerDomain(msDomain, "SkipSimplifiedLayerNormalization", skipNorm(true))
	register(kernelSimplifiedLayerNorm, "SimplifiedLayerNormalization")
	registerDomain(msDomain, "SimplifiedLayerNormalization", kernelSimplifiedLayerNorm)
	registerDomain(msDomain, "FastGelu", kernelFastGelu)
	registerDomain("ai.onnx.contrib", "FastGelu", kernelFastGelu)
	registerDomain(msDomain, "MatMulNBits", kernelMatMulNBits)
	registerDomain("ai.onnx.ml", "Scaler", kernelScaler)
	registerDomain("ai.onnx.ml", "Binarizer", kernelBinarizer)
	registerDomain("ai.onnx.ml", "ArrayFeatureExtractor", kernelArrayFeatureExtractor)
}

func optIn(in []*Tensor, i int) *Tensor {
	if i < len(in) {
		return in[i]
	}
	return nil
}

func qlinearBinary(f func(a, b float64) float64) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		a, as, b, bs, cs := in[0], in[1], in[3], in[4], in[6]
		af, err := dequantize(c, a, as, optIn(in, 2), -1)
		if err != nil {
			return nil, err
		}
		bf, err := dequantize(c, b, bs, optIn(in, 5), -1)
		if err != nil {
			return nil, err
		}
		shape, err := broadcastShapes(a.Shape, b.Shape)
		if err != nil {
			return nil, err
		}
		if err := c.check(a.DType, shape); err != nil {
			return nil, err
		}
		ia, ib := bcastIndex(shape, a.Shape), bcastIndex(shape, b.Shape)
		res := make([]float64, numel(shape))
		for k := range res {
			res[k] = f(af[at(ia, k)], bf[at(ib, k)])
		}
		out, err := quantize(c, res, shape, cs, optIn(in, 7), a.DType, -1, true)
		if err != nil {
			return nil, err
		}
		return []*Tensor{out}, nil
	}
}

func kernelQLinearGAP(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, xs, ys := in[0], in[1], in[3]
	if x.Rank() < 3 {
		return nil, c.Errorf("X must have rank >= 3")
	}
	xf, err := dequantize(c, x, xs, optIn(in, 2), -1)
	if err != nil {
		return nil, err
	}
	n := x.Shape[0]
	var ch, sp int
	var shape []int
	last := c.Int("channels_last", 0) != 0
	if last {
		ch, sp = x.Shape[x.Rank()-1], numel(x.Shape[1:x.Rank()-1])
		shape = []int{n}
		for i := 1; i < x.Rank()-1; i++ {
			shape = append(shape, 1)
		}
		shape = append(shape, ch)
	} else {
		ch, sp = x.Shape[1], numel(x.Shape[2:])
		shape = []int{n, ch}
		for i := 2; i < x.Rank(); i++ {
			shape = append(shape, 1)
		}
	}
	res := make([]float64, n*ch)
	for b := 0; b < n; b++ {
		for k := 0; k < ch; k++ {
			s := 0.0
			for j := 0; j < sp; j++ {
				if last {
					s += xf[(b*sp+j)*ch+k]
				} else {
					s += xf[(b*ch+k)*sp+j]
				}
			}
			res[b*ch+k] = s / float64(sp)
		}
	}
	out, err := quantize(c, res, shape, ys, optIn(in, 4), x.DType, -1, true)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

// lastAxisParam reads a [hidden] vector (nil when absent).
func lastAxisParam(t *Tensor, hidden int, what string) ([]float64, error) {
	if t == nil {
		return nil, nil
	}
	if t.Len() != hidden {
		return nil, errf("%s %s does not match hidden size %d", what, t, hidden)
	}
	return t.f64(), nil
}

// skipNorm: SkipLayerNormalization(input, skip, gamma, beta, bias) and
// SkipSimplifiedLayerNormalization(input, skip, gamma, bias).
func skipNorm(simplified bool) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x, skip := in[0], in[1]
		if x.Rank() < 1 {
			return nil, c.Errorf("input must have rank >= 1")
		}
		hidden := x.Shape[x.Rank()-1]
		gamma, err := lastAxisParam(optIn(in, 2), hidden, "gamma")
		if err != nil {
			return nil, err
		}
		var beta, bias []float64
		if simplified {
			bias, err = lastAxisParam(optIn(in, 3), hidden, "bias")
		} else {
			if beta, err = lastAxisParam(optIn(in, 3), hidden, "beta"); err == nil {
				bias, err = lastAxisParam(optIn(in, 4), hidden, "bias")
			}
		}
		if err != nil {
			return nil, err
		}
		sk, err := c.broadcastTo(skip, x.Shape)
		if err != nil {
			return nil, err
		}
		eps := float64(c.Float("epsilon", 1e-5))
		xf, sf := x.f64(), sk.f64()
		rows := x.Len() / max(hidden, 1)
		sum := make([]float64, x.Len())
		y := make([]float64, x.Len())
		stat := append(append([]int{}, x.Shape[:x.Rank()-1]...), 1)
		mean := make([]float64, rows)
		inv := make([]float64, rows)
		for r := 0; r < rows; r++ {
			seg := sum[r*hidden : (r+1)*hidden]
			for j := range seg {
				seg[j] = xf[r*hidden+j] + sf[r*hidden+j]
				if bias != nil {
					seg[j] += bias[j]
				}
			}
			m, v := meanVar(seg)
			if simplified {
				q := 0.0
				for _, s := range seg {
					q += s * s
				}
				m, v = 0, q/float64(hidden)
			}
			iv := 1 / math.Sqrt(v+eps)
			mean[r], inv[r] = m, iv
			for j, s := range seg {
				o := (s - m) * iv
				if gamma != nil {
					o *= gamma[j]
				}
				if beta != nil {
					o += beta[j]
				}
				y[r*hidden+j] = o
			}
		}
		return []*Tensor{
			fromFloat64s(x.DType, x.Shape, y),
			fromFloat64s(ir.Float32, stat, mean),
			fromFloat64s(ir.Float32, stat, inv),
			fromFloat64s(x.DType, x.Shape, sum),
		}, nil
	}
}

func kernelSimplifiedLayerNorm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	outs, err := kernelRMSNorm(c, in)
	if err != nil {
		return nil, err
	}
	axis, _ := normAxis(c.Int("axis", -1), x.Rank())
	n := numel(x.Shape[axis:])
	f := x.f64()
	stat := append([]int{}, x.Shape...)
	for i := axis; i < len(stat); i++ {
		stat[i] = 1
	}
	eps := float64(c.Float("epsilon", 1e-5))
	inv := make([]float64, x.Len()/max(n, 1))
	for r := range inv {
		q := 0.0
		for _, v := range f[r*n : (r+1)*n] {
			q += v * v
		}
		inv[r] = 1 / math.Sqrt(q/float64(n)+eps)
	}
	return []*Tensor{outs[0], fromFloat64s(ir.Float32, stat, inv)}, nil
}

func kernelFastGelu(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	return biasThen(c, in, func(v float64) float64 {
		return 0.5 * v * (1 + math.Tanh(0.7978845608028654*(v+0.044715*v*v*v)))
	})
}

// kernelMatMulNBits: Y = A * dequant(B)^T (+ bias), B [N, k_blocks,
// blob] of bits-wide values packed little-endian in bytes.
func kernelMatMulNBits(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	a, bq, sc := in[0], in[1], in[2]
	if optIn(in, 4) != nil {
		return nil, c.unsupported("g_idx")
	}
	K, N := int(c.Int("K", 0)), int(c.Int("N", 0))
	bits, bs := int(c.Int("bits", 4)), int(c.Int("block_size", 0))
	if K <= 0 || N <= 0 || bs <= 0 || bits <= 0 || bits > 8 || 8%bits != 0 {
		return nil, c.Errorf("invalid K=%d N=%d bits=%d block_size=%d", K, N, bits, bs)
	}
	if a.Rank() == 0 || a.Shape[a.Rank()-1] != K || bq.cls() != clsI {
		return nil, c.Errorf("A %s or B %s does not fit K=%d", a, bq, K)
	}
	kb := (K + bs - 1) / bs
	blob := bs * bits / 8
	if bq.Len() != N*kb*blob || sc.Len() != N*kb {
		return nil, c.Errorf("B %s or scales %s does not fit N=%d, %d blocks", bq, sc, N, kb)
	}
	per := 8 / bits
	mask := int64(1<<bits - 1)
	sf := sc.f64()
	zpDefault := float64(int64(1) << (bits - 1))
	zp := optIn(in, 3)
	var zpf []float64
	zpPacked := zp != nil && zp.cls() == clsI
	if zp != nil {
		zpf = zp.f64()
	}
	zpBytesPerRow := (kb*bits + 7) / 8
	// zero points: packed like B (bits-wide values, a row of blocks per n)
	// or one value per block
	if (zpPacked && zp.Len() != N*zpBytesPerRow) || (!zpPacked && zpf != nil && len(zpf) != N*kb) {
		return nil, c.Errorf("zero_points %s does not fit N=%d, %d blocks of %d bits", zp, N, kb, bits)
	}
	if err := c.check(ir.Float64, []int{N, K}); err != nil {
		return nil, err
	}
	w := make([]float64, N*K) // [N, K]
	for n := 0; n < N; n++ {
		for k := 0; k < K; k++ {
			blk, off := k/bs, k%bs
			byteIdx := (n*kb+blk)*blob + off/per
			q := float64((bq.I[byteIdx] >> (uint(off%per) * uint(bits))) & mask)
			z := zpDefault
			if zpPacked {
				zb := zp.I[n*zpBytesPerRow+blk/per]
				z = float64((zb >> (uint(blk%per) * uint(bits))) & mask)
			} else if zpf != nil {
				z = zpf[n*kb+blk]
			}
			w[n*K+k] = (q - z) * sf[n*kb+blk]
		}
	}
	wt := &Tensor{DType: ir.Float64, Shape: []int{K, N}, D: make([]float64, K*N)}
	for n := 0; n < N; n++ {
		for k := 0; k < K; k++ {
			wt.D[k*N+n] = w[n*K+k]
		}
	}
	af := &Tensor{DType: ir.Float64, Shape: a.Shape, D: a.f64()}
	y, err := c.matmul(af, wt, ir.Float64)
	if err != nil {
		return nil, err
	}
	if b := optIn(in, 5); b != nil {
		bf := b.f64()
		if len(bf) != N {
			return nil, c.Errorf("bias %s does not match N=%d", b, N)
		}
		for i := range y.D {
			y.D[i] += bf[i%N]
		}
	}
	return []*Tensor{fromFloat64s(a.DType, y.Shape, y.D)}, nil
}

func kernelScaler(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	off, _ := c.Floats("offset")
	sc, _ := c.Floats("scale")
	f := x.f64()
	if f == nil || x.cls() == clsB {
		return nil, c.Errorf("X must be numeric")
	}
	last := 1
	if x.Rank() > 0 {
		last = x.Shape[x.Rank()-1]
	}
	pick := func(v []float32, i int, def float64) float64 {
		switch len(v) {
		case 0:
			return def
		case 1:
			return float64(v[0])
		}
		return float64(v[i%last%len(v)])
	}
	out := make([]float64, len(f))
	for i, v := range f {
		out[i] = (v - pick(off, i, 0)) * pick(sc, i, 1)
	}
	return []*Tensor{fromFloat64s(ir.Float32, x.Shape, out)}, nil
}

func kernelBinarizer(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	th := float64(c.Float("threshold", 0))
	if x.cls() == clsI {
		out, err := c.alloc(x.DType, x.Shape)
		if err != nil {
			return nil, err
		}
		for i, v := range x.I {
			if float64(v) > th {
				out.I[i] = 1
			}
		}
		return []*Tensor{out}, nil
	}
	if err := requireFloat(x, "X"); err != nil {
		return nil, err
	}
	return mapFloat(c, x, func(v float64) float64 {
		if v > th {
			return 1
		}
		return 0
	})
}

func kernelArrayFeatureExtractor(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, it := in[0], in[1]
	idx, err := ints(it, "Y")
	if err != nil {
		return nil, err
	}
	if x.Rank() == 0 {
		return nil, c.Errorf("X must have rank >= 1")
	}
	last := x.Shape[x.Rank()-1]
	pos := make([]int, len(idx))
	for i, v := range idx {
		if v < 0 || v >= int64(last) {
			return nil, c.Errorf("index %d out of range [0, %d)", v, last)
		}
		pos[i] = int(v)
	}
	out, err := c.gatherAxis(x, x.Rank()-1, pos)
	if err != nil {
		return nil, err
	}
	if x.Rank() == 1 {
		out = out.reshaped([]int{1, len(pos)})
	}
	return []*Tensor{out}, nil
}
