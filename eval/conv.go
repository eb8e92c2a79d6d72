package eval

// This file implements convolution and pooling: Conv, ConvTranspose,
// ConvInteger, QLinearConv, MaxPool, AveragePool, LpPool and the Global*
// pools. Conv runs as im2col plus a gonum GEMM, in chunks of output
// positions so the column buffer stays small.

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func registerConv() {
	register(kernelConv, "Conv")
	register(kernelConvTranspose, "ConvTranspose")
	register(kernelConvInteger, "ConvInteger")
	register(kernelQLinearConv, "QLinearConv")
	register(poolKernel("max"), "MaxPool")
	register(poolKernel("avg"), "AveragePool")
	register(poolKernel("lp"), "LpPool")
	register(globalPool("avg"), "GlobalAveragePool")
	register(globalPool("max"), "GlobalMaxPool")
	register(globalPool("lp"), "GlobalLpPool")
}

// window holds the geometry of a sliding-window op over the spatial dims.
type window struct {
	in, k, out, stride, dil, padB, padE []int
}

// windowGeometry computes output sizes and padding from the attributes.
func windowGeometry(c *Ctx, in []int, kernel []int, ceil bool) (*window, error) {
	r := len(in)
	w := &window{in: in, k: kernel, out: make([]int, r), stride: make([]int, r), dil: make([]int, r), padB: make([]int, r), padE: make([]int, r)}
	st, _ := c.Ints("strides")
	dl, _ := c.Ints("dilations")
	pads, _ := c.Ints("pads")
	for i := 0; i < r; i++ {
		w.stride[i], w.dil[i] = 1, 1
		if i < len(st) {
			w.stride[i] = int(st[i])
		}
		if i < len(dl) {
			w.dil[i] = int(dl[i])
		}
		if w.stride[i] <= 0 || w.dil[i] <= 0 || kernel[i] <= 0 {
			return nil, c.Errorf("invalid strides %v, dilations %v or kernel %v", st, dl, kernel)
		}
		if len(pads) == 2*r {
			w.padB[i], w.padE[i] = int(pads[i]), int(pads[i+r])
		}
	}
	auto := c.Str("auto_pad", "NOTSET")
	for i := 0; i < r; i++ {
		ek := (kernel[i]-1)*w.dil[i] + 1
		switch auto {
		case "SAME_UPPER", "SAME_LOWER":
			w.out[i] = (in[i] + w.stride[i] - 1) / w.stride[i]
			total := max(0, (w.out[i]-1)*w.stride[i]+ek-in[i])
			if auto == "SAME_UPPER" {
				w.padB[i] = total / 2
			} else {
				w.padB[i] = total - total/2
			}
			w.padE[i] = total - w.padB[i]
			continue
		case "VALID":
			w.padB[i], w.padE[i] = 0, 0
		}
		span := in[i] + w.padB[i] + w.padE[i] - ek
		if span < 0 {
			return nil, c.Errorf("kernel %v larger than padded input %v", kernel, in)
		}
		if ceil {
			w.out[i] = (span+w.stride[i]-1)/w.stride[i] + 1
			if (w.out[i]-1)*w.stride[i] >= in[i]+w.padB[i] {
				w.out[i]--
			}
		} else {
			w.out[i] = span/w.stride[i] + 1
		}
	}
	return w, nil
}

// im2col fills col (rows: channel x kernel offsets; columns: output
// positions [p0, p1)) from one image x of ch channels.
func im2col(x []float64, ch int, w *window, p0, p1 int, col []float64) {
	r := len(w.in)
	kn := numel(w.k)
	npos := p1 - p0
	insz := numel(w.in)
	// Output coordinates of each position in the chunk.
	oc := make([]int, r*npos)
	for j := 0; j < npos; j++ {
		unravel(p0+j, w.out, oc[j*r:(j+1)*r])
	}
	kc := make([]int, r)
	ist := strides(w.in)
	for kk := 0; kk < kn; kk++ {
		unravel(kk, w.k, kc)
		for j := 0; j < npos; j++ {
			off := w.offset(oc[j*r:(j+1)*r], kc, w.in, ist)
			for ci := 0; ci < ch; ci++ {
				v := 0.0
				if off >= 0 {
					v = x[ci*insz+off]
				}
				col[(ci*kn+kk)*npos+j] = v
			}
		}
	}
}

// convCore computes a grouped convolution in float64: x [N,C,spatial...],
// wt [M, C/g, k...], bias [M] or nil.
func (c *Ctx) convCore(x []float64, xs []int, wt []float64, ws []int, bias []float64, group int) ([]float64, []int, error) {
	if len(xs) < 3 || len(ws) != len(xs) {
		return nil, nil, c.Errorf("input %v and weight %v ranks do not fit", xs, ws)
	}
	n, ch := xs[0], xs[1]
	m := ws[0]
	if group <= 0 || ch%group != 0 || m%group != 0 || ws[1] != ch/group {
		return nil, nil, c.Errorf("weight %v does not fit input %v with group %d", ws, xs, group)
	}
	kernel := ws[2:]
	if ks, ok := c.Ints("kernel_shape"); ok && len(ks) == len(kernel) {
		for i := range ks {
			if int(ks[i]) != kernel[i] {
				return nil, nil, c.Errorf("kernel_shape %v differs from weight %v", ks, ws)
			}
		}
	}
	w, err := windowGeometry(c, xs[2:], kernel, false)
	if err != nil {
		return nil, nil, err
	}
	outShape := append([]int{n, m}, w.out...)
	if err := c.check(ir.Float64, outShape); err != nil {
		return nil, nil, err
	}
	out := make([]float64, numel(outShape))
	cg, mg := ch/group, m/group
	kn := numel(kernel)
	K := cg * kn
	P := numel(w.out)
	insz := numel(w.in)
	chunk := P
	if K > 0 && K*chunk > 1<<22 {
		chunk = max(1, (1<<22)/K)
	}
	col := make([]float64, K*chunk)
	for b := 0; b < n; b++ {
		for g := 0; g < group; g++ {
			xg := x[(b*ch+g*cg)*insz : (b*ch+(g+1)*cg)*insz]
			wg := wt[g*mg*K : (g+1)*mg*K]
			og := out[(b*m+g*mg)*P:]
			for p0 := 0; p0 < P; p0 += chunk {
				p1 := min(P, p0+chunk)
				np := p1 - p0
				im2col(xg, cg, w, p0, p1, col[:K*np])
				if mg > 0 && np > 0 && K > 0 {
					gemm64strided(mg, np, K, wg, col[:K*np], og[p0:], P)
				}
			}
		}
	}
	if bias != nil {
		for b := 0; b < n; b++ {
			for o := 0; o < m; o++ {
				base := (b*m + o) * P
				for p := 0; p < P; p++ {
					out[base+p] += bias[o]
				}
			}
		}
	}
	return out, outShape, nil
}

// gemm64strided computes C[m x n] (row stride ldc) = A[m x k] * B[k x n].
func gemm64strided(m, n, k int, a, b, cm []float64, ldc int) {
	dst := cm[:(m-1)*ldc+n]
	tmp := make([]float64, m*n)
	gemm(false, false, m, n, k, 1, a, b, 0, tmp)
	for i := 0; i < m; i++ {
		copy(dst[i*ldc:i*ldc+n], tmp[i*n:(i+1)*n])
	}
}

func kernelConv(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, wt := in[0], in[1]
	if x.DType != wt.DType {
		return nil, c.Errorf("X is %s, W is %s", x.DType, wt.DType)
	}
	var bias []float64
	if len(in) > 2 && in[2] != nil {
		if in[2].Len() != wt.Shape[0] {
			return nil, c.Errorf("bias %s does not match %d output channels", in[2], wt.Shape[0])
		}
		bias = in[2].f64()
	}
	vals, shape, err := c.convCore(x.f64(), x.Shape, wt.f64(), wt.Shape, bias, int(c.Int("group", 1)))
	if err != nil {
		return nil, err
	}
	return []*Tensor{fromFloat64s(x.DType, shape, vals)}, nil
}

func kernelConvInteger(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, wt := in[0], in[1]
	xz := optIn(in, 2)
	wz := optIn(in, 3)
	xf, err := dequantizeAxis(c, x, &Tensor{DType: ir.Float64, Shape: []int{}, D: []float64{1}}, xz, -1, 0)
	if err != nil {
		return nil, err
	}
	wf, err := dequantize(c, wt, &Tensor{DType: ir.Float64, Shape: []int{}, D: []float64{1}}, wz, 0)
	if err != nil {
		return nil, err
	}
	if xz != nil && xz.Len() == 1 && c.Str("auto_pad", "NOTSET") == "NOTSET" {
		// Padding takes the zero point, which is 0 after subtraction.
	}
	vals, shape, err := c.convCore(xf, x.Shape, wf, wt.Shape, nil, int(c.Int("group", 1)))
	if err != nil {
		return nil, err
	}
	out, err := c.alloc(ir.Int32, shape)
	if err != nil {
		return nil, err
	}
	for i, v := range vals {
		out.I[i] = int64(math.Round(v))
	}
	return []*Tensor{out}, nil
}

// kernelQLinearConv accumulates (x - x_zp) * (w - w_zp) exactly, adds the
// int32 bias, and requantizes with the scale x_scale*w_scale/y_scale in
// float32, as ONNX Runtime does.
func kernelQLinearConv(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	var t [8]*Tensor
	for i := range t {
		x, err := need(in, i, "QLinearConv input")
		if err != nil {
			return nil, err
		}
		t[i] = x
	}
	x, xs, xz, w, ws, wz, ys, yz := t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]
	one := &Tensor{DType: ir.Float64, Shape: []int{}, D: []float64{1}}
	xf, err := dequantize(c, x, one, xz, 1)
	if err != nil {
		return nil, err
	}
	wf, err := dequantize(c, w, one, wz, 0)
	if err != nil {
		return nil, err
	}
	m := w.Shape[0]
	var bias []float64
	if len(in) > 8 && in[8] != nil {
		if in[8].Len() != m {
			return nil, c.Errorf("bias %s does not match %d output channels", in[8], m)
		}
		bias = in[8].f64()
	}
	acc, shape, err := c.convCore(xf, x.Shape, wf, w.Shape, bias, int(c.Int("group", 1)))
	if err != nil {
		return nil, err
	}
	xsf, wsf, ysf := xs.f64(), ws.f64(), ys.f64()
	if len(xsf) != 1 || len(ysf) != 1 || (len(wsf) != 1 && len(wsf) != m) {
		return nil, c.Errorf("scales must be per tensor (w_scale may be per output channel)")
	}
	out, err := c.alloc(yz.DType, shape)
	if err != nil {
		return nil, err
	}
	if out.cls() != clsI {
		return nil, c.Errorf("y_zero_point must be an integer type")
	}
	lo, hi := intRange(yz.DType)
	zp := yz.f64()[0]
	sp := numel(shape[2:])
	for i, v := range acc {
		ch := (i / sp) % m
		ws1 := wsf[0]
		if len(wsf) == m {
			ws1 = wsf[ch]
		}
		scale := float32(xsf[0]) * float32(ws1) / float32(ysf[0])
		q := math.RoundToEven(float64(float32(v)*scale)) + zp
		out.I[i] = int64(math.Max(lo, math.Min(hi, q)))
	}
	return []*Tensor{out}, nil
}

func kernelConvTranspose(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x, wt := in[0], in[1]
	if x.Rank() < 3 || wt.Rank() != x.Rank() {
		return nil, c.Errorf("X %s and W %s do not fit", x, wt)
	}
	group := int(c.Int("group", 1))
	n, ch := x.Shape[0], x.Shape[1]
	if group <= 0 || ch%group != 0 || wt.Shape[0] != ch {
		return nil, c.Errorf("W %s does not fit X %s with group %d", wt, x, group)
	}
	mg := wt.Shape[1]
	m := mg * group
	r := x.Rank() - 2
	kernel := wt.Shape[2:]
	w, err := convTransposeGeometry(c, x.Shape[2:], kernel)
	if err != nil {
		return nil, err
	}
	outSp := w.out
	outShape := append([]int{n, m}, outSp...)
	out, err := c.alloc(x.DType, outShape)
	if err != nil {
		return nil, err
	}
	xf, wf := x.f64(), wt.f64()
	res := make([]float64, out.Len())
	inSp := x.Shape[2:]
	P := numel(inSp)
	kn := numel(kernel)
	K := mg * kn
	O := numel(outSp)
	ost := strides(outSp)
	cg := ch / group
	// For each image and group: col[K x P] = W_g^T [K x cg] * X_g [cg x P], then col2im.
	col := make([]float64, K*P)
	wT := make([]float64, K*cg)
	ic := make([]int, r)
	kc := make([]int, r)
	for g := 0; g < group; g++ {
		for ci := 0; ci < cg; ci++ {
			for k := 0; k < K; k++ {
				wT[k*cg+ci] = wf[(g*cg+ci)*K+k]
			}
		}
		for b := 0; b < n; b++ {
			xg := xf[(b*ch+g*cg)*P : (b*ch+(g+1)*cg)*P]
			if K > 0 && P > 0 && cg > 0 {
				gemm(false, false, K, P, cg, 1, wT, xg, 0, col)
			}
			for k := 0; k < K; k++ {
				co := k / kn
				unravel(k%kn, kernel, kc)
				base := (b*m + g*mg + co) * O
				for p := 0; p < P; p++ {
					unravel(p, inSp, ic)
					if off := w.offset(ic, kc, outSp, ost); off >= 0 {
						res[base+off] += col[k*P+p]
					}
				}
			}
		}
	}
	if len(in) > 2 && in[2] != nil {
		bias := in[2].f64()
		if len(bias) != m {
			return nil, c.Errorf("bias %s does not match %d output channels", in[2], m)
		}
		for b := 0; b < n; b++ {
			for o := 0; o < m; o++ {
				for p := 0; p < O; p++ {
					res[(b*m+o)*O+p] += bias[o]
				}
			}
		}
	}
	for i, v := range res {
		out.setF(i, v)
	}
	return []*Tensor{out}, nil
}

func poolKernel(kind string) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		if x.Rank() < 3 {
			return nil, c.Errorf("X must have rank >= 3, got %s", x)
		}
		if kind != "max" || x.cls() != clsI {
			if err := requireFloat(x, "X"); err != nil {
				return nil, err
			}
		}
		ks, ok := c.Ints("kernel_shape")
		if !ok || len(ks) != x.Rank()-2 {
			return nil, c.Errorf("kernel_shape %v does not fit %s", ks, x)
		}
		w, err := windowGeometry(c, x.Shape[2:], toInts(ks), c.Int("ceil_mode", 0) != 0)
		if err != nil {
			return nil, err
		}
		n, ch := x.Shape[0], x.Shape[1]
		outShape := append([]int{n, ch}, w.out...)
		out, err := c.alloc(x.DType, outShape)
		if err != nil {
			return nil, err
		}
		var ind *Tensor
		if kind == "max" && len(c.Node.Outputs) > 1 && c.Node.Outputs[1] != nil {
			if ind, err = c.alloc(ir.Int64, outShape); err != nil {
				return nil, err
			}
		}
		xf := x.f64()
		r := len(w.in)
		P := numel(w.out)
		insz := numel(w.in)
		ist := strides(w.in)
		kn := numel(w.k)
		countPad := c.Int("count_include_pad", 0) != 0
		p := float64(c.Int("p", 2))
		colMajor := c.Int("storage_order", 0) != 0
		oc, kc := make([]int, r), make([]int, r)
		res := make([]float64, out.Len())
		for img := 0; img < n*ch; img++ {
			xi := xf[img*insz : (img+1)*insz]
			for o := 0; o < P; o++ {
				unravel(o, w.out, oc)
				acc := 0.0
				best := math.Inf(-1)
				bestIdx := -1
				cnt, cntPad := 0, 0
				for kk := 0; kk < kn; kk++ {
					unravel(kk, w.k, kc)
					off := 0
					inPad := true
					for d := 0; d < r; d++ {
						icd := oc[d]*w.stride[d] - w.padB[d] + kc[d]*w.dil[d]
						if icd < -w.padB[d] || icd >= w.in[d]+w.padE[d] {
							inPad = false
						}
						if icd < 0 || icd >= w.in[d] {
							off = -1
						} else if off >= 0 {
							off += icd * ist[d]
						}
					}
					if inPad {
						cntPad++
					}
					if off < 0 {
						continue
					}
					v := xi[off]
					cnt++
					switch kind {
					case "max":
						if v > best || bestIdx < 0 || math.IsNaN(v) && !math.IsNaN(best) {
							best, bestIdx = v, off
						}
					case "avg":
						acc += v
					case "lp":
						acc += math.Pow(math.Abs(v), p)
					}
				}
				var v float64
				switch kind {
				case "max":
					v = best
					if ind != nil {
						idx := bestIdx
						if colMajor && bestIdx >= 0 {
							// Column-major index within the image.
							idx = 0
							rem := bestIdx
							mul := 1
							coords := make([]int, r)
							for d := r - 1; d >= 0; d-- {
								coords[d] = rem % w.in[d]
								rem /= w.in[d]
							}
							for d := 0; d < r; d++ {
								idx += coords[d] * mul
								mul *= w.in[d]
							}
						}
						ind.I[img*P+o] = int64(img*insz + idx)
					}
				case "avg":
					div := cnt
					if countPad {
						div = cntPad
					}
					v = acc / float64(div)
				case "lp":
					v = math.Pow(acc, 1/p)
				}
				res[img*P+o] = v
			}
		}
		if out.cls() == clsI {
			for i, v := range res {
				out.I[i] = int64(v)
			}
		} else {
			for i, v := range res {
				out.setF(i, v)
			}
		}
		return []*Tensor{out, ind}, nil
	}
}

func globalPool(kind string) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		if x.Rank() < 2 {
			return nil, c.Errorf("X must have rank >= 2")
		}
		shape := append([]int{}, x.Shape...)
		for i := 2; i < len(shape); i++ {
			shape[i] = 1
		}
		out, err := c.alloc(x.DType, shape)
		if err != nil {
			return nil, err
		}
		sp := numel(x.Shape[2:])
		f := x.f64()
		p := float64(c.Int("p", 2))
		for i := 0; i < x.Shape[0]*x.Shape[1]; i++ {
			acc := 0.0
			if kind == "max" {
				acc = math.Inf(-1)
			}
			for j := 0; j < sp; j++ {
				v := f[i*sp+j]
				switch kind {
				case "avg":
					acc += v
				case "max":
					acc = math.Max(acc, v)
				case "lp":
					acc += math.Pow(math.Abs(v), p)
				}
			}
			switch kind {
			case "avg":
				acc /= float64(sp)
			case "lp":
				acc = math.Pow(acc, 1/p)
			}
			out.setF(i, acc)
		}
		return []*Tensor{out}, nil
	}
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
