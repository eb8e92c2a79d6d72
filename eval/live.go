package eval

// This file implements the evaluator's memory bookkeeping: the per-graph
// liveness plan (after which node each value of a scope is last read, so
// the driver can drop it) and the live set, the bytes of the tensors held
// in all scopes of a run, bounded by Options.MaxMemory.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// liveness is the release plan of one graph for its topological order.
type liveness struct {
	// unread are g's inputs no node reads (dropped before the first node).
	unread []*ir.Value
	// after[i] are the values of g's scope last read by order[i], or
	// produced by it and never read, dropped once order[i] has run.
	after [][]*ir.Value
}

// planLiveness computes when each value owned by g's scope (g's inputs and
// the outputs of its nodes) is last needed. A node reads its inputs and,
// through its subgraphs at any depth, every value they reference (outer
// scope captures) and every value whose name matches one of their inputs
// (RunSubgraph binds a missing subgraph input to the outer value of that
// name). g's outputs are never dropped: the caller (a parent node, the
// next loop iteration, Run) takes them.
func planLiveness(g *ir.Graph, order []*ir.Node) *liveness {
	last := map[*ir.Value]int{}
	byName := map[string][]*ir.Value{}
	own := func(v *ir.Value, at int) {
		if v == nil || v.Name == "" {
			return
		}
		if _, ok := last[v]; !ok {
			byName[v.Name] = append(byName[v.Name], v)
		}
		last[v] = at
	}
	read := func(v *ir.Value, at int) {
		if _, ok := last[v]; ok {
			last[v] = at
		}
	}
	for _, in := range g.Inputs {
		own(in, -1)
	}
	for i, n := range order {
		for _, in := range n.Inputs {
			if in != nil {
				read(in, i)
			}
		}
		if sgs := n.Subgraphs(); len(sgs) > 0 {
			refs, names := subgraphRefs(sgs)
			for v := range refs {
				read(v, i)
			}
			for name := range names {
				for _, v := range byName[name] {
					read(v, i)
				}
			}
		}
		for _, o := range n.Outputs {
			own(o, i)
		}
	}
	keep := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		if o != nil {
			keep[o] = true
		}
	}
	lv := &liveness{after: make([][]*ir.Value, len(order))}
	// Walk in a fixed order (inputs, then node outputs) so the plan is
	// deterministic.
	add := func(v *ir.Value) {
		at, ok := last[v]
		if !ok || keep[v] {
			return
		}
		keep[v] = true // once
		if at < 0 {
			lv.unread = append(lv.unread, v)
		} else {
			lv.after[at] = append(lv.after[at], v)
		}
	}
	for _, in := range g.Inputs {
		if in != nil {
			add(in)
		}
	}
	for _, n := range order {
		for _, o := range n.Outputs {
			if o != nil {
				add(o)
			}
		}
	}
	return lv
}

// subgraphRefs returns every value referenced inside the graphs sgs at any
// depth (node inputs and graph outputs) and the names of their inputs.
func subgraphRefs(sgs []*ir.Graph) (map[*ir.Value]bool, map[string]bool) {
	refs := map[*ir.Value]bool{}
	names := map[string]bool{}
	var visit func(g *ir.Graph, depth int)
	visit = func(g *ir.Graph, depth int) {
		if depth > maxDepth {
			return
		}
		for _, in := range g.Inputs {
			if in != nil && in.Name != "" {
				names[in.Name] = true
			}
		}
		for _, o := range g.Outputs {
			if o != nil {
				refs[o] = true
			}
		}
		for _, m := range g.Nodes {
			for _, in := range m.Inputs {
				if in != nil {
					refs[in] = true
				}
			}
			for _, s := range m.Subgraphs() {
				visit(s, depth+1)
			}
		}
	}
	for _, g := range sgs {
		visit(g, 0)
	}
	return refs, names
}

// plan returns g's cached liveness plan for its topological order.
func (e *Evaluator) plan(g *ir.Graph, order []*ir.Node) *liveness {
	if lv, ok := e.lives[g]; ok {
		return lv
	}
	lv := planLiveness(g, order)
	e.lives[g] = lv
	return lv
}

// liveSet counts the bytes of the tensors held in the scopes of a run.
// Tensors that share storage (a Reshape's view, a value bound in a parent
// and a subgraph scope) count once: buffers are keyed by the end of their
// backing array, which every subslice shares.
type liveSet struct {
	bytes int64
	peak  int64
	bufs  map[any]*liveBuf
}

type liveBuf struct {
	refs  int
	bytes int64
}

// bufferOf returns t's storage key and its bytes (nil key: no storage).
func bufferOf(t *Tensor) (any, int64) {
	if t == nil {
		return nil, 0
	}
	b := int64(t.Len()) * elemBytes(t.DType)
	switch t.cls() {
	case clsF:
		if c := cap(t.F); c > 0 {
			return &t.F[:c][c-1], b
		}
	case clsD:
		if c := cap(t.D); c > 0 {
			return &t.D[:c][c-1], b
		}
	case clsI:
		if c := cap(t.I); c > 0 {
			return &t.I[:c][c-1], b
		}
	case clsB:
		if c := cap(t.B); c > 0 {
			return &t.B[:c][c-1], b
		}
	case clsS:
		if c := cap(t.S); c > 0 {
			return &t.S[:c][c-1], b
		}
	}
	return nil, 0
}

// tensorsOf calls fn for every tensor a runtime value holds.
func tensorsOf(v Value, fn func(*Tensor)) {
	switch x := v.(type) {
	case *Tensor:
		fn(x)
	case *Sequence:
		if x != nil {
			for _, t := range x.Items {
				fn(t)
			}
		}
	case *Optional:
		if x != nil && x.Value != nil {
			tensorsOf(x.Value, fn)
		}
	}
}

// hold adds v's tensors to the live set.
func (l *liveSet) hold(v Value) {
	tensorsOf(v, func(t *Tensor) {
		k, b := bufferOf(t)
		if k == nil {
			return
		}
		if l.bufs == nil {
			l.bufs = map[any]*liveBuf{}
		}
		lb := l.bufs[k]
		if lb == nil {
			lb = &liveBuf{}
			l.bufs[k] = lb
		}
		lb.refs++
		if b > lb.bytes {
			l.bytes += b - lb.bytes
			lb.bytes = b
		}
	})
	if l.bytes > l.peak {
		l.peak = l.bytes
	}
}

// release removes v's tensors from the live set.
func (l *liveSet) release(v Value) {
	tensorsOf(v, func(t *Tensor) {
		k, _ := bufferOf(t)
		if k == nil {
			return
		}
		lb := l.bufs[k]
		if lb == nil {
			return
		}
		if lb.refs--; lb.refs <= 0 {
			l.bytes -= lb.bytes
			delete(l.bufs, k)
		}
	})
}

// bind sets v to x in sc and counts x as live.
func (e *Evaluator) bind(sc *scope, v *ir.Value, x Value) {
	if old, ok := sc.vals[v]; ok {
		e.live.release(old)
	}
	sc.vals[v] = x
	e.live.hold(x)
}

// drop removes v from sc and from the live set.
func (e *Evaluator) drop(sc *scope, v *ir.Value) {
	if x, ok := sc.vals[v]; ok {
		delete(sc.vals, v)
		e.live.release(x)
	}
}

// releaseScope drops every value still bound in sc (the end of its run).
func (e *Evaluator) releaseScope(sc *scope) {
	for v, x := range sc.vals {
		e.live.release(x)
		delete(sc.vals, v)
	}
}

// checkLive fails when the live set exceeds the memory bound after n's
// outputs were bound.
func (e *Evaluator) checkLive(n *ir.Node) error {
	if e.live.bytes > e.opt.MaxMemory {
		return nodeErr(n, fmt.Errorf("would hold %d bytes of live tensors, %w of %d bytes", e.live.bytes, ErrMemoryLimit, e.opt.MaxMemory))
	}
	return nil
}

// PeakLiveBytes returns the largest number of bytes of tensors held live in
// the scopes of the last Run: the quantity Options.MaxMemory bounds as a
// whole (see Options.MaxMemory for how bytes are counted).
func (e *Evaluator) PeakLiveBytes() int64 { return e.live.peak }

// ScanPieceOverhead is the bytes a Loop or Scan holds per accumulated scan
// output piece besides its elements (the Tensor, its slice and the list
// entry), counted into the live set with it.
const ScanPieceOverhead = 128

// scanAccumulator counts a Loop's or Scan's accumulated scan outputs into
// the live set until they are stacked; release takes them out again.
type scanAccumulator struct {
	e     *Evaluator
	bytes int64
}

func pieceBytes(t *Tensor) int64 { return int64(t.Len())*elemBytes(t.DType) + ScanPieceOverhead }

// add counts piece t and fails once the live set exceeds the memory bound.
func (a *scanAccumulator) add(t *Tensor, iteration int64) error {
	b := pieceBytes(t)
	a.bytes += b
	l := &a.e.live
	l.bytes += b
	if l.bytes > l.peak {
		l.peak = l.bytes
	}
	if l.bytes > a.e.opt.MaxMemory {
		return fmt.Errorf("scan outputs of %d iterations, with %d bytes of tensors live in all, are %w of %d bytes", iteration+1, l.bytes, ErrMemoryLimit, a.e.opt.MaxMemory)
	}
	return nil
}

// drop takes pieces that are no longer held out of the count.
func (a *scanAccumulator) drop(ts []*Tensor) {
	for _, t := range ts {
		b := pieceBytes(t)
		a.bytes -= b
		a.e.live.bytes -= b
	}
}

// release takes the accumulated pieces out of the live set.
func (a *scanAccumulator) release() {
	a.e.live.bytes -= a.bytes
	a.bytes = 0
}
