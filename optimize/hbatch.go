package optimize

// This file implements horizontal batching (horizontal fusion).
//
//	        x                              x
//	   ┌────┼────┐                         │
//	   ▼    ▼    ▼                         ▼
//	MatMul MatMul MatMul      ──►   MatMul(x, [Wq|Wk|Wv])
//	 (Wq)  (Wk)   (Wv)                     │
//	   ▼    ▼    ▼                       Split
//	   q    k    v                      ▼  ▼  ▼
//	                                    q  k  v
//
// Sibling MatMul, Gemm or Conv nodes that read the same input and have
// constant weights of compatible shape (same op, attributes, dtype and
// reduction size) become one wider op over the concatenated weights plus
// a Split: Q/K/V projections, the four gate GEMMs of an unrolled LSTM/GRU
// cell, the 1x1 convolutions of an Inception block. One launch instead of
// several and a wider GEMM that fills the device better. The rewrite is
// standard ONNX. Grouped convolutions and Gemm with transA are left alone.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// maxBatch caps the ops one batching rewrite combines.
const maxBatch = 64

// hCand is a sibling that may join a horizontal batch.
type hCand struct {
	n    *ir.Node
	key  string
	w, b *ir.Value
	size int64 // this op's share of the output axis
}

func hBatch(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	order := nodesInOrder(g)
	wc := weightCache{}
	dead := map[*ir.Node]bool{}
	var rw []Rewrite
	var sources []*ir.Value
	sources = append(sources, g.Inputs...)
	for _, n := range order {
		for _, o := range n.Outputs {
			if o != nil {
				sources = append(sources, o)
			}
		}
	}
	for _, x := range sources {
		if len(x.Uses) < 2 {
			continue
		}
		var keys []string
		byKey := map[string][]hCand{}
		for _, u := range x.Uses {
			if u.Index != 0 || u.Node.Graph != g || dead[u.Node] {
				continue
			}
			hc, ok := horizontalCand(u.Node)
			if !ok {
				continue
			}
			if byKey[hc.key] == nil {
				keys = append(keys, hc.key)
			}
			if len(byKey[hc.key]) < maxBatch {
				byKey[hc.key] = append(byKey[hc.key], hc)
			}
		}
		c.refuseMixedSiblings(x, keys, byKey)
		for _, k := range keys {
			cs := byKey[k]
			if len(cs) < 2 {
				continue
			}
			r, ok := hRewrite(c, wc, x, cs)
			if !ok {
				continue
			}
			for _, hc := range cs {
				dead[hc.n] = true
			}
			rw = append(rw, r)
		}
	}
	removeNodes(g, dead)
	return rw, nil
}

// horizontalCand classifies n as a batchable sibling.
func horizontalCand(n *ir.Node) (hCand, bool) {
	if !isDefault(n) || len(n.Outputs) != 1 || n.Outputs[0] == nil {
		return hCand{}, false
	}
	w := n.Input(1)
	wt := constOf(w)
	if wt == nil {
		return hCand{}, false
	}
	if packedSource(wt) == nil {
		return hCand{}, false
	}
	var attrs strings.Builder
	for _, a := range n.Attrs {
		attrs.WriteString(a.Name + "=")
		attrKey(&attrs, a, nil)
		attrs.WriteString(";")
	}
	dt := wt.DType
	switch n.Key() {
	case ir.OpMatMul:
		if len(wt.Dims) != 2 || len(n.Inputs) != 2 {
			return hCand{}, false
		}
		// concatenated, not fmt.Sprintf: one key per MatMul of the model
		return hCand{n: n, key: "MatMul|" + dt.String() + "|" + strconv.FormatInt(wt.Dims[0], 10), w: w, size: wt.Dims[1]}, true
	case ir.OpGemm:
		if n.AttrInt("transA", 0) != 0 || len(wt.Dims) != 2 {
			return hCand{}, false
		}
		transB := n.AttrInt("transB", 0) != 0
		size, k := wt.Dims[1], wt.Dims[0]
		if transB {
			size, k = wt.Dims[0], wt.Dims[1]
		}
		b := n.Input(2)
		if b != nil {
			bt := constOf(b)
			if bt == nil || len(bt.Dims) != 1 || bt.Dims[0] != size || bt.DType != dt {
				return hCand{}, false
			}
		}
		return hCand{n: n, key: fmt.Sprintf("Gemm|%s|%d|%v|%s", dt, k, b != nil, attrs.String()), w: w, b: b, size: size}, true
	case ir.OpConv:
		if n.AttrInt("group", 1) != 1 || len(wt.Dims) < 3 {
			return hCand{}, false
		}
		b := n.Input(2)
		if b != nil {
			bt := constOf(b)
			if bt == nil || len(bt.Dims) != 1 || bt.Dims[0] != wt.Dims[0] || bt.DType != dt {
				return hCand{}, false
			}
		}
		return hCand{n: n, key: fmt.Sprintf("Conv|%s|%v|%v|%s", dt, wt.Dims[1:], b != nil, attrs.String()), w: w, b: b, size: wt.Dims[0]}, true
	}
	return hCand{}, false
}

// hRewrite replaces cs by one op over concatenated weights plus a Split.
func hRewrite(c *Context, wc weightCache, x *ir.Value, cs []hCand) (Rewrite, bool) {
	first := cs[0].n
	waxis, oaxis := 1, 1
	switch first.Key() {
	case ir.OpMatMul:
		r := first.Output(0).Type.Shape.Rank()
		if r < 1 {
			return Rewrite{}, false
		}
		oaxis = r - 1
	case ir.OpGemm:
		if first.AttrInt("transB", 0) != 0 {
			waxis = 0
		}
	case ir.OpConv:
		waxis = 0
	}
	ws := make([]*ir.Value, len(cs))
	var bs []*ir.Value
	sizes := make([]int64, len(cs))
	outs := make([]*ir.Value, len(cs))
	var total int64
	for i, hc := range cs {
		ws[i], sizes[i], outs[i] = hc.w, hc.size, hc.n.Output(0)
		total += hc.size
		if hc.b != nil {
			bs = append(bs, hc.b)
		}
	}
	w := wc.concat(c, ws, waxis)
	if w == nil {
		return Rewrite{}, false
	}
	ins := []*ir.Value{x, w}
	if len(bs) > 0 {
		b := wc.concat(c, bs, 0)
		if b == nil {
			return Rewrite{}, false
		}
		ins = append(ins, b)
	}
	g := c.Graph()
	n := &ir.Node{Name: c.newName("batched_" + strings.ToLower(first.Op)), Op: first.Op, Inputs: ins, Attrs: first.Attrs}
	out := g.NewValue(n.Name+"_out", withDim(first.Output(0).Type, oaxis, total))
	n.Outputs = []*ir.Value{out}
	g.AttachNode(n)
	sp := splitInto(c, out, oaxis, sizes, outs)
	before := make([]*ir.Node, len(cs))
	for i, hc := range cs {
		before[i] = hc.n
	}
	return Rewrite{Before: names(before), After: []string{n.Name, sp.Name}, Sep: "||",
		Remark: strconv.Itoa(len(cs)) + " " + first.Op + " ops sharing " + x.Name + " -> one " + strconv.FormatInt(total, 10) + "-wide op + Split"}, true
}
