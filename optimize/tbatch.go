package optimize

// This file implements DyNet-style operator batching.
//
//	x_1 ──► MatMul(·, W) ──► y_1                     x_1 ┐
//	x_2 ──► MatMul(·, W) ──► y_2         ──►        x_2 ├► Concat ─► MatMul(·, W) ─► Split ─► y_1 … y_T
//	  …                                              …   │
//	x_T ──► MatMul(·, W) ──► y_T                     x_T ┘
//
// Ops with the same signature (op, the same constant weight, attributes,
// dtype and input shape but for the leading dimension) that are ready at
// the same time (the same depth in the DAG, so none depends on another)
// become one op over inputs concatenated along the leading axis: the
// input projections x_t·W of an unrolled RNN across time steps become one
// GEMM over T x B rows, as DyNet and TensorFlow Fold batch at run time.
// Only MatMul and Gemm (transA = 0) with a constant right operand batch;
// a recurrent h_t·U cannot (each step depends on the previous one).

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// maxTimeBatch caps the ops one DyNet batch combines.
const maxTimeBatch = 512

func tBatch(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	order := nodesInOrder(g)
	level := make([]int, g.NumNodeIDs()) // by node ID: 0 for nodes not listed
	// Groups are (signature, level) pairs: a model has a handful of
	// signatures and tens of thousands of pairs (one per MatMul of a deep
	// stack). Candidates are sorted by pair rather than hashed: a map of
	// a pair per MatMul missed the cache on every probe at 1M nodes.
	sigs := map[string]int32{}
	type cand struct{ sig, level, pos int32 }
	var cands []cand
	for i, n := range order {
		l := 0
		eachDep(g, n, func(d *ir.Node) { l = max(l, level[d.ID]+1) }) // a repeat cannot raise l
		level[n.ID] = l
		sig, ok := batchSignature(n)
		if !ok {
			continue
		}
		id, seen := sigs[sig]
		if !seen {
			id = int32(len(sigs))
			sigs[sig] = id
		}
		cands = append(cands, cand{id, int32(l), int32(i)})
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.sig, b.sig), cmp.Compare(a.level, b.level), cmp.Compare(a.pos, b.pos))
	})
	// Runs of one pair, each cut at maxTimeBatch members (the first in
	// order), in the order of their first member.
	type group struct {
		first int32 // position of the first member
		ns    []*ir.Node
	}
	var groups []group
	for i := 0; i < len(cands); {
		j := i + 1
		for j < len(cands) && cands[j].sig == cands[i].sig && cands[j].level == cands[i].level {
			j++
		}
		if j-i >= 2 {
			ns := make([]*ir.Node, 0, min(j-i, maxTimeBatch))
			for _, c := range cands[i:min(j, i+maxTimeBatch)] {
				ns = append(ns, order[c.pos])
			}
			groups = append(groups, group{cands[i].pos, ns})
		}
		i = j
	}
	slices.SortFunc(groups, func(a, b group) int { return cmp.Compare(a.first, b.first) })
	dead := map[*ir.Node]bool{}
	var rw []Rewrite
	for _, gr := range groups {
		rw = append(rw, tRewrite(c, gr.ns))
		for _, n := range gr.ns {
			dead[n] = true
		}
	}
	removeNodes(g, dead)
	return rw, nil
}

// batchSignature is the op, the weight (by identity), the attributes and
// the input's shape without its leading dimension.
func batchSignature(n *ir.Node) (string, bool) {
	if !isDefault(n) || len(n.Outputs) != 1 || n.Outputs[0] == nil || !n.IsAny(ir.OpMatMul, ir.OpGemm) {
		return "", false
	}
	a, w := n.Input(0), n.Input(1)
	if a == nil || a.Const != nil || constOf(w) == nil || len(constOf(w).Dims) != 2 {
		return "", false
	}
	dims, ok := staticDims(a)
	if !ok || len(dims) < 2 || n.Output(0).Type.Shape.Rank() != len(dims) {
		return "", false
	}
	// what fmt's "%s|%p|%s|%v" of the op, w, the dtype and dims[1:] writes,
	// without fmt (this runs for every MatMul)
	var b strings.Builder
	var num [20]byte
	b.WriteString(n.Op)
	b.WriteString("|0x")
	b.Write(strconv.AppendUint(num[:0], uint64(reflect.ValueOf(w).Pointer()), 16))
	b.WriteByte('|')
	b.WriteString(a.Type.DType.String())
	b.WriteString("|[")
	for i, d := range dims[1:] {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.Write(strconv.AppendInt(num[:0], d, 10))
	}
	b.WriteByte(']')
	if n.Is(ir.OpGemm) {
		if n.AttrInt("transA", 0) != 0 {
			return "", false
		}
		fmt.Fprintf(&b, "|%p", n.Input(2))
		for _, at := range n.Attrs {
			b.WriteString(at.Name + "=")
			attrKey(&b, at, nil)
		}
	}
	return b.String(), true
}

// tRewrite replaces ns by Concat + one op + Split.
func tRewrite(c *Context, ns []*ir.Node) Rewrite {
	g := c.Graph()
	first := ns[0]
	as := make([]*ir.Value, len(ns))
	outs := make([]*ir.Value, len(ns))
	sizes := make([]int64, len(ns))
	var total int64
	for i, n := range ns {
		dims, _ := staticDims(n.Input(0))
		as[i], outs[i], sizes[i] = n.Input(0), n.Output(0), dims[0]
		total += dims[0]
	}
	cat := concatOf(c, as, 0, withDim(as[0].Type, 0, total))
	ins := append([]*ir.Value{cat}, first.Inputs[1:]...)
	n := &ir.Node{Name: c.newName("batched_" + strings.ToLower(first.Op)), Op: first.Op, Inputs: ins, Attrs: first.Attrs}
	out := g.NewValue(n.Name+"_out", withDim(first.Output(0).Type, 0, total))
	n.Outputs = []*ir.Value{out}
	g.AttachNode(n)
	sp := splitInto(c, out, 0, sizes, outs)
	return Rewrite{Before: names(ns), After: []string{cat.Producer.Name, n.Name, sp.Name}, Sep: "||",
		Remark: fmt.Sprintf("%d independent %s ops on %s -> one op over %d rows", len(ns), first.Op, first.Input(1).Name, total)}
}
