package eval

// This file implements reductions (Reduce*, ArgMax/ArgMin), the Softmax
// family, CumSum/CumProd and TopK.

import (
	"math"
	"sort"

	"github.com/wolong-dev/wolong/ir"
)

type reducer struct {
	init  float64
	step  func(acc, x float64) float64
	final func(acc float64, n int) float64
	since int64 // opset where axes became an input
	isInt bool  // exact on integers
}

var reducers = map[string]reducer{
	"ReduceSum":       {0, func(a, x float64) float64 { return a + x }, nil, 13, true},
	"ReduceMean":      {0, func(a, x float64) float64 { return a + x }, func(a float64, n int) float64 { return a / float64(n) }, 18, false},
	"ReduceMax":       {math.Inf(-1), fmax, nil, 18, true},
	"ReduceMin":       {math.Inf(1), fmin, nil, 18, true},
	"ReduceProd":      {1, func(a, x float64) float64 { return a * x }, nil, 18, true},
	"ReduceL1":        {0, func(a, x float64) float64 { return a + math.Abs(x) }, nil, 18, true},
	"ReduceL2":        {0, func(a, x float64) float64 { return a + x*x }, func(a float64, n int) float64 { return math.Sqrt(a) }, 18, false},
	"ReduceSumSquare": {0, func(a, x float64) float64 { return a + x*x }, nil, 18, true},
	"ReduceLogSum":    {0, func(a, x float64) float64 { return a + x }, func(a float64, n int) float64 { return math.Log(a) }, 18, false},
}

func registerReduce() {
	for name, r := range reducers {
		register(reduceKernel(r), name)
	}
	register(kernelReduceLogSumExp, "ReduceLogSumExp")
	register(argKernel(false), "ArgMax")
	register(argKernel(true), "ArgMin")
	register(softmaxKernel(0), "Softmax")
	register(softmaxKernel(1), "LogSoftmax")
	register(softmaxKernel(2), "Hardmax")
	register(cumKernel(false), "CumSum")
	register(cumKernel(true), "CumProd")
	register(kernelTopK, "TopK")
}

// reduceSetup computes which axes reduce and the grouping of elements:
// it returns the output shape (with keepdims honoured), and a source
// index map that lists each output's inputs contiguously (group of size
// inner). ok=false means "no reduction" (noop_with_empty_axes).
func reduceSetup(c *Ctx, x *Tensor, in []*Tensor, since int64) (outShape []int, idx []int, group int, noop bool, err error) {
	axes, ok, err := axesInput(c, in, 1, since)
	if err != nil {
		return nil, nil, 0, false, err
	}
	r := x.Rank()
	red := make([]bool, r)
	if !ok || len(axes) == 0 {
		if c.Int("noop_with_empty_axes", 0) != 0 && c.Opset >= since {
			return x.Shape, nil, 1, true, nil
		}
		for i := range red {
			red[i] = true
		}
	}
	for _, a := range axes {
		ax, err := normAxis(a, r)
		if err != nil {
			return nil, nil, 0, false, err
		}
		red[ax] = true
	}
	keep := c.Int("keepdims", 1) != 0
	var perm []int
	group = 1
	for i := 0; i < r; i++ {
		if !red[i] {
			perm = append(perm, i)
			if keep {
				outShape = append(outShape, x.Shape[i])
			} else {
				outShape = append(outShape, x.Shape[i])
			}
		} else if keep {
			outShape = append(outShape, 1)
		}
	}
	if !keep {
		outShape = outShape[:0]
		for i := 0; i < r; i++ {
			if !red[i] {
				outShape = append(outShape, x.Shape[i])
			}
		}
	}
	for i := 0; i < r; i++ {
		if red[i] {
			perm = append(perm, i)
			group *= x.Shape[i]
		}
	}
	if outShape == nil {
		outShape = []int{}
	}
	if err := c.check(x.DType, outShape); err != nil {
		return nil, nil, 0, false, err
	}
	_, idx = transposeIndex(x.Shape, perm)
	return outShape, idx, group, false, nil
}

func reduceKernel(r reducer) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		shape, idx, group, noop, err := reduceSetup(c, x, in, r.since)
		if err != nil {
			return nil, err
		}
		if noop {
			return []*Tensor{x}, nil
		}
		if x.cls() == clsB && c.Node.IsAny(ir.OpReduceMax, ir.OpReduceMin) {
			out, err := c.alloc(ir.Bool, shape)
			if err != nil {
				return nil, err
			}
			isMax := c.Node.Is(ir.OpReduceMax)
			for o := range out.B {
				acc := !isMax
				for j := 0; j < group; j++ {
					if isMax {
						acc = acc || x.B[idx[o*group+j]]
					} else {
						acc = acc && x.B[idx[o*group+j]]
					}
				}
				out.B[o] = acc
			}
			return []*Tensor{out}, nil
		}
		out, err := c.alloc(x.DType, shape)
		if err != nil {
			return nil, err
		}
		nOut := out.Len()
		if x.cls() == clsI && r.isInt {
			name := c.Node.Op
			for o := 0; o < nOut; o++ {
				var acc int64
				switch name {
				case "ReduceMax":
					acc = math.MinInt64
					if isUnsigned(x.DType) {
						acc = 0
					}
				case "ReduceMin":
					acc = math.MaxInt64
					if isUnsigned(x.DType) {
						lo, hi := intRange(x.DType)
						_ = lo
						if x.DType != ir.Uint64 {
							acc = int64(hi)
						} else {
							acc = -1
						}
					}
				case "ReduceProd":
					acc = 1
				}
				for j := 0; j < group; j++ {
					v := x.I[idx[o*group+j]]
					switch name {
					case "ReduceSum":
						acc += v
					case "ReduceMax":
						if cmpInt(x.DType, v, acc) > 0 {
							acc = v
						}
					case "ReduceMin":
						if cmpInt(x.DType, v, acc) < 0 {
							acc = v
						}
					case "ReduceProd":
						acc *= v
					case "ReduceL1":
						if v < 0 {
							v = -v
						}
						acc += v
					case "ReduceSumSquare":
						acc += v * v
					}
				}
				out.I[o] = acc
			}
			return []*Tensor{out}, nil
		}
		f := x.f64()
		if f == nil || x.cls() == clsB {
			return nil, c.Errorf("input must be numeric, got %s", x)
		}
		for o := 0; o < nOut; o++ {
			acc := r.init
			for j := 0; j < group; j++ {
				acc = r.step(acc, f[idx[o*group+j]])
			}
			if r.final != nil {
				acc = r.final(acc, group)
			}
			switch out.cls() {
			case clsI:
				out.I[o] = int64(acc)
			default:
				out.setF(o, acc)
			}
		}
		return []*Tensor{out}, nil
	}
}

func kernelReduceLogSumExp(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	shape, idx, group, noop, err := reduceSetup(c, x, in, 18)
	if err != nil {
		return nil, err
	}
	if noop {
		return []*Tensor{x}, nil
	}
	if !isFloatCls(x) && x.cls() != clsI {
		return nil, c.Errorf("input must be numeric, got %s", x)
	}
	out, err := c.alloc(x.DType, shape)
	if err != nil {
		return nil, err
	}
	f := x.f64()
	for o := 0; o < out.Len(); o++ {
		m := math.Inf(-1)
		for j := 0; j < group; j++ {
			m = math.Max(m, f[idx[o*group+j]])
		}
		s := 0.0
		for j := 0; j < group; j++ {
			s += math.Exp(f[idx[o*group+j]] - m)
		}
		v := m + math.Log(s)
		if math.IsInf(m, -1) {
			v = math.Inf(-1)
		}
		if out.cls() == clsI {
			out.I[o] = int64(v)
		} else {
			out.setF(o, v)
		}
	}
	return []*Tensor{out}, nil
}

func argKernel(isMin bool) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		axis, err := normAxis(c.Int("axis", 0), x.Rank())
		if err != nil {
			return nil, err
		}
		last := c.Int("select_last_index", 0) != 0
		shape := append([]int{}, x.Shape...)
		shape[axis] = 1
		if c.Int("keepdims", 1) == 0 {
			shape = append(shape[:axis:axis], x.Shape[axis+1:]...)
		}
		out, err := c.alloc(ir.Int64, shape)
		if err != nil {
			return nil, err
		}
		f := x.f64()
		if f == nil {
			return nil, c.Errorf("input must be numeric, got %s", x)
		}
		outer, n, inner := numel(x.Shape[:axis]), x.Shape[axis], numel(x.Shape[axis+1:])
		if n == 0 {
			return nil, c.Errorf("cannot reduce an empty axis")
		}
		for o := 0; o < outer; o++ {
			for i := 0; i < inner; i++ {
				best, bi := f[o*n*inner+i], 0
				for j := 1; j < n; j++ {
					v := f[(o*n+j)*inner+i]
					better := v > best
					if isMin {
						better = v < best
					}
					if better || (last && v == best) {
						best, bi = v, j
					}
				}
				out.I[o*inner+i] = int64(bi)
			}
		}
		return []*Tensor{out}, nil
	}
}

// softmaxKernel: kind 0 Softmax, 1 LogSoftmax, 2 Hardmax.
func softmaxKernel(kind int) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		var outer, n, inner int
		if c.Opset < 13 {
			axis := int(c.Int("axis", 1))
			if axis < 0 {
				axis += x.Rank()
			}
			if axis < 0 || axis > x.Rank() {
				return nil, c.Errorf("axis out of range")
			}
			outer, n, inner = numel(x.Shape[:axis]), numel(x.Shape[axis:]), 1
		} else {
			axis, err := normAxis(c.Int("axis", -1), x.Rank())
			if err != nil {
				return nil, err
			}
			outer, n, inner = numel(x.Shape[:axis]), x.Shape[axis], numel(x.Shape[axis+1:])
		}
		out, err := c.alloc(x.DType, x.Shape)
		if err != nil {
			return nil, err
		}
		f := x.f64()
		res := make([]float64, len(f))
		for o := 0; o < outer; o++ {
			for i := 0; i < inner; i++ {
				at := func(j int) int { return (o*n+j)*inner + i }
				m := math.Inf(-1)
				arg := 0
				for j := 0; j < n; j++ {
					if f[at(j)] > m {
						m, arg = f[at(j)], j
					}
				}
				switch kind {
				case 2:
					for j := 0; j < n; j++ {
						res[at(j)] = 0
					}
					if n > 0 {
						res[at(arg)] = 1
					}
				default:
					s := 0.0
					for j := 0; j < n; j++ {
						s += math.Exp(f[at(j)] - m)
					}
					for j := 0; j < n; j++ {
						if kind == 0 {
							res[at(j)] = math.Exp(f[at(j)]-m) / s
						} else {
							res[at(j)] = f[at(j)] - m - math.Log(s)
						}
					}
				}
			}
		}
		for i, v := range res {
			out.setF(i, v)
		}
		return []*Tensor{out}, nil
	}
}

func cumKernel(prod bool) Kernel {
	return func(c *Ctx, in []*Tensor) ([]*Tensor, error) {
		x, at := in[0], in[1]
		av, err := ints(at, "axis")
		if err != nil || len(av) != 1 {
			return nil, c.Errorf("axis must be an integer scalar")
		}
		axis, err := normAxis(av[0], x.Rank())
		if err != nil {
			return nil, err
		}
		excl, rev := c.Int("exclusive", 0) != 0, c.Int("reverse", 0) != 0
		out, err := c.alloc(x.DType, x.Shape)
		if err != nil {
			return nil, err
		}
		outer, n, inner := numel(x.Shape[:axis]), x.Shape[axis], numel(x.Shape[axis+1:])
		isInt := x.cls() == clsI
		f := x.f64()
		if f == nil {
			return nil, c.Errorf("input must be numeric")
		}
		for o := 0; o < outer; o++ {
			for i := 0; i < inner; i++ {
				acc, iacc := 0.0, int64(0)
				if prod {
					acc, iacc = 1, 1
				}
				for jj := 0; jj < n; jj++ {
					j := jj
					if rev {
						j = n - 1 - jj
					}
					k := (o*n+j)*inner + i
					if excl {
						if isInt {
							out.I[k] = iacc
						} else {
							out.setF(k, acc)
						}
					}
					if isInt {
						if prod {
							iacc *= x.I[k]
						} else {
							iacc += x.I[k]
						}
					} else if prod {
						acc *= f[k]
					} else {
						acc += f[k]
					}
					if !excl {
						if isInt {
							out.I[k] = iacc
						} else {
							out.setF(k, acc)
						}
					}
				}
			}
		}
		return []*Tensor{out}, nil
	}
}

func kernelTopK(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	var k int64
	if c.Opset < 10 {
		k = c.Int("k", 0)
	} else {
		kt, err := need(in, 1, "K")
		if err != nil {
			return nil, err
		}
		kv, err := ints(kt, "K")
		if err != nil || len(kv) != 1 {
			return nil, c.Errorf("K must be a one-element integer tensor")
		}
		k = kv[0]
	}
	axis, err := normAxis(c.Int("axis", -1), x.Rank())
	if err != nil {
		return nil, err
	}
	n := x.Shape[axis]
	if k < 0 || k > int64(n) {
		return nil, c.Errorf("K=%d out of range for axis of size %d", k, n)
	}
	largest := c.Int("largest", 1) != 0
	shape := append([]int{}, x.Shape...)
	shape[axis] = int(k)
	if err := c.check(x.DType, shape); err != nil {
		return nil, err
	}
	ind, err := c.alloc(ir.Int64, shape)
	if err != nil {
		return nil, err
	}
	f := x.f64()
	if f == nil {
		return nil, c.Errorf("input must be numeric")
	}
	outer, inner := numel(x.Shape[:axis]), numel(x.Shape[axis+1:])
	src := make([]int, numel(shape))
	order := make([]int, n)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			for j := range order {
				order[j] = j
			}
			val := func(j int) float64 { return f[(o*n+j)*inner+i] }
			sort.SliceStable(order, func(a, b int) bool {
				va, vb := val(order[a]), val(order[b])
				if largest {
					return va > vb || (va == vb && order[a] < order[b])
				}
				return va < vb || (va == vb && order[a] < order[b])
			})
			for j := 0; j < int(k); j++ {
				p := (o*int(k)+j)*inner + i
				ind.I[p] = int64(order[j])
				src[p] = (o*n+order[j])*inner + i
			}
		}
	}
	vals, err := c.take(x, shape, src)
	if err != nil {
		return nil, err
	}
	return []*Tensor{vals, ind}, nil
}
