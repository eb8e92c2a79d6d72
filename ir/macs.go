package ir

// This file implements multiply-accumulate counting for the ops that do
// them (convolutions, matrix products, recurrent cells, attention), the
// figure that model zoos publish as "MACs" (FLOPs = 2 x MACs). Elementwise
// ops, pooling and normalizations are not counted: they do no
// multiply-accumulates, and published figures leave them out too.

import (
	"strings"
)

// MACResult is the multiply-accumulate count of a node.
type MACResult struct {
	MACs  int64
	Known bool // false: the op does MACs but shapes were not known
	// Counted is false for ops that do no MACs at all (Relu, Add, ...).
	Counted bool
}

// NodeMACs counts the multiply-accumulates one execution of n performs.
// Recurrent ops count every time step and direction; Loop and Scan count
// their body times the trip count when it is static; If counts the larger
// branch. Fused kernels (FusedBody) count their body.
func NodeMACs(n *Node) MACResult {
	switch n.Domain {
	case "", msDomain:
	case FusedDomain:
		if body := FusedBody(n); body != nil {
			return graphMACs(body, 0)
		}
		return MACResult{}
	default:
		return MACResult{}
	}
	out := func(i int) Shape {
		if o := n.Output(i); o != nil {
			return o.Type.Shape
		}
		return Shape{}
	}
	in := func(i int) Shape {
		if v := n.Input(i); v != nil {
			return v.Type.Shape
		}
		return Shape{}
	}
	counted := func(parts ...Shape) MACResult {
		m, ok := product(parts...)
		return MACResult{MACs: m, Known: ok, Counted: true}
	}
	switch n.Op {
	case "Conv", "ConvInteger", "QLinearConv", "FusedConv", "NhwcConv":
		w := 1
		if n.Op == "QLinearConv" {
			w = 3
		}
		ws := in(w)
		if !ws.Known || len(ws.Dims) < 2 {
			return MACResult{Counted: true}
		}
		// out elements x (C/group) x kernel elements
		return counted(out(0), DimsShape(ws.Dims[1:]...))
	case "ConvTranspose":
		ws := in(1)
		if !ws.Known || len(ws.Dims) < 2 {
			return MACResult{Counted: true}
		}
		// input elements x (M/group) x kernel elements
		return counted(in(0), DimsShape(ws.Dims[1:]...))
	case "Gemm":
		a := in(0)
		if !a.Known || len(a.Dims) != 2 {
			return MACResult{Counted: true}
		}
		k := a.Dims[1]
		if n.AttrInt("transA", 0) != 0 {
			k = a.Dims[0]
		}
		return counted(out(0), DimsShape(k))
	case "MatMul", "MatMulInteger", "QLinearMatMul", "FusedMatMul", "MatMulNBits":
		a := in(0)
		if !a.Known || len(a.Dims) == 0 {
			return MACResult{Counted: true}
		}
		k := a.Dims[len(a.Dims)-1]
		if n.Op == "FusedMatMul" && n.AttrInt("transA", 0) != 0 && len(a.Dims) >= 2 {
			k = a.Dims[len(a.Dims)-2]
		}
		return counted(out(0), DimsShape(k))
	case "LSTM", "GRU", "RNN":
		// per step and batch row: (gates*H) x (I + H), W and R hold every direction.
		x := in(0)
		if !x.Known || len(x.Dims) != 3 {
			return MACResult{Counted: true}
		}
		steps, batch := x.Dims[0], x.Dims[1]
		if n.AttrInt("layout", 0) == 1 {
			steps, batch = x.Dims[1], x.Dims[0]
		}
		w, ok1 := product(in(1))
		r, ok2 := product(in(2))
		sb, ok3 := product(DimsShape(steps, batch))
		if !ok1 || !ok2 || !ok3 {
			return MACResult{Counted: true}
		}
		return MACResult{MACs: sb * (w + r), Known: true, Counted: true}
	case "Attention":
		if n.Domain == msDomain {
			return MACResult{}
		}
		// Q·Kᵀ and P·V: B x heads x Sq x Skv x (D + Dv)
		q, k, y := in(0), in(1), out(0)
		if !q.Known || !k.Known || !y.Known || len(q.Dims) != len(k.Dims) {
			return MACResult{Counted: true}
		}
		if len(q.Dims) == 4 && len(y.Dims) == 4 {
			d, dv := q.Dims[3], y.Dims[3]
			return counted(DimsShape(q.Dims[0], q.Dims[1], q.Dims[2], k.Dims[2]), DimsShape(DimAdd(d, dv)))
		}
		return MACResult{Counted: true}
	case "Einsum":
		return einsumMACs(n)
	case "Loop", "Scan":
		body := n.AttrGraph("body")
		if body == nil {
			return MACResult{}
		}
		b := graphMACs(body, 0)
		if !b.Counted {
			return b
		}
		trip, ok := tripCount(n)
		if !ok {
			b.Known = false
			return b
		}
		b.MACs *= trip
		return b
	case "If":
		var best MACResult
		for _, g := range n.Subgraphs() {
			r := graphMACs(g, 0)
			if r.Counted {
				best.Counted = true
				best.Known = best.Known || r.Known
				if r.MACs > best.MACs {
					best.MACs = r.MACs
				}
			}
		}
		return best
	}
	return MACResult{}
}

// graphMACs sums the MACs of every node of g.
func graphMACs(g *Graph, depth int) MACResult {
	res := MACResult{Known: true}
	if depth > maxSubgraphDepth {
		return MACResult{}
	}
	for _, n := range g.Nodes {
		r := NodeMACs(n)
		if !r.Counted {
			continue
		}
		res.Counted = true
		res.MACs += r.MACs
		res.Known = res.Known && r.Known
	}
	return res
}

// tripCount returns the static iteration count of a Loop (its M input or
// the length of a Known value) or a Scan (the scan axis of its first scan
// input).
func tripCount(n *Node) (int64, bool) {
	switch n.Op {
	case "Loop":
		if m := n.Input(0); m != nil {
			if len(m.Known()) == 1 && m.Known()[0].IsConcrete() {
				return m.Known()[0].Val, true
			}
			if m.Const != nil {
				if v, err := m.Const.Int64Values(1); err == nil && len(v) == 1 {
					return v[0], true
				}
			}
		}
	case "Scan":
		nScan := int(n.AttrInt("num_scan_inputs", 0))
		body := n.AttrGraph("body")
		if body == nil || nScan <= 0 {
			return 0, false
		}
		first := len(n.Inputs) - nScan // opset >= 9: no sequence_lens input
		x := n.Input(first)
		if x == nil || !x.Type.Shape.Known {
			return 0, false
		}
		axis := int64(0)
		if ax, ok := n.AttrInts("scan_input_axes"); ok && len(ax) > 0 {
			axis = ax[0]
		}
		dims := x.Type.Shape.Dims
		if axis < 0 {
			axis += int64(len(dims))
		}
		if axis < 0 || axis >= int64(len(dims)) || !dims[axis].IsConcrete() {
			return 0, false
		}
		return dims[axis].Val, true
	}
	return 0, false
}

// einsumMACs counts one multiply-add per point of the full index space
// when the equation contracts or multiplies operands.
func einsumMACs(n *Node) MACResult {
	eq := strings.ReplaceAll(n.AttrString("equation", ""), " ", "")
	lhs := eq
	if i := strings.Index(eq, "->"); i >= 0 {
		lhs = eq[:i]
	}
	terms := strings.Split(lhs, ",")
	if len(terms) != len(n.Inputs) || strings.Contains(lhs, "...") {
		return MACResult{Counted: true}
	}
	size := map[byte]Dim{}
	var letters []byte
	for i, t := range terms {
		s := n.Inputs[i].Type.Shape
		if !s.Known || len(s.Dims) != len(t) {
			return MACResult{Counted: true}
		}
		for j := 0; j < len(t); j++ {
			if _, ok := size[t[j]]; !ok {
				size[t[j]] = s.Dims[j]
				letters = append(letters, t[j])
			}
		}
	}
	dims := make([]Dim, 0, len(letters))
	for _, l := range letters {
		dims = append(dims, size[l])
	}
	return func() MACResult {
		m, ok := product(DimsShape(dims...))
		return MACResult{MACs: m, Known: ok, Counted: true}
	}()
}

// product multiplies the dims of all shapes; ok is false when any dim is
// not concrete or the product overflows.
func product(shapes ...Shape) (int64, bool) {
	p := int64(1)
	for _, s := range shapes {
		if !s.Known {
			return 0, false
		}
		for _, d := range s.Dims {
			if !d.IsConcrete() {
				return 0, false
			}
			if d.Val != 0 && p > maxDimValue/d.Val {
				return 0, false
			}
			p *= d.Val
		}
	}
	return p, true
}
