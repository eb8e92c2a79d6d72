package simulate

// This file implements the estimate memo's key: a hash of everything the
// cost model's estimate of a node (cost.Model.Node) reads of the node and
// around it, the hardware, the cost options and the model's functions
// aside (estimateMemo.usable checks those).
//
// What Node reads, and so what the key covers:
//   - the node's op and domain, its attributes (names, kinds, numbers,
//     strings, tensors by identity: ir.Tensors are not changed in place),
//     and for a fused kernel its body: the body's formal inputs and
//     outputs and every member node, each keyed as a node;
//   - for each input and output slot: absent or not; the value's kind,
//     element type and shape (dims and symbols); its constant (by
//     identity) and known elements; whether it has a producer and whether
//     that is a Constant node (packed weights, casts of weights); whether
//     it has uses and whether the node is its first user (casts); and
//     for an output, whether its graph outputs it (load-time folding,
//     casts of graph outputs);
//   - whether the node's graph is a main graph (casts of graph inputs).
//
// A string counts by its bytes' address and length: an equal string at
// another address makes a different key (a miss, never a wrong hit).
// Names of nodes and values are left out: only an unknown estimate's
// reason names them, and an unknown estimate is not memoized. A node the
// key does not cover gets key 0 and is estimated every run: one holding
// a body other than a fused kernel's (If, Loop, Scan: their estimates
// read trip counts from constants and the opset), one with a sparse or
// type-proto attribute, or a value that is not a tensor.

import (
	"hash/maphash"
	"math"
	"unsafe"

	"github.com/wolong-dev/wolong/ir"
)

// maxKeyDepth bounds fused bodies nested in fused bodies.
const maxKeyDepth = 8

// keySeed seeds the keys' hash: keys are compared within one process.
var keySeed = maphash.MakeSeed()

// memoKey returns the key of n's estimate, 0 when n is not memoized; buf
// is scratch space the caller may pass again.
func memoKey(n *ir.Node, buf *[]uint64) uint64 {
	h := keyHash{w: (*buf)[:0]}
	ok := h.node(n, 0)
	*buf = h.w
	if !ok {
		return 0
	}
	k := maphash.Bytes(keySeed, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(h.w))), 8*len(h.w)))
	if k == 0 {
		return 1 // 0 means "no key"
	}
	return k
}

// keyHash collects the words a key hashes: each part's lengths come
// before its variable parts, so that two different inputs give different
// words.
type keyHash struct{ w []uint64 }

func (h *keyHash) word(w uint64) { h.w = append(h.w, w) }

func (h *keyHash) ptr(p unsafe.Pointer) { h.word(uint64(uintptr(p))) }

func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// str hashes s by its bytes' address and length.
func (h *keyHash) str(s string) {
	h.ptr(unsafe.Pointer(unsafe.StringData(s)))
	h.word(uint64(len(s)))
}

func (h *keyHash) bytes(b []byte) {
	h.word(uint64(len(b)))
	for _, c := range b { // []byte may change in place: by content
		h.word(uint64(c))
	}
}

func (h *keyHash) node(n *ir.Node, depth int) bool {
	if depth > maxKeyDepth {
		return false
	}
	h.str(n.Op)
	h.str(n.Domain)
	g := n.Graph
	h.word(uint64(len(n.Attrs)) | uint64(len(n.Inputs))<<20 | uint64(len(n.Outputs))<<40 |
		flag(g == nil)<<60 | flag(g != nil && g.Parent == nil)<<61)
	for _, a := range n.Attrs {
		if !h.attr(n, a, depth) {
			return false
		}
	}
	for _, v := range n.Inputs {
		if !h.value(v, n, nil) {
			return false
		}
	}
	for _, v := range n.Outputs {
		if !h.value(v, n, g) {
			return false
		}
	}
	return true
}

func (h *keyHash) attr(n *ir.Node, a *ir.Attr, depth int) bool {
	if a == nil {
		h.word(0)
		return true
	}
	if a.ST != nil || len(a.SparseTensors) > 0 || len(a.TypeProtos) > 0 || len(a.Graphs) > 0 {
		return false
	}
	h.str(a.Name)
	h.str(a.RefAttrName)
	h.word(uint64(a.Type) | uint64(math.Float32bits(a.F))<<32)
	h.word(uint64(a.I))
	h.ptr(unsafe.Pointer(a.T))
	h.ptr(unsafe.Pointer(a.TP))
	h.bytes(a.S)
	h.word(uint64(len(a.Floats)) | uint64(len(a.Ints))<<21 | uint64(len(a.Strings))<<42)
	for _, f := range a.Floats {
		h.word(uint64(math.Float32bits(f)))
	}
	for _, i := range a.Ints {
		h.word(uint64(i))
	}
	for _, s := range a.Strings {
		h.bytes(s)
	}
	h.word(uint64(len(a.Tensors)))
	for _, t := range a.Tensors {
		h.ptr(unsafe.Pointer(t))
	}
	if a.G != nil {
		if a.Name != ir.FusedBodyAttr || ir.FusedBody(n) != a.G {
			return false // a control-flow body
		}
		return h.body(a.G, depth)
	}
	h.word(0)
	return true
}

// body hashes a fused kernel's body: formal inputs and outputs, members.
func (h *keyHash) body(b *ir.Graph, depth int) bool {
	h.word(1 | uint64(len(b.Inputs))<<1 | uint64(len(b.Outputs))<<21 | uint64(len(b.Nodes))<<41)
	for _, v := range b.Inputs {
		if !h.value(v, nil, nil) {
			return false
		}
	}
	for _, v := range b.Outputs {
		if !h.value(v, nil, nil) {
			return false
		}
	}
	for _, m := range b.Nodes {
		if !h.node(m, depth+1) {
			return false
		}
	}
	return true
}

// value hashes what Node reads of v, a slot of n (nil for a body's formal
// value); out is the graph whose outputs v may be (nil: not asked). One
// word packs the type's kind and flags, the lengths and the flags of the
// value; then come the constant, the dims and the known elements.
func (h *keyHash) value(v *ir.Value, n *ir.Node, out *ir.Graph) bool {
	if v == nil {
		h.word(0)
		return true
	}
	t := &v.Type
	if t.Kind != ir.KindTensor || len(t.Shape.Dims) >= 1<<12 || len(v.Known) >= 1<<12 || uint64(t.DType) >= 1<<16 {
		return false
	}
	sym := false
	for _, d := range t.Shape.Dims {
		sym = sym || d.Sym != ""
	}
	for _, d := range v.Known {
		sym = sym || d.Sym != ""
	}
	p := v.Producer
	h.word(1 | uint64(t.DType)<<1 | uint64(len(t.Shape.Dims))<<17 | uint64(len(v.Known))<<29 |
		flag(t.Shape.Known)<<41 | flag(v.Known == nil)<<42 | flag(sym)<<43 |
		flag(p == nil)<<44 | flag(p.Is(ir.OpConstant))<<45 |
		flag(len(v.Uses) == 0)<<46 | flag(len(v.Uses) > 0 && n != nil && v.Uses[0].Node == n)<<47 |
		flag(out != nil)<<48 | flag(out != nil && out.IsOutput(v))<<49)
	h.ptr(unsafe.Pointer(v.Const))
	for _, d := range t.Shape.Dims {
		h.word(uint64(d.Val))
	}
	for _, d := range v.Known {
		h.word(uint64(d.Val))
	}
	if sym {
		for _, d := range t.Shape.Dims {
			h.str(d.Sym)
		}
		for _, d := range v.Known {
			h.str(d.Sym)
		}
	}
	return true
}
