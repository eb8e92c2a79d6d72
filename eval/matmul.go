package eval

// This file implements MatMul, Gemm, MatMulInteger, QLinearMatMul and
// Einsum. Float matrix products go through gonum's BLAS.

import (
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/wolong-dev/wolong/ir"
)

func registerMatmul() {
	register(kernelMatMul, "MatMul")
	register(kernelGemm, "Gemm")
	register(kernelMatMulInteger, "MatMulInteger")
	register(kernelQLinearMatMul, "QLinearMatMul")
	register(kernelEinsum, "Einsum")
}

// gemm computes C = alpha*op(A)*op(B) + beta*C for row-major float32 or
// float64 data (op transposes when tA or tB), through gonum's BLAS of
// that precision.
func gemm[T float32 | float64](tA, tB bool, m, n, k int, alpha T, a, b []T, beta T, cm []T) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		for i := range cm[:m*n] {
			cm[i] *= beta
		}
		return
	}
	ta, tb, lda, ldb := blas.NoTrans, blas.NoTrans, k, n
	if tA {
		ta, lda = blas.Trans, m
	}
	if tB {
		tb, ldb = blas.Trans, k
	}
	switch c := any(cm).(type) {
	case []float32:
		blas32.Implementation().Sgemm(ta, tb, m, n, k, float32(alpha), any(a).([]float32), lda, any(b).([]float32), ldb, float32(beta), c, n)
	case []float64:
		blas64.Implementation().Dgemm(ta, tb, m, n, k, float64(alpha), any(a).([]float64), lda, any(b).([]float64), ldb, float64(beta), c, n)
	}
}

// matmulShapes computes numpy matmul broadcasting: the output shape, the
// batch index maps and the m, k, n sizes.
func matmulShapes(as, bs []int) (out []int, batch []int, ia, ib []int, m, k, n int, err error) {
	if len(as) == 0 || len(bs) == 0 {
		return nil, nil, nil, nil, 0, 0, 0, errf("matmul of a scalar")
	}
	a, b := as, bs
	if len(a) == 1 {
		a = []int{1, a[0]}
	}
	if len(b) == 1 {
		b = []int{b[0], 1}
	}
	m, k = a[len(a)-2], a[len(a)-1]
	if b[len(b)-2] != k {
		return nil, nil, nil, nil, 0, 0, 0, errf("matmul of %v and %v: inner dims differ", as, bs)
	}
	n = b[len(b)-1]
	batch, err = broadcastShapes(a[:len(a)-2], b[:len(b)-2])
	if err != nil {
		return
	}
	ia = bcastIndex(batch, a[:len(a)-2])
	ib = bcastIndex(batch, b[:len(b)-2])
	out = append([]int{}, batch...)
	if len(as) > 1 {
		out = append(out, m)
	}
	if len(bs) > 1 {
		out = append(out, n)
	}
	return out, batch, ia, ib, m, k, n, nil
}

// matmul multiplies two tensors of the same float or integer type with
// numpy semantics.
func (c *Ctx) matmul(a, b *Tensor, outType ir.DType) (*Tensor, error) {
	shape, batch, ia, ib, m, k, n, err := matmulShapes(a.Shape, b.Shape)
	if err != nil {
		return nil, err
	}
	out, err := c.alloc(outType, shape)
	if err != nil {
		return nil, err
	}
	nb := numel(batch)
	switch {
	case a.cls() == clsF && b.cls() == clsF && out.cls() == clsF:
		for t := 0; t < nb; t++ {
			pa, pb := at(ia, t), at(ib, t)
			gemm(false, false, m, n, k, 1, a.F[pa*m*k:(pa+1)*m*k], b.F[pb*k*n:(pb+1)*k*n], 0, out.F[t*m*n:(t+1)*m*n])
		}
	case a.cls() == clsD && b.cls() == clsD:
		for t := 0; t < nb; t++ {
			pa, pb := at(ia, t), at(ib, t)
			gemm(false, false, m, n, k, 1, a.D[pa*m*k:(pa+1)*m*k], b.D[pb*k*n:(pb+1)*k*n], 0, out.D[t*m*n:(t+1)*m*n])
		}
	case a.cls() == clsI && b.cls() == clsI && out.cls() == clsI:
		for t := 0; t < nb; t++ {
			pa, pb := at(ia, t)*m*k, at(ib, t)*k*n
			o := out.I[t*m*n:]
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					var s int64
					for p := 0; p < k; p++ {
						s += a.I[pa+i*k+p] * b.I[pb+p*n+j]
					}
					o[i*n+j] = s
				}
			}
		}
	default:
		return nil, c.Errorf("cannot multiply %s by %s", a, b)
	}
	return out, nil
}

func kernelMatMul(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	a, b := in[0], in[1]
	if a.DType != b.DType {
		return nil, c.Errorf("A is %s, B is %s", a.DType, b.DType)
	}
	out, err := c.matmul(a, b, a.DType)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelGemm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	a, b := in[0], in[1]
	if a.Rank() != 2 || b.Rank() != 2 {
		return nil, c.Errorf("A and B must be 2-D, got %s and %s", a, b)
	}
	if a.DType != b.DType {
		return nil, c.Errorf("A is %s, B is %s", a.DType, b.DType)
	}
	tA, tB := c.Int("transA", 0) != 0, c.Int("transB", 0) != 0
	alpha, beta := float64(c.Float("alpha", 1)), float64(c.Float("beta", 1))
	m, k := a.Shape[0], a.Shape[1]
	if tA {
		m, k = k, m
	}
	k2, n := b.Shape[0], b.Shape[1]
	if tB {
		k2, n = n, k2
	}
	if k != k2 {
		return nil, c.Errorf("inner dims differ: %s and %s", a, b)
	}
	out, err := c.alloc(a.DType, []int{m, n})
	if err != nil {
		return nil, err
	}
	if len(in) > 2 && in[2] != nil && beta != 0 {
		cb, err := c.broadcastTo(in[2], []int{m, n})
		if err != nil {
			return nil, err
		}
		if cb.DType != a.DType {
			return nil, c.Errorf("C is %s, A is %s", cb.DType, a.DType)
		}
		copyData(out, cb)
	} else {
		beta = 0
	}
	switch a.cls() {
	case clsF:
		gemm(tA, tB, m, n, k, float32(alpha), a.F, b.F, float32(beta), out.F)
	case clsD:
		gemm(tA, tB, m, n, k, alpha, a.D, b.D, beta, out.D)
	case clsI:
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s int64
				for p := 0; p < k; p++ {
					ai := i*k + p
					if tA {
						ai = p*m + i
					}
					bi := p*n + j
					if tB {
						bi = j*k + p
					}
					s += a.I[ai] * b.I[bi]
				}
				out.I[i*n+j] = int64(alpha)*s + int64(beta)*out.I[i*n+j]
			}
		}
	default:
		return nil, c.Errorf("A must be numeric, got %s", a)
	}
	return []*Tensor{out}, nil
}

// subZeroPoint returns x - zp as int64 (zp broadcast per row or column
// when given as a vector along axis of x; scalar otherwise).
func subZeroPoint(x *Tensor, zp *Tensor, axis int) ([]int64, error) {
	out := make([]int64, x.Len())
	copy(out, x.I)
	if zp == nil {
		return out, nil
	}
	if zp.cls() != clsI {
		return nil, errf("zero point must be an integer tensor")
	}
	if zp.Len() == 1 {
		for i := range out {
			out[i] -= zp.I[0]
		}
		return out, nil
	}
	if axis < 0 || axis >= x.Rank() || zp.Len() != x.Shape[axis] {
		if len(zp.Shape) > x.Rank() {
			return nil, errf("zero point %v does not fit %v", zp.Shape, x.Shape)
		}
		for k, d := range zp.Shape { // aligned right: 1 or x's dim
			if xd := x.Shape[x.Rank()-len(zp.Shape)+k]; d != 1 && d != xd {
				return nil, errf("zero point %v does not fit %v", zp.Shape, x.Shape)
			}
		}
		idx := bcastIndex(x.Shape, zp.Shape)
		for i := range out {
			out[i] -= zp.I[at(idx, i)]
		}
		return out, nil
	}
	inner := numel(x.Shape[axis+1:])
	n := x.Shape[axis]
	for i := range out {
		out[i] -= zp.I[(i/inner)%n]
	}
	return out, nil
}

func kernelMatMulInteger(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	a, b := in[0], in[1]
	if a.cls() != clsI || b.cls() != clsI {
		return nil, c.Errorf("A and B must be integer tensors")
	}
	za := optIn(in, 2)
	zb := optIn(in, 3)
	ai, err := subZeroPoint(a, za, a.Rank()-2)
	if err != nil {
		return nil, err
	}
	bi, err := subZeroPoint(b, zb, b.Rank()-1)
	if err != nil {
		return nil, err
	}
	out, err := c.matmul(&Tensor{DType: ir.Int64, Shape: a.Shape, I: ai}, &Tensor{DType: ir.Int64, Shape: b.Shape, I: bi}, ir.Int32)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelQLinearMatMul(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	var t [8]*Tensor
	for i := range t {
		x, err := need(in, i, "QLinearMatMul input")
		if err != nil {
			return nil, err
		}
		t[i] = x
	}
	a, as, az, b, bs, bz, ys, yz := t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]
	af, err := dequantize(c, a, as, az, a.Rank()-2)
	if err != nil {
		return nil, err
	}
	bf, err := dequantize(c, b, bs, bz, b.Rank()-1)
	if err != nil {
		return nil, err
	}
	prod, err := c.matmul(&Tensor{DType: ir.Float64, Shape: a.Shape, D: af}, &Tensor{DType: ir.Float64, Shape: b.Shape, D: bf}, ir.Float64)
	if err != nil {
		return nil, err
	}
	out, err := quantize(c, prod.D, prod.Shape, ys, yz, yz.DType, -1, true)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kernelEinsum(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	eq := strings.ReplaceAll(c.Str("equation", ""), " ", "")
	var ops []*Tensor
	for _, t := range in {
		if t != nil {
			ops = append(ops, t)
		}
	}
	if len(ops) == 0 {
		return nil, c.Errorf("no inputs")
	}
	lhs, rhs, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(ops) {
		return nil, c.Errorf("equation %q has %d operands, got %d", eq, len(terms), len(ops))
	}
	// Expand ellipses into upper-case letters (the equation uses lower case).
	ellRank := 0
	for i, t := range terms {
		if strings.Contains(t, "...") {
			r := ops[i].Rank() - (len(t) - 3)
			if r < 0 {
				return nil, c.Errorf("operand %d rank too small for %q", i, t)
			}
			ellRank = max(ellRank, r)
		}
	}
	ell := ""
	for i := 0; i < ellRank; i++ {
		ell += string(rune('A' + i))
	}
	for i, t := range terms {
		if strings.Contains(t, "...") {
			r := ops[i].Rank() - (len(t) - 3)
			terms[i] = strings.Replace(t, "...", ell[ellRank-r:], 1)
		}
		if len(terms[i]) != ops[i].Rank() {
			return nil, c.Errorf("term %q does not match %s", terms[i], ops[i])
		}
	}
	dims := map[byte]int{}
	for i, t := range terms {
		for j := 0; j < len(t); j++ {
			d := ops[i].Shape[j]
			if old, ok := dims[t[j]]; ok && old != d {
				if old == 1 {
					dims[t[j]] = d
				} else if d != 1 {
					return nil, c.Errorf("dim %c is %d and %d", t[j], old, d)
				}
			} else if !ok {
				dims[t[j]] = d
			}
		}
	}
	if explicit {
		rhs = strings.Replace(rhs, "...", ell, 1)
	} else {
		count := map[byte]int{}
		for _, t := range terms {
			for j := 0; j < len(t); j++ {
				count[t[j]]++
			}
		}
		rhs = ell
		for ch := byte('a'); ch <= 'z'; ch++ {
			if count[ch] == 1 {
				rhs += string(ch)
			}
		}
	}
	var letters []byte
	seen := map[byte]bool{}
	for j := 0; j < len(rhs); j++ {
		if _, ok := dims[rhs[j]]; !ok {
			return nil, c.Errorf("output letter %c not in inputs", rhs[j])
		}
		letters = append(letters, rhs[j])
		seen[rhs[j]] = true
	}
	nOut := len(letters)
	for _, t := range terms {
		for j := 0; j < len(t); j++ {
			if !seen[t[j]] {
				seen[t[j]] = true
				letters = append(letters, t[j])
			}
		}
	}
	pos := map[byte]int{}
	all := make([]int, len(letters))
	for i, l := range letters {
		pos[l] = i
		all[i] = dims[l]
	}
	outShape := all[:nOut]
	dt := ops[0].DType
	out, err := c.alloc(dt, append([]int{}, outShape...))
	if err != nil {
		return nil, err
	}
	if numel(all) > 1<<28 {
		return nil, c.Errorf("einsum iteration space too large")
	}
	// Per operand: stride of each letter (0 for broadcast dims of size 1).
	strs := make([][]int, len(ops))
	vals := make([][]float64, len(ops))
	for i, t := range terms {
		st := strides(ops[i].Shape)
		s := make([]int, len(letters))
		for j := 0; j < len(t); j++ {
			if ops[i].Shape[j] != 1 {
				s[pos[t[j]]] += st[j]
			}
		}
		strs[i] = s
		vals[i] = ops[i].f64()
		if vals[i] == nil {
			return nil, c.Errorf("operand %d must be numeric", i)
		}
	}
	acc := make([]float64, out.Len())
	inner := numel(all[nOut:])
	forEachIndex(all, func(k int, ix []int) {
		p := 1.0
		for i := range ops {
			off := 0
			for d, v := range ix {
				off += v * strs[i][d]
			}
			p *= vals[i][off]
		}
		acc[k/max(inner, 1)] += p
	})
	for i, v := range acc {
		switch out.cls() {
		case clsI:
			out.I[i] = int64(v)
		default:
			out.setF(i, v)
		}
	}
	return []*Tensor{out}, nil
}
