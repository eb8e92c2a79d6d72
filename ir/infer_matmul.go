package ir

// This file implements inference for matrix products: MatMul (numpy
// semantics: 1-D promotion and batch broadcasting), Gemm, the integer and
// quantized variants, onnxruntime's fused forms, and Einsum.

import (
	"sort"
	"strings"
)

// cxMatMulShape returns numpy matmul's result shape for a @ b.
func cxMatMulShape(a, b Shape) (Shape, error) {
	if !a.Known || !b.Known {
		return UnknownShape(), nil
	}
	if len(a.Dims) == 0 || len(b.Dims) == 0 {
		return UnknownShape(), errorf(CodeRank, "matmul of a scalar (%s x %s)", a, b)
	}
	ad, bd := a.Dims, b.Dims
	dropM, dropN := false, false
	if len(ad) == 1 {
		ad = []Dim{D(1), ad[0]}
		dropM = true
	}
	if len(bd) == 1 {
		bd = []Dim{bd[0], D(1)}
		dropN = true
	}
	k1, k2 := ad[len(ad)-1], bd[len(bd)-2]
	if k1.IsConcrete() && k2.IsConcrete() && k1.Val != k2.Val {
		return UnknownShape(), errorf(CodeDims, "matmul inner dims differ: %s x %s", a, b)
	}
	batch, err := BroadcastShapes(DimsShape(ad[:len(ad)-2]...), DimsShape(bd[:len(bd)-2]...))
	if err != nil {
		return UnknownShape(), err
	}
	out := batch.Dims
	if !dropM {
		out = append(out, ad[len(ad)-2])
	}
	if !dropN {
		out = append(out, bd[len(bd)-1])
	}
	return Shape{Known: true, Dims: out}, nil
}

// cxMatMul returns an InferFunc for a matmul of inputs ai and bi whose
// output dtype is fixed (or, when Undefined, that of input dti).
func cxMatMul(ai, bi int, dt DType, dti int) InferFunc {
	return func(c *InferContext) error {
		s, err := cxMatMulShape(c.InShape(ai), c.InShape(bi))
		if err != nil {
			return err
		}
		odt := dt
		if odt == Undefined {
			odt = c.InDType(dti)
		}
		c.SetTensor(0, odt, s)
		return nil
	}
}

// cxTranspose2 swaps the last two dims of s when t is set.
func cxTranspose2(s Shape, t bool) Shape {
	if !t || !s.Known || len(s.Dims) < 2 {
		return s
	}
	s = s.Clone()
	n := len(s.Dims)
	s.Dims[n-1], s.Dims[n-2] = s.Dims[n-2], s.Dims[n-1]
	return s
}

// cxGemmShape is [M, N] for op(A) [M, K] x op(B) [K, N].
func cxGemmShape(a, b Shape, ta, tb bool) (Shape, error) {
	out := RankShape(2)
	if a.Known {
		if len(a.Dims) != 2 {
			return UnknownShape(), errorf(CodeRank, "Gemm: A has rank %d, want 2", len(a.Dims))
		}
		out.Dims[0] = cxTranspose2(a, ta).Dims[0]
	}
	if b.Known {
		if len(b.Dims) != 2 {
			return UnknownShape(), errorf(CodeRank, "Gemm: B has rank %d, want 2", len(b.Dims))
		}
		out.Dims[1] = cxTranspose2(b, tb).Dims[1]
	}
	if a.Known && b.Known {
		k1, k2 := cxTranspose2(a, ta).Dims[1], cxTranspose2(b, tb).Dims[0]
		if k1.IsConcrete() && k2.IsConcrete() && k1.Val != k2.Val {
			return UnknownShape(), errorf(CodeDims, "Gemm: inner dims differ: %s x %s", a, b)
		}
	}
	return out, nil
}

// Gemm(A, B[, C]) transA transB.
func inferGemm(c *InferContext) error {
	s, err := cxGemmShape(c.InShape(0), c.InShape(1), c.AttrInt("transA", 0) != 0, c.AttrInt("transB", 0) != 0)
	if err != nil {
		return err
	}
	c.SetTensor(0, c.InDType(0), s)
	return nil
}

// QGemm(A, a_scale, a_zp, B, b_scale, b_zp[, C, y_scale, y_zp])
// (com.microsoft): y_zp's dtype when quantized output, else float32.
func inferQGemm(c *InferContext) error {
	s, err := cxGemmShape(c.InShape(0), c.InShape(3), c.AttrInt("transA", 0) != 0, c.AttrInt("transB", 0) != 0)
	if err != nil {
		return err
	}
	dt := Float32
	if c.HasInput(8) {
		dt = c.InDType(8)
	}
	c.SetTensor(0, dt, s)
	return nil
}

// FusedMatMul(A, B) transA transB transBatchA transBatchB alpha
// (com.microsoft).
func inferFusedMatMul(c *InferContext) error {
	if c.AttrInt("transBatchA", 0) != 0 || c.AttrInt("transBatchB", 0) != 0 {
		c.SetTensor(0, c.InDType(0), UnknownShape())
		return nil
	}
	a, b := c.InShape(0), c.InShape(1)
	s, err := cxMatMulShape(cxTranspose2(a, c.AttrInt("transA", 0) != 0), cxTranspose2(b, c.AttrInt("transB", 0) != 0))
	if err != nil {
		return err
	}
	c.SetTensor(0, c.InDType(0), s)
	return nil
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): y_zp's
// dtype.
func inferQLinearMatMul(c *InferContext) error {
	s, err := cxMatMulShape(c.InShape(0), c.InShape(3))
	if err != nil {
		return err
	}
	c.SetTensor(0, cxFirstDType(c, 7, 0), s)
	return nil
}

// MatMulNBits(A, B, scales[, zero_points, g_idx, bias]) K N bits
// block_size (com.microsoft): A[..., K] -> [..., N].
func inferMatMulNBits(c *InferContext) error {
	a := c.InShape(0)
	dt := c.InDType(0)
	n := c.AttrInt("N", -1)
	if !a.Known || len(a.Dims) == 0 {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	out := a.Clone()
	out.Dims[len(out.Dims)-1] = Unknown()
	if n >= 0 {
		out.Dims[len(out.Dims)-1] = D(n)
	}
	c.SetTensor(0, dt, out)
	return nil
}

// FC(X, W, B) axis=1 axis_w=1 (ai.onnx experimental, opset 1): Y =
// flatten(X) * flatten(W)^T + B with shape X[:axis] + [prod(W[:axis_w])].
func inferFC(c *InferContext) error {
	x, w := c.InShape(0), c.InShape(1)
	dt := c.InDType(0)
	axis, axisW := c.AttrInt("axis", 1), c.AttrInt("axis_w", 1)
	if !x.Known || axis < 0 || axis > int64(len(x.Dims)) {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	n := Unknown()
	if w.Known && axisW >= 0 && axisW <= int64(len(w.Dims)) {
		n = D(1)
		for _, d := range w.Dims[:axisW] {
			n = DimMul(n, d)
		}
	}
	out := append(append([]Dim{}, x.Dims[:axis]...), n)
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// cxEinsumTerm is one operand's labels; ell is the index of "..." within
// labels (-1 when absent).
type cxEinsumTerm struct {
	labels []byte
	ell    int
}

func cxParseEinsumTerm(s string) (cxEinsumTerm, error) {
	t := cxEinsumTerm{ell: -1}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ':
		case ch == '.':
			if t.ell >= 0 || !strings.HasPrefix(s[i:], "...") {
				return t, errorf(CodeAttr, "bad ellipsis in %q", s)
			}
			t.ell = len(t.labels)
			i += 2
		case (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'):
			t.labels = append(t.labels, ch)
		default:
			return t, errorf(CodeAttr, "bad character %q in %q", ch, s)
		}
	}
	return t, nil
}

// Einsum(Inputs...) equation.
func inferEinsum(c *InferContext) error {
	dt := c.InDType(0)
	eq := c.AttrString("equation", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	parts := strings.Split(lhs, ",")
	if len(parts) != c.NumInputs() {
		return errorf(CodeArity, "Einsum: equation %q has %d operands, node has %d inputs", eq, len(parts), c.NumInputs())
	}
	dims := map[byte]Dim{}
	count := map[byte]int{}
	var ell Shape = Shape{Known: true}
	known := true
	for i, p := range parts {
		t, err := cxParseEinsumTerm(p)
		if err != nil {
			return wrapf(err, "Einsum")
		}
		for _, l := range t.labels {
			count[l]++
		}
		s := c.InShape(i)
		if !s.Known {
			// Its labels' sizes may come from other operands; only an
			// ellipsis of unknown rank makes the result's rank unknown.
			if t.ell >= 0 {
				known = false
			}
			continue
		}
		ne := len(s.Dims) - len(t.labels)
		if ne < 0 || (t.ell < 0 && ne != 0) {
			return errorf(CodeRank, "Einsum: operand %d has rank %d, term %q", i, len(s.Dims), p)
		}
		var ed []Dim
		for j, l := range t.labels {
			k := j
			if t.ell >= 0 && j >= t.ell {
				k = j + ne
			}
			d := s.Dims[k]
			if prev, ok := dims[l]; ok {
				switch {
				case prev.IsConcrete() && prev.Val == 1:
					dims[l] = d
				case d.IsConcrete() && d.Val == 1, prev.Equal(d):
				case prev.IsConcrete() && d.IsConcrete():
					return errorf(CodeDims, "Einsum: label %c is %d and %d", l, prev.Val, d.Val)
				case d.IsConcrete():
					dims[l] = d
				case !prev.IsConcrete():
					dims[l] = Unknown()
				}
			} else {
				dims[l] = d
			}
		}
		if t.ell >= 0 {
			ed = s.Dims[t.ell : t.ell+ne]
			b, err := BroadcastShapes(ell, DimsShape(ed...))
			if err != nil {
				return wrapf(err, "Einsum")
			}
			ell = b
		}
	}
	var outT cxEinsumTerm
	if explicit {
		t, err := cxParseEinsumTerm(rhs)
		if err != nil {
			return wrapf(err, "Einsum")
		}
		outT = t
	} else {
		var ls []byte
		for l, n := range count {
			if n == 1 {
				ls = append(ls, l)
			}
		}
		sort.Slice(ls, func(i, j int) bool { return ls[i] < ls[j] })
		outT = cxEinsumTerm{labels: ls, ell: 0}
	}
	for _, l := range outT.labels {
		if _, ok := count[l]; !ok {
			return errorf(CodeAttr, "Einsum: output label %c not in any input", l)
		}
	}
	if !known && outT.ell >= 0 {
		c.SetTensor(0, dt, UnknownShape())
		return nil
	}
	var out []Dim
	for j, l := range outT.labels {
		if j == outT.ell {
			out = append(out, ell.Dims...)
		}
		d, ok := dims[l]
		if !ok {
			d = Unknown()
		}
		out = append(out, d)
	}
	if outT.ell >= 0 && outT.ell == len(outT.labels) {
		out = append(out, ell.Dims...)
	}
	c.SetTensor(0, dt, DimsShape(out...))
	return nil
}

// CDist(A [M, K], B [N, K]) metric (com.microsoft) -> [M, N].
func inferCDist(c *InferContext) error {
	a, b := c.InShape(0), c.InShape(1)
	c.SetTensor(0, c.InDType(0), DimsShape(cxDim2(a, 0), cxDim2(b, 0)))
	return nil
}

// cxDim2 is dim i of a rank-2 shape, unknown otherwise.
func cxDim2(s Shape, i int) Dim {
	if s.Known && len(s.Dims) == 2 {
		return s.Dims[i]
	}
	return Unknown()
}

func registerInferMatmul() {
	cxRegister(
		OpDef{Name: "MatMul", Infer: cxMatMul(0, 1, Undefined, 0)},
		OpDef{Name: "MatMulInteger", Infer: cxMatMul(0, 1, Int32, 0)},
		OpDef{Name: "QLinearMatMul", Infer: inferQLinearMatMul},
		OpDef{Name: "Gemm", Infer: inferGemm},
		OpDef{Name: "Einsum", Infer: inferEinsum},
		OpDef{Name: "FC", Infer: inferFC},

		OpDef{Domain: msDomain, Name: "GemmFastGelu", Infer: cxMatMul(0, 1, Undefined, 0)},
		OpDef{Domain: msDomain, Name: "TransposeMatMul", Infer: inferFusedMatMul},
		OpDef{Domain: msDomain, Name: "CDist", Infer: inferCDist},
		OpDef{Domain: msDomain, Name: "FusedMatMul", Infer: inferFusedMatMul},
		OpDef{Domain: msDomain, Name: "FusedGemm", Infer: inferGemm},
		OpDef{Domain: msDomain, Name: "QGemm", Infer: inferQGemm},
		OpDef{Domain: msDomain, Name: "MatMulBnb4", Infer: inferMatMulNBits},
		OpDef{Domain: msDomain, Name: "MatMulNBits", Infer: inferMatMulNBits},
		OpDef{Domain: msDomain, Name: "MatMulIntegerToFloat", Infer: cxMatMul(0, 1, Undefined, 2)},
		OpDef{Domain: msDomain, Name: "DynamicQuantizeMatMul", Infer: cxMatMul(0, 1, Undefined, 0)},
		OpDef{Domain: msDomain, Name: "MatMulInteger16", Infer: cxMatMul(0, 1, Int32, 0)},
	)
}
