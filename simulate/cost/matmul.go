package cost

// This file implements the cost of matrix products: MatMul (batched,
// broadcast), Gemm, their quantized and contrib variants, and Einsum.
// FLOPs = 2 x batch x M x N x K.

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

func registerMatmul() {
	Register("", matmulCost, "MatMul", "MatMulInteger")
	Register("", qlinearMatmulCost, "QLinearMatMul")
	Register("", gemmCost, "Gemm")
	Register("", einsumCost, "Einsum")
	Register("com.microsoft", matmulCost, "FusedMatMul", "MatMulIntegerToFloat", "DynamicQuantizeMatMul", "MatMulFpQ4")
	Register("com.microsoft", gemmCost, "QGemm", "FusedGemm")
	Register("com.microsoft", matmulNBitsCost, "MatMulNBits")
}

// gemmShape returns batch, M, N, K of A[..., M, K] x B[..., K, N] (numpy
// matmul semantics; 1-D operands are promoted).
func gemmShape(a, b, out []int64) (batch, m, n, k float64, err error) {
	if len(a) == 0 || len(b) == 0 {
		return 0, 0, 0, 0, fmt.Errorf("matmul of a scalar")
	}
	k = float64(a[len(a)-1])
	m = 1
	if len(a) >= 2 {
		m = float64(a[len(a)-2])
	}
	n = 1
	if len(b) >= 2 {
		n = float64(b[len(b)-1])
	}
	// batch = output elements / (M x N)
	batch = prod(out) / (m * n)
	if m*n == 0 {
		batch = 0
	}
	return batch, m, n, k, nil
}

// MatMul(A, B): A[..., M, K] x B[..., K, N].
func matmulCost(c *Ctx) (Cost, error) {
	cost, err := c.gemmOf(0, 1)
	if err == nil && c.Input(1) != nil && c.Input(1).Type.DType.IsInt() {
		err = c.packAtRun(&cost, 1)
	}
	return cost, err
}

// packAtRun adds, on a CPU library, the packing pass of an integer GEMM's
// weights (input i) when they are computed at run time: ONNX Runtime
// packs constant weights once, at session creation, and packs others in
// every call (MLAS reads them and writes the packed copy, with its column
// sums). Measured on ORT 1.30, one thread: a QAttention of 5x1x384 with 6
// heads takes 115 us with its 442 KB of int8 weights a graph input, 70 us
// with them an initializer.
func (c *Ctx) packAtRun(cost *Cost, i int) error {
	w := c.Input(i)
	if !c.cpuLibrary() || w == nil || w.Const != nil || w.Producer.Is(ir.OpConstant) {
		return nil
	}
	b, err := c.Bytes(w)
	if err != nil {
		return err
	}
	cost.Bytes += 2 * b
	cost.StagedBytes += 2 * b
	return nil
}

// gemmOf is the GEMM of inputs ia and ib into output 0.
func (c *Ctx) gemmOf(ia, ib int) (Cost, error) {
	a, err := c.InDims(ia)
	if err != nil {
		return Cost{}, err
	}
	b, err := c.InDims(ib)
	if err != nil {
		return Cost{}, err
	}
	out, err := c.OutDims(0)
	if err != nil {
		return Cost{}, err
	}
	return c.gemm(a, b, out)
}

func (c *Ctx) gemm(a, b, out []int64) (Cost, error) {
	batch, m, n, k, err := gemmShape(a, b, out)
	if err != nil {
		return Cost{}, err
	}
	cost, err := c.Simple(2 * batch * m * n * k)
	if err != nil {
		return Cost{}, err
	}
	rows := m
	if len(b) <= 2 {
		rows = batch * m // A's leading dims fold into one GEMM's rows
	}
	cost.Work = []Work{{FLOPs: cost.FLOPs, Tiles: c.Tiles(batch, m, n), Count: 1, Rows: rows, Cols: n}}
	cost.Unaligned = c.unaligned(m, n, k)
	return cost, nil
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp).
func qlinearMatmulCost(c *Ctx) (Cost, error) {
	cost, err := c.gemmOf(0, 3)
	if err != nil {
		return Cost{}, err
	}
	out, _ := c.OutDims(0) // gemmOf read it
	c.requantize(&cost, prod(out))
	return cost, nil
}

// requantize adds, on a CPU, the int32 accumulator of a quantized GEMM
// with quantized output (QLinearMatMul, QLinearConv): CPU int8 libraries
// (MLAS) accumulate outputs elements into an int32 buffer and requantize
// it in a second pass, 4 bytes written and read back per element before
// the u8/i8 output is written. GPU int8 GEMMs fuse the epilogue.
func (c *Ctx) requantize(cost *Cost, outputs float64) {
	if c.cpuLibrary() {
		cost.addStaged(8 * outputs)
	}
}

// Gemm(A, B, C?): Y = alpha op(A) op(B) + beta C.
func gemmCost(c *Ctx) (Cost, error) {
	out, err := c.OutDims(0)
	if err != nil {
		return Cost{}, err
	}
	a, err := c.InDims(0)
	if err != nil {
		return Cost{}, err
	}
	if len(out) != 2 || len(a) != 2 {
		return Cost{}, fmt.Errorf("Gemm wants 2-D operands, have A %v Y %v", a, out)
	}
	k := a[1]
	if c.Node.AttrInt("transA", 0) != 0 {
		k = a[0]
	}
	m, n := float64(out[0]), float64(out[1])
	flops := 2 * m * n * float64(k)
	if c.Input(2) != nil {
		flops += 2 * m * n // alpha, beta, bias add
	}
	cost, err := c.Simple(flops)
	if err != nil {
		return Cost{}, err
	}
	cost.Work = []Work{{FLOPs: flops, Tiles: c.Tiles(1, m, n), Count: 1, Rows: m, Cols: n}}
	cost.Unaligned = c.unaligned(m, n, float64(k))
	return cost, nil
}

// MatMulNBits(A, B_packed, scales, ...): A[..., K] x dequant(B)[K, N],
// with K and N attributes.
func matmulNBitsCost(c *Ctx) (Cost, error) {
	k, n := c.Node.AttrInt("K", 0), c.Node.AttrInt("N", 0)
	if k <= 0 || n <= 0 {
		return Cost{}, fmt.Errorf("MatMulNBits needs K and N attributes")
	}
	ae, err := c.InElems(0)
	if err != nil {
		return Cost{}, err
	}
	m := ae / float64(k)
	flops := 2 * m * float64(n) * float64(k)
	cost, err := c.Simple(flops)
	if err != nil {
		return Cost{}, err
	}
	cost.Work = []Work{{FLOPs: flops, Tiles: c.Tiles(1, m, float64(n)), Count: 1, Rows: m, Cols: float64(n)}}
	if bits := c.Node.AttrInt("bits", 4); bits != 4 {
		// an op key of its own: runtimes have fast kernels for 4-bit
		// weights only (ONNX Runtime 1.30's CPU kernel unpacks other
		// widths element by element), so its speed is measured apart
		cost.Op = fmt.Sprintf("%s/%dbit", OpKey(c.Node), bits)
	}
	return cost, nil
}

// Einsum: 2 x the product of every index's extent (one multiply-add per
// point of the full index space), for two or more operands; a one-operand
// Einsum (transpose, trace, reduction) costs one FLOP per input element.
func einsumCost(c *Ctx) (Cost, error) {
	eq := strings.ReplaceAll(c.Node.AttrString("equation", ""), " ", "")
	lhs := eq
	if i := strings.Index(eq, "->"); i >= 0 {
		lhs = eq[:i]
	}
	terms := strings.Split(lhs, ",")
	if len(terms) != len(c.Node.Inputs) {
		return Cost{}, fmt.Errorf("Einsum equation %q has %d operands, node has %d inputs", eq, len(terms), len(c.Node.Inputs))
	}
	extent := map[byte]int64{}
	for i, t := range terms {
		d, err := c.InDims(i)
		if err != nil {
			return Cost{}, err
		}
		if strings.Contains(t, "...") {
			// ellipsis dims: count them as one batch letter
			pre, post, _ := strings.Cut(t, "...")
			nb := len(d) - len(pre) - len(post)
			if nb < 0 {
				return Cost{}, fmt.Errorf("Einsum operand %d rank %d too small for %q", i, len(d), t)
			}
			b := int64(1)
			for _, x := range d[len(pre) : len(pre)+nb] {
				b *= x
			}
			if b > extent['.'] {
				extent['.'] = b
			}
			d = append(append([]int64{}, d[:len(pre)]...), d[len(pre)+nb:]...)
			t = pre + post
		}
		if len(t) != len(d) {
			return Cost{}, fmt.Errorf("Einsum term %q does not match rank %d", t, len(d))
		}
		for j := 0; j < len(t); j++ {
			if d[j] > extent[t[j]] {
				extent[t[j]] = d[j]
			}
		}
	}
	if len(terms) == 1 {
		n, err := c.InElems(0)
		if err != nil {
			return Cost{}, err
		}
		cost, err := c.Simple(n)
		cost.Class = DataMovement
		return cost, err
	}
	space := 1.0
	for _, x := range extent {
		space *= float64(x)
	}
	return c.Simple(2 * space)
}
