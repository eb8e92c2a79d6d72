package optimize

// This file implements BatchNorm folding into Conv weights.
//
//	x ──► Conv(W, b) ──► BatchNormalization(γ, β, μ, σ²) ──►
//
// becomes Conv(W', b') with, per output channel o,
//
//	s[o]  = γ[o] / sqrt(σ²[o] + ε)
//	W'[o] = W[o] · s[o]
//	b'[o] = (b[o] − μ[o]) · s[o] + β[o]
//
// a real weight rewrite, expressible in standard ONNX. Only float32
// constant weights and statistics are folded, only inference-mode
// BatchNormalization, and only when the Conv output feeds nothing else.

import (
	"encoding/binary"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

func bnFold(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	order := nodesInOrder(g)
	var rw []Rewrite
	for _, bn := range order {
		if !bn.Is(ir.OpBatchNormalization) || bn.AttrInt("training_mode", 0) != 0 || len(bn.Inputs) != 5 {
			continue
		}
		stats := false
		for _, o := range bn.Outputs[1:] {
			stats = stats || o != nil && (len(o.Uses) > 0 || g.IsOutput(o))
		}
		if stats {
			continue
		}
		conv := producer(bn.Input(0), ir.OpConv)
		if conv == nil || !singleUse(g, conv.Output(0)) {
			continue
		}
		nb, ok := foldBN(c, conv, bn)
		if !ok {
			continue
		}
		if !c.substitute(bn.Output(0), conv.Output(0)) {
			continue
		}
		w := g.AddInitializer(nb.w)
		setInput(conv, 1, w)
		b := g.AddInitializer(nb.b)
		if len(conv.Inputs) > 2 {
			setInput(conv, 2, b)
		} else {
			conv.Inputs = append(conv.Inputs, b)
			b.Uses = append(b.Uses, ir.Use{Node: conv, Index: 2})
		}
		g.DetachNode(bn) // swept below: one pass, not a scan per fold
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(conv), ir.NodeLabel(bn)}, After: []string{ir.NodeLabel(conv)}, Sep: "+",
			Remark: "BatchNorm folded into Conv weights"})
	}
	g.SweepNodes()
	return rw, nil
}

type foldedBN struct{ w, b *ir.Tensor }

// maxFoldElems bounds the per-channel vectors folding decodes (64 Mi
// elements).
const maxFoldElems = 64 << 20

// foldBN builds the folded weights, or false when an operand is not a
// float32 constant of the right size. The statistics and the bias (one
// value per output channel) are computed now; the new weight is derived
// (derived.go): its bytes are computed from the old weight's when read,
// so folding reads no weight and holds none, whatever its size.
func foldBN(c *Context, conv, bn *ir.Node) (foldedBN, bool) {
	wt := constOf(conv.Input(1))
	if wt == nil || wt.DType != ir.Float32 || len(wt.Dims) < 2 || wt.Dims[0] <= 0 {
		return foldedBN{}, false
	}
	co := wt.Dims[0]
	n, ok := wt.NumElements()
	ws := packedSource(wt)
	if !ok || ws == nil {
		return foldedBN{}, false
	}
	vecs := make([][]float64, 4)
	for i := range vecs {
		t := constOf(bn.Input(1 + i))
		if t == nil || t.DType != ir.Float32 {
			return foldedBN{}, false
		}
		v, err := t.Float64Values(maxFoldElems)
		if err != nil || int64(len(v)) != co {
			return foldedBN{}, false
		}
		vecs[i] = v
	}
	gamma, beta, mean, vr := vecs[0], vecs[1], vecs[2], vecs[3]
	bias := make([]float64, co)
	if bt := constOf(conv.Input(2)); bt != nil {
		v, err := bt.Float64Values(maxFoldElems)
		if err != nil || int64(len(v)) != co {
			return foldedBN{}, false
		}
		bias = v
	} else if conv.Input(2) != nil {
		return foldedBN{}, false
	}
	eps := float64(bn.AttrFloat("epsilon", 1e-5))
	scale := make([]float64, co)
	nb := make([]float32, co)
	for o := int64(0); o < co; o++ {
		scale[o] = gamma[o] / math.Sqrt(vr[o]+eps)
		nb[o] = float32((bias[o]-mean[o])*scale[o] + beta[o])
	}
	return foldedBN{
		w: derived(c.newName(conv.Input(1).Name+"_bnfold"), ir.Float32, wt.Dims, &scaleSource{w: ws, per: n / co, scale: scale}),
		b: f32Tensor(c.newName(bn.Input(2).Name+"_bnfold_bias"), []int64{co}, nb),
	}, true
}

// f32Tensor packs vals into a float32 tensor.
func f32Tensor(name string, dims []int64, vals []float32) *ir.Tensor {
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return &ir.Tensor{Name: name, DType: ir.Float32, Dims: append([]int64(nil), dims...), Raw: raw}
}
