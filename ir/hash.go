package ir

// This file implements the graph hash that tells whether a pass changed a
// model (explain's "unchanged", merged dumps).

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
)

// Hash returns a fingerprint of m's main graph and function bodies: graph
// names, inputs, initializers, outputs and, in order, every node's op,
// name, inputs, outputs with their types, and attributes with their values
// (subgraphs included). Two models with the same hash print the same text
// (Fprint) and run the same computation.
//
// Constant data is not read: a tensor counts by identity, so a pass that
// changes a constant must give it a new tensor (as every pass does), and
// hashes compare only within one process. Inference facts (Known values,
// declared types) are left out.
func Hash(m *Model) string {
	h := &hasher{h: fnv.New64a()}
	h.graph(m.Graph)
	for _, f := range m.Functions {
		h.str(f.Domain)
		h.str(f.Name)
		h.graph(f.Body)
	}
	return fmt.Sprintf("%016x", h.h.Sum64())
}

type hasher struct {
	h   hash.Hash64
	buf [8]byte
}

func (h *hasher) int(v int64) {
	binary.LittleEndian.PutUint64(h.buf[:], uint64(v))
	h.h.Write(h.buf[:])
}

func (h *hasher) str(s string) {
	h.int(int64(len(s)))
	h.h.Write([]byte(s))
}

// ptr counts a tensor (or any pointer) by identity.
func (h *hasher) ptr(p any) { h.str(fmt.Sprintf("%p", p)) }

// value writes a reference to v as the text form prints it (its name, or
// its ID when it has none) with its type and constant.
func (h *hasher) value(v *Value) {
	if v == nil {
		h.int(-1)
		return
	}
	h.str(valueRef(v))
	h.str(v.Type.String())
	if v.Const != nil {
		h.ptr(v.Const)
	}
}

func (h *hasher) graph(g *Graph) {
	if g == nil {
		h.int(-2)
		return
	}
	h.str(g.Name)
	for _, list := range [][]*Value{g.Inputs, g.Initializers, g.Outputs} {
		each(h, list, h.value)
	}
	each(h, g.Sparse, func(s *SparseInitializer) {
		h.value(s.Value)
		h.ptr(s.Sparse)
	})
	each(h, g.Nodes, func(n *Node) {
		h.str(n.Domain)
		h.str(n.Op)
		h.str(n.Name)
		each(h, n.Inputs, h.value)
		each(h, n.Outputs, h.value)
		each(h, n.Attrs, h.attr)
	})
}

func (h *hasher) attr(a *Attr) {
	h.str(a.Name)
	h.int(int64(a.Type))
	h.str(a.RefAttrName)
	h.int(int64(math.Float32bits(a.F)))
	h.int(a.I)
	h.str(string(a.S))
	h.ptr(a.T)
	h.graph(a.G)
	h.ptr(a.ST)
	if a.TP != nil {
		h.str(a.TP.String())
	}
	each(h, a.Floats, func(f float32) { h.int(int64(math.Float32bits(f))) })
	each(h, a.Ints, h.int)
	each(h, a.Strings, func(s []byte) { h.str(string(s)) })
	each(h, a.Tensors, func(t *Tensor) { h.ptr(t) })
	each(h, a.Graphs, h.graph)
	each(h, a.SparseTensors, func(t *SparseTensor) { h.ptr(t) })
	each(h, a.TypeProtos, func(t *Type) { h.str(t.String()) })
}

// each writes the length of xs, then each element with f.
func each[T any](h *hasher, xs []T, f func(T)) {
	h.int(int64(len(xs)))
	for _, x := range xs {
		f(x)
	}
}
