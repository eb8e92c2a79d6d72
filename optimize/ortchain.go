package optimize

// This file rewrites, among the members of an inlined fused group, the
// chains ONNX Runtime 1.30's CPU kernels fuse (see ort.go).

import (
	"encoding/binary"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// chain is an anchor's epilogue the rewrite takes: a per-channel bias
// (folded into the anchor's), a residual input (FusedConv's Z), an
// activation with ONNX Runtime's parameters, and the nodes it consumes.
type chain struct {
	bias     []float64 // per output channel/column, added to the anchor's
	z        *ir.Value
	act      string
	params   []float32
	consumed []*ir.Node
	out      *ir.Value
}

// ortChains rewrites the chains among members (nodes of g) and returns the
// members that remain, rewritten ones included.
func ortChains(c *Context, g *ir.Graph, members []*ir.Node) []*ir.Node {
	in := map[*ir.Node]bool{}
	for _, m := range members {
		in[m] = true
	}
	dead := map[*ir.Node]bool{}
	for _, m := range members {
		if dead[m] {
			continue
		}
		var gone []*ir.Node
		switch {
		case m.Is(ir.OpConv):
			gone = fuseConv(c, g, m, in)
		case m.Is(ir.OpMatMul) || m.Is(ir.OpGemm):
			gone = fuseGemm(c, g, m, in)
		case m.Is(ir.OpAdd):
			gone = fuseBiasGelu(g, m, in)
		}
		for _, d := range gone {
			dead[d] = true
		}
	}
	var out []*ir.Node
	for _, m := range members {
		if dead[m] {
			removeNode(g, m)
		} else {
			out = append(out, m)
		}
	}
	return out
}

// next returns the single consumer of v when it is a member and v is read
// nowhere else (not a graph output either).
func next(g *ir.Graph, v *ir.Value, in map[*ir.Node]bool) *ir.Node {
	if v == nil || g.IsOutput(v) || len(v.Uses) != 1 || !in[v.Uses[0].Node] {
		return nil
	}
	return v.Uses[0].Node
}

// The activations ONNX Runtime fuses into a Conv (MLAS) and into a Gemm.
var (
	convActs = map[string]bool{"Relu": true, "Tanh": true, "Sigmoid": true, "LeakyRelu": true, "Clip": true, "HardSigmoid": true}
	gemmActs = map[string]bool{"Relu": true, "Tanh": true, "Sigmoid": true, "LeakyRelu": true, "HardSigmoid": true}
)

// ortAct reports whether n is an activation ONNX Runtime's MLAS fuses into
// a Conv or Gemm (float32), with its parameters in ORT's order.
func ortAct(m *ir.Model, n *ir.Node) (string, []float32, bool) {
	if n == nil || !isDefault(n) || n.Output(0) == nil || n.Output(0).Type.DType != ir.Float32 {
		return "", nil, false
	}
	switch n.Key() {
	case ir.OpRelu, ir.OpTanh, ir.OpSigmoid:
		return n.Op, nil, true
	case ir.OpLeakyRelu:
		return n.Op, []float32{n.AttrFloat("alpha", 0.01)}, true
	case ir.OpHardSigmoid:
		return n.Op, []float32{n.AttrFloat("alpha", 0.2), n.AttrFloat("beta", 0.5)}, true
	case ir.OpClip:
		lo, hi := float32(-math.MaxFloat32), float32(math.MaxFloat32)
		if m.Opset("") < 11 {
			return n.Op, []float32{n.AttrFloat("min", lo), n.AttrFloat("max", hi)}, true
		}
		for i, p := range []*float32{&lo, &hi} {
			v := n.Input(i + 1)
			if v == nil {
				continue
			}
			f, ok := scalarOf(v)
			if !ok {
				return "", nil, false
			}
			*p = float32(f)
		}
		return n.Op, []float32{lo, hi}, true
	}
	return "", nil, false
}

// channelBias returns the per-channel values (channels at axis of an
// output of rank) of a constant k added to it, when k broadcasts along that
// axis only (a scalar too).
func channelBias(k *ir.Value, rank, axis int, channels int64) ([]float64, bool) {
	t := constOf(k)
	if t == nil || !t.DType.IsFloat() || len(t.Dims) > rank {
		return nil, false
	}
	per := int64(1)
	for j, d := range t.Dims {
		a := rank - len(t.Dims) + j
		switch {
		case d == 1:
		case a == axis && d == channels:
			per = d
		default:
			return nil, false
		}
	}
	vals, err := t.Float64Values(per)
	if err != nil || int64(len(vals)) != per {
		return nil, false
	}
	out := make([]float64, channels)
	for i := range out {
		out[i] = vals[i%len(vals)]
	}
	return out, true
}

// walk collects an anchor's epilogue from out: a bias Add over the
// channel axis, a residual Add (when allowZ), then an activation among
// acts.
func walk(m *ir.Model, g *ir.Graph, out *ir.Value, in map[*ir.Node]bool, axis int, channels int64, allowZ bool, acts map[string]bool) chain {
	ch := chain{out: out}
	cur := out
	rank := cur.Type.Shape.Rank()
	for step := 0; step < 3; step++ {
		n := next(g, cur, in)
		if n == nil {
			break
		}
		if act, ps, ok := ortAct(m, n); ok && acts[act] {
			ch.act, ch.params = act, ps
			ch.consumed = append(ch.consumed, n)
			ch.out = n.Output(0)
			break
		}
		if !n.Is(ir.OpAdd) || ch.act != "" {
			break
		}
		o := other(n, cur)
		if b, ok := channelBias(o, rank, axis, channels); ok && ch.bias == nil {
			ch.bias = b
		} else if allowZ && ch.z == nil && o != nil && o.Const == nil && !reaches(out.Producer, o, in) &&
			o.Type.DType == cur.Type.DType && o.Type.Shape.Known && o.Type.Shape.Identical(n.Output(0).Type.Shape) && cur.Type.Shape.Identical(o.Type.Shape) {
			ch.z = o
		} else {
			break
		}
		ch.consumed = append(ch.consumed, n)
		cur = n.Output(0)
		ch.out = cur
	}
	return ch
}

// reaches reports whether v is computed from an output of anchor through
// members (so it cannot be an input of the anchor's own kernel).
func reaches(anchor *ir.Node, v *ir.Value, in map[*ir.Node]bool) bool {
	seen := map[*ir.Node]bool{}
	stack := []*ir.Value{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		p := x.Producer
		if p == anchor {
			return true
		}
		if p == nil || !in[p] || seen[p] {
			continue
		}
		seen[p] = true
		stack = append(stack, p.Inputs...)
	}
	return false
}

// biasTensor makes a float32 initializer of vals (plus the anchor's own
// constant bias base, if any) named after the anchor.
func biasTensor(c *Context, g *ir.Graph, name string, base *ir.Value, vals []float64) (*ir.Value, bool) {
	sum := append([]float64(nil), vals...)
	if base != nil {
		t := constOf(base)
		if t == nil {
			return nil, false
		}
		b, err := t.Float64Values(int64(len(vals)))
		if err != nil || len(b) != len(vals) {
			return nil, false
		}
		for i := range sum {
			sum[i] += b[i]
		}
	}
	raw := make([]byte, 0, 4*len(sum))
	for _, v := range sum {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(v)))
	}
	t := &ir.Tensor{Name: c.newName(name + "_bias"), DType: ir.Float32, Dims: []int64{int64(len(sum))}, Raw: raw}
	return g.AddInitializer(t), true
}

// replaceChain puts one node of op, reading ins with attrs, in place of
// anchor and the chain's nodes; it returns the nodes now gone.
func replaceChain(g *ir.Graph, anchor *ir.Node, ch chain, op, domain string, ins []*ir.Value, attrs []*ir.Attr) []*ir.Node {
	out := ch.out
	for _, n := range ch.consumed {
		n.Outputs = nil // the chain's values go with their producers
	}
	anchor.Outputs[0].Producer = nil
	rewire(anchor, op, domain, ins, attrs)
	anchor.Outputs = []*ir.Value{out}
	out.Producer, out.ProducerOut = anchor, 0
	return ch.consumed
}

// fuseConv writes Conv [+ bias] [+ residual] + activation as FusedConv
// (or a bias alone as the Conv's own), float32 only.
func fuseConv(c *Context, g *ir.Graph, conv *ir.Node, in map[*ir.Node]bool) []*ir.Node {
	w, out := conv.Input(1), conv.Output(0)
	if len(conv.Outputs) != 1 || out == nil || out.Type.DType != ir.Float32 || w == nil || !w.Type.Shape.Known || w.Type.Shape.Rank() < 1 || !w.Type.Shape.Dims[0].IsConcrete() {
		return nil
	}
	ch := walk(c.Model, g, out, in, 1, w.Type.Shape.Dims[0].Val, true, convActs)
	if len(ch.consumed) == 0 {
		return nil
	}
	b := conv.Input(2)
	if ch.bias != nil {
		nb, ok := biasTensor(c, g, conv.Name, b, ch.bias)
		if !ok {
			return nil
		}
		b = nb
	}
	attrs := append([]*ir.Attr(nil), conv.Attrs...)
	if ch.act == "" && ch.z == nil {
		return replaceChain(g, conv, ch, "Conv", "", []*ir.Value{conv.Input(0), w, b}, attrs)
	}
	ins := []*ir.Value{conv.Input(0), w, b}
	if ch.z != nil {
		ins = append(ins, ch.z)
	}
	if ch.act != "" {
		attrs = append(attrs, &ir.Attr{Name: "activation", Type: ir.AttrString, S: []byte(ch.act)})
		if len(ch.params) > 0 {
			attrs = append(attrs, &ir.Attr{Name: "activation_params", Type: ir.AttrFloats, Floats: ch.params})
		}
	}
	return replaceChain(g, conv, ch, "FusedConv", msDomain, ins, attrs)
}

// fuseGemm writes MatMul/Gemm (2-D) [+ bias] [+ activation] as Gemm or
// FusedGemm, and MatMul * scalar as FusedMatMul, float32 only.
func fuseGemm(c *Context, g *ir.Graph, mm *ir.Node, in map[*ir.Node]bool) []*ir.Node {
	a, b, out := mm.Input(0), mm.Input(1), mm.Output(0)
	if len(mm.Outputs) != 1 || out == nil || out.Type.DType != ir.Float32 || a == nil || b == nil {
		return nil
	}
	if mm.Is(ir.OpMatMul) {
		if s := next(g, out, in); (s.Is(ir.OpMul) || s.Is(ir.OpDiv)) && !(a.Type.Shape.Rank() == 2 && b.Type.Shape.Rank() == 2) {
			if f, ok := scalarOf(other(s, out)); ok && f != 0 && s.Input(0) == out {
				if s.Is(ir.OpDiv) {
					f = 1 / f
				}
				return replaceChain(g, mm, chain{out: s.Output(0), consumed: []*ir.Node{s}}, "FusedMatMul", msDomain,
					[]*ir.Value{a, b}, []*ir.Attr{{Name: "alpha", Type: ir.AttrFloat, F: float32(f)}})
			}
		}
	}
	if a.Type.Shape.Rank() != 2 || b.Type.Shape.Rank() != 2 || out.Type.Shape.Rank() != 2 || !out.Type.Shape.Dims[1].IsConcrete() {
		return nil
	}
	attrs := []*ir.Attr{}
	cIn := (*ir.Value)(nil)
	if mm.Is(ir.OpGemm) {
		attrs = append(attrs, mm.Attrs...)
		cIn = mm.Input(2)
	}
	ch := walk(c.Model, g, out, in, 1, out.Type.Shape.Dims[1].Val, false, gemmActs)
	if len(ch.consumed) == 0 {
		return nil
	}
	if ch.bias != nil {
		if cIn != nil && constOf(cIn) == nil {
			return nil
		}
		if cIn != nil && mm.AttrFloat("beta", 1) != 1 {
			return nil
		}
		nb, ok := biasTensor(c, g, mm.Name, cIn, ch.bias)
		if !ok {
			return nil
		}
		cIn = nb
	}
	ins := []*ir.Value{a, b}
	if cIn != nil {
		ins = append(ins, cIn)
	}
	if ch.act == "" {
		return replaceChain(g, mm, ch, "Gemm", "", ins, attrs)
	}
	attrs = append(attrs, &ir.Attr{Name: "activation", Type: ir.AttrString, S: []byte(ch.act)})
	for i, name := range []string{"activation_alpha", "activation_beta"} {
		if i < len(ch.params) {
			attrs = append(attrs, &ir.Attr{Name: name, Type: ir.AttrFloat, F: ch.params[i]})
		}
	}
	return replaceChain(g, mm, ch, "FusedGemm", msDomain, ins, attrs)
}

// fuseBiasGelu writes Add(x, bias) + GELU (as the ort pass lowered it) as
// com.microsoft BiasGelu (erf form) or FastGelu(x, bias) (tanh form), the
// bias a constant over x's last axis.
func fuseBiasGelu(g *ir.Graph, add *ir.Node, in map[*ir.Node]bool) []*ir.Node {
	gelu := next(g, add.Output(0), in)
	if gelu == nil || len(gelu.Inputs) != 1 {
		return nil
	}
	approx := gelu.AttrString("approximate", "none")
	tanh := gelu.Is(msFastGelu) || gelu.Is(ir.OpGelu) && approx == "tanh"
	erf := gelu.Is(msGelu) || gelu.Is(ir.OpGelu) && approx == "none"
	if !tanh && !erf {
		return nil
	}
	x := add.Input(0)
	bias := add.Input(1)
	if constOf(bias) == nil {
		x, bias = bias, x
	}
	out := add.Output(0)
	if x == nil || constOf(bias) == nil || len(bias.Type.Shape.Dims) != 1 || !x.Type.Shape.Known || x.Type.Shape.Rank() < 1 ||
		!x.Type.Shape.Identical(out.Type.Shape) || !bias.Type.Shape.Dims[0].IsConcrete() || bias.Type.DType != x.Type.DType {
		return nil
	}
	last := x.Type.Shape.Dims[x.Type.Shape.Rank()-1]
	if !last.IsConcrete() || last.Val != bias.Type.Shape.Dims[0].Val {
		return nil
	}
	op := "BiasGelu"
	if tanh {
		op = "FastGelu"
	}
	return replaceChain(g, add, chain{out: gelu.Output(0), consumed: []*ir.Node{gelu}}, op, msDomain, []*ir.Value{x, bias}, nil)
}

// fuseSkipNorm writes Add(a, b) + LayerNormalization over the last axis
// (rank 2 or 3, 1-D scale and bias) as com.microsoft
// SkipLayerNormalization; the sum, when read elsewhere, is its fourth
// output. The Add may be any node of g (a residual sum is read by the
// next residual too, so the fuser leaves it out of the LayerNorm's group).
// It returns the Add, now gone, or nil.
func fuseSkipNorm(g *ir.Graph, ln *ir.Node) *ir.Node {
	x := ln.Input(0)
	if x == nil || x.Producer == nil || x.Producer.Graph != g || !x.Producer.Is(ir.OpAdd) || len(ln.Outputs) != 1 {
		return nil
	}
	add := x.Producer
	a, b := add.Input(0), add.Input(1)
	r := x.Type.Shape.Rank()
	if a == nil || b == nil || a.Const != nil || b.Const != nil || (r != 2 && r != 3) || !a.Type.Shape.Identical(x.Type.Shape) || !b.Type.Shape.Identical(x.Type.Shape) {
		return nil
	}
	if axis := ln.AttrInt("axis", -1); axis != -1 && axis != int64(r-1) {
		return nil
	}
	for _, p := range ln.Inputs[1:] {
		if p != nil && p.Type.Shape.Rank() != 1 {
			return nil
		}
	}
	ins := []*ir.Value{a, b, ln.Input(1)}
	if ln.Input(2) != nil {
		ins = append(ins, ln.Input(2))
	}
	attrs := []*ir.Attr{{Name: "epsilon", Type: ir.AttrFloat, F: ln.AttrFloat("epsilon", 1e-5)}}
	y := ln.Output(0)
	shared := len(x.Uses) > 1 || g.IsOutput(x)
	add.Outputs = nil
	rewire(ln, "SkipLayerNormalization", msDomain, ins, attrs)
	ln.Outputs = []*ir.Value{y}
	if shared {
		ln.Outputs = []*ir.Value{y, nil, nil, x}
		x.Producer, x.ProducerOut = ln, 3
	}
	removeNode(g, add)
	return add
}
