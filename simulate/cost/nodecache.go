package cost

// This file implements the estimate cache: the optimizer predicts the
// whole model after every pass that rewrites it, and most passes touch a
// few of its nodes, so most estimates of a prediction are the last one's
// again (the estimates were a fifth to a quarter of optimize's CPU time
// on 100k-node graphs).
//
// An estimate is a function of the node and of what Node reads around
// it, with the hardware and Options fixed: the node's op, domain and
// attributes, and for each of its inputs and outputs the value, its type,
// constant, known elements, producer (and the producer's op), its number
// of uses and first user, and whether the graph outputs it. A signature
// hashes all of these (128 bits); a node whose signature is the one
// cached gets the cached estimate and notes. Values and constants count
// by identity and contents that passes may change in place (types,
// attributes) by value: tensors are never changed in place (ir.Tensor).
// Nodes holding subgraphs (control flow, fused kernels) and nodes that
// are not in the cost table (model-local functions, unknown ops) are
// estimated every time: what they read is a body, not a node.

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// EstimateCache holds the estimates of one graph's nodes between calls
// of Nodes (Model.Cache). One cache serves one hardware, Options and
// graph: given another, it starts afresh. It is not safe for concurrent
// use by two calls.
type EstimateCache struct {
	hw    *hw.Hardware
	opt   Options
	graph *ir.Graph
	gen   uint32
	byID  []cachedEstimate
}

type cachedEstimate struct {
	node  *ir.Node
	sig   [2]uint64
	gen   uint32
	est   Estimate
	notes []string // every note Node made for it, in order
}

// nodeResult is one node's estimate in a cached run of Nodes.
type nodeResult struct {
	sig   [2]uint64
	ok    bool // sig is the node's signature (it may be cached)
	hit   bool
	est   Estimate
	notes []string
}

// nodesCached is Nodes with m.Cache (nodes of one graph, m at depth 0).
func (m *Model) nodesCached(nodes []*ir.Node, set func(i int, e Estimate)) {
	c := m.Cache
	g := nodes[0].Graph
	if c.hw != m.HW || c.opt != m.Opt || c.graph != g {
		*c = EstimateCache{hw: m.HW, opt: m.Opt, graph: g}
	}
	c.gen++
	outs := make(map[*ir.Value]bool, len(g.Outputs))
	for _, o := range g.Outputs {
		outs[o] = true
	}
	res := make([]nodeResult, len(nodes))
	work := func(f *Model, lo, hi int) {
		var rec []string
		for i := lo; i < hi; i++ {
			n, r := nodes[i], &res[i]
			r.sig, r.ok = signature(n, g, outs)
			if r.ok && n.ID < len(c.byID) {
				if e := &c.byID[n.ID]; e.node == n && e.sig == r.sig {
					r.hit, r.est, r.notes = true, e.est, e.notes
					set(i, e.est)
					continue
				}
			}
			rec = rec[:0]
			f.rec = &rec
			r.est = f.Node(n)
			f.rec = nil
			if len(rec) > 0 {
				r.notes = append([]string(nil), rec...)
			}
			set(i, r.est)
		}
	}
	m.split(len(nodes), work)
	for i, n := range nodes {
		r := &res[i]
		for _, s := range r.notes {
			m.note(s)
		}
		if !r.ok || n.ID < 0 {
			continue
		}
		if n.ID >= len(c.byID) {
			c.byID = append(c.byID, make([]cachedEstimate, n.ID+1-len(c.byID))...)
		}
		e := &c.byID[n.ID]
		if !r.hit {
			*e = cachedEstimate{node: n, sig: r.sig, est: r.est, notes: r.notes}
		}
		e.gen = c.gen
	}
	for i := range c.byID { // forget the nodes the graph no longer holds
		if c.byID[i].gen != c.gen {
			c.byID[i] = cachedEstimate{}
		}
	}
}

// signature returns the hash of what Node reads of n (see the file
// comment), and false when n is estimated every time.
func signature(n *ir.Node, g *ir.Graph, outs map[*ir.Value]bool) ([2]uint64, bool) {
	if n.Graph != g || n.HasSubgraphs() {
		return [2]uint64{}, false
	}
	if _, ok := registry()[n.Key()]; !ok {
		return [2]uint64{}, false
	}
	var h sigHash
	h.ptr(unsafe.Pointer(n))
	h.str(n.Op)
	h.str(n.Domain)
	h.word(uint64(len(n.Attrs)))
	for _, a := range n.Attrs {
		h.ptr(unsafe.Pointer(a))
		h.str(a.Name)
		h.word(uint64(a.Type))
		h.word(uint64(a.I))
		h.word(uint64(math.Float32bits(a.F)))
		h.str(string(a.S))
		h.ptr(unsafe.Pointer(a.T))
		h.ptr(unsafe.Pointer(a.TP))
		h.word(uint64(len(a.Ints)))
		for _, v := range a.Ints {
			h.word(uint64(v))
		}
		h.word(uint64(len(a.Floats)))
		for _, v := range a.Floats {
			h.word(uint64(math.Float32bits(v)))
		}
		h.word(uint64(len(a.Strings)))
		for _, s := range a.Strings {
			h.str(string(s))
		}
		h.word(uint64(len(a.Tensors)))
		for _, t := range a.Tensors {
			h.ptr(unsafe.Pointer(t))
		}
		if a.ST != nil || len(a.SparseTensors) > 0 || len(a.TypeProtos) > 0 {
			return [2]uint64{}, false
		}
	}
	for _, vs := range [2][]*ir.Value{n.Inputs, n.Outputs} {
		h.word(uint64(len(vs)))
		for _, v := range vs {
			if !h.value(v, outs) {
				return [2]uint64{}, false
			}
		}
	}
	return h.sum(), true
}

// sigHash is a 128-bit hash of words: two lanes of wyhash's mix with
// different constants.
type sigHash struct{ a, b uint64 }

func (h *sigHash) word(w uint64) {
	mix := func(x, k uint64) uint64 {
		hi, lo := bits.Mul64(x, k)
		return hi ^ lo
	}
	h.a = mix(h.a^w^0xa0761d6478bd642f, 0xe7037ed1a0b428db)
	h.b = mix(h.b^w^0x8ebc6af09c88c6e3, 0x589965cc75374cc3)
}

func (h *sigHash) ptr(p unsafe.Pointer) { h.word(uint64(uintptr(p))) }

// str hashes s by its bytes' address and length: equal strings at other
// addresses hash differently (a miss, never a wrong hit).
func (h *sigHash) str(s string) {
	h.word(uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))))
	h.word(uint64(len(s)))
}

func (h *sigHash) sum() [2]uint64 { return [2]uint64{h.a, h.b} }

// value hashes what Node reads of v (false: a type the signature does
// not cover).
func (h *sigHash) value(v *ir.Value, outs map[*ir.Value]bool) bool {
	if v == nil {
		h.word(0)
		return true
	}
	h.ptr(unsafe.Pointer(v))
	t := &v.Type
	if t.Kind != ir.KindTensor || t.Elem != nil {
		return false
	}
	h.word(uint64(t.DType))
	h.word(uint64(len(t.Shape.Dims)))
	for _, d := range t.Shape.Dims {
		h.word(uint64(d.Val))
		h.str(d.Sym)
	}
	h.ptr(unsafe.Pointer(v.Const))
	h.word(uint64(len(v.Known)))
	for _, d := range v.Known {
		h.word(uint64(d.Val))
		h.str(d.Sym)
	}
	h.ptr(unsafe.Pointer(v.Producer))
	if p := v.Producer; p != nil {
		h.str(p.Op)
		h.str(p.Domain)
	}
	h.word(uint64(len(v.Uses)))
	if len(v.Uses) > 0 {
		h.ptr(unsafe.Pointer(v.Uses[0].Node))
	}
	if outs[v] {
		h.word(1)
	} else {
		h.word(2)
	}
	return true
}
