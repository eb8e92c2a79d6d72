package eval

// This file implements the com.microsoft fused operators wolong writes
// for ONNX Runtime (optimize --target ort): FusedConv, FusedGemm,
// FusedMatMul, BiasGelu, Gelu and QuickGelu, so that the evaluator runs
// what wolong emits. Each is its unfused composition: the base kernel,
// then the activation ONNX Runtime's MLAS applies (Relu, Tanh, Sigmoid,
// LeakyRelu, Clip, HardSigmoid).

import (
	"math"
)

func registerContribFused() {
	registerDomain(msDomain, "FusedConv", kernelFusedConv)
	registerDomain(msDomain, "FusedGemm", kernelFusedGemm)
	registerDomain(msDomain, "FusedMatMul", kernelFusedMatMul)
	registerDomain(msDomain, "BiasGelu", kernelMSGelu)
	registerDomain(msDomain, "Gelu", kernelMSGelu)
	registerDomain(msDomain, "QuickGelu", kernelQuickGelu)
}

// fusedActivation returns the activation named act with its parameters
// (params, in ONNX Runtime's order), or an error for one it lacks.
func fusedActivation(c *Ctx, act string, params []float64) (func(float64) float64, error) {
	p := func(i int, def float64) float64 {
		if i < len(params) {
			return params[i]
		}
		return def
	}
	switch act {
	case "":
		return nil, nil
	case "Relu":
		return func(x float64) float64 { return math.Max(x, 0) }, nil
	case "Tanh":
		return math.Tanh, nil
	case "Sigmoid":
		return func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, nil
	case "LeakyRelu":
		a := p(0, 0.01)
		return func(x float64) float64 {
			if x < 0 {
				return a * x
			}
			return x
		}, nil
	case "Clip":
		lo, hi := p(0, math.Inf(-1)), p(1, math.Inf(1))
		return func(x float64) float64 { return math.Min(math.Max(x, lo), hi) }, nil
	case "HardSigmoid":
		a, b := p(0, 0.2), p(1, 0.5)
		return func(x float64) float64 { return math.Max(0, math.Min(1, a*x+b)) }, nil
	}
	return nil, c.Errorf("activation %q is not one ONNX Runtime fuses", act)
}

// activate applies f (nil: none) to t in place.
func activate(t *Tensor, f func(float64) float64) {
	if f == nil {
		return
	}
	if t.cls() == clsD {
		for i, v := range t.D {
			t.D[i] = f(v)
		}
		return
	}
	for i, v := range t.F {
		t.F[i] = float32(f(float64(v)))
	}
}

func floats64(fs []float32) []float64 {
	out := make([]float64, len(fs))
	for i, f := range fs {
		out[i] = float64(f)
	}
	return out
}

// kernelFusedConv: Y = act(Conv(X, W, B) + Z).
func kernelFusedConv(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	ps, _ := c.Floats("activation_params")
	act, err := fusedActivation(c, c.Str("activation", ""), floats64(ps))
	if err != nil {
		return nil, err
	}
	out, err := kernelConv(c, in[:min(len(in), 3)])
	if err != nil {
		return nil, err
	}
	y := out[0]
	if z := optIn(in, 3); z != nil {
		sum, err := binaryOp(func(a, b float64) float64 { return a + b }, nil)(c, []*Tensor{y, z})
		if err != nil {
			return nil, err
		}
		y = sum[0]
	}
	activate(y, act)
	return []*Tensor{y}, nil
}

// kernelFusedGemm: Y = act(Gemm(A, B, C)) with activation_alpha/beta.
func kernelFusedGemm(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	name, alpha := c.Str("activation", ""), float32(0.01)
	if name == "HardSigmoid" {
		alpha = 0.2
	}
	act, err := fusedActivation(c, name, []float64{float64(c.Float("activation_alpha", alpha)), float64(c.Float("activation_beta", 0.5))})
	if err != nil {
		return nil, err
	}
	out, err := kernelGemm(c, in)
	if err != nil {
		return nil, err
	}
	activate(out[0], act)
	return out, nil
}

// kernelFusedMatMul: Y = alpha * op(A) op(B), op a transpose of the last
// two dims when transA / transB is set (transBatchA/B are not supported).
func kernelFusedMatMul(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	if c.Int("transBatchA", 0) != 0 || c.Int("transBatchB", 0) != 0 {
		return nil, c.unsupported("FusedMatMul with transBatchA/transBatchB")
	}
	a, b := in[0], in[1]
	var err error
	lastTwo := func(t *Tensor) (*Tensor, error) {
		if t.Rank() < 2 {
			return nil, c.Errorf("a transposed operand needs rank >= 2, got %s", t)
		}
		perm := make([]int, t.Rank())
		for i := range perm {
			perm[i] = i
		}
		perm[len(perm)-1], perm[len(perm)-2] = perm[len(perm)-2], perm[len(perm)-1]
		return c.transpose(t, perm)
	}
	if c.Int("transA", 0) != 0 {
		if a, err = lastTwo(a); err != nil {
			return nil, err
		}
	}
	if c.Int("transB", 0) != 0 {
		if b, err = lastTwo(b); err != nil {
			return nil, err
		}
	}
	out, err := kernelMatMul(c, []*Tensor{a, b})
	if err != nil {
		return nil, err
	}
	if alpha := float64(c.Float("alpha", 1)); alpha != 1 {
		activate(out[0], func(x float64) float64 { return alpha * x })
	}
	return out, nil
}

func erfGelu(v float64) float64 { return 0.5 * v * (1 + math.Erf(v/math.Sqrt2)) }

// kernelMSGelu: com.microsoft Gelu(X) and BiasGelu(A, bias) =
// Gelu(A + bias), the erf form.
func kernelMSGelu(c *Ctx, in []*Tensor) ([]*Tensor, error) { return biasThen(c, in, erfGelu) }

// biasThen applies f to X (input 0), plus the bias of input 1 when given.
func biasThen(c *Ctx, in []*Tensor, f func(float64) float64) ([]*Tensor, error) {
	x := in[0]
	if b := optIn(in, 1); b != nil {
		sum, err := binaryOp(func(p, q float64) float64 { return p + q }, nil)(c, []*Tensor{x, b})
		if err != nil {
			return nil, err
		}
		x = sum[0]
	}
	return mapFloat(c, x, f)
}

// kernelQuickGelu: Y = X * sigmoid(alpha * X) (alpha default 1.702).
func kernelQuickGelu(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	alpha := float64(c.Float("alpha", 1.702))
	return mapFloat(c, x, func(v float64) float64 { return v / (1 + math.Exp(-alpha*v)) })
}
