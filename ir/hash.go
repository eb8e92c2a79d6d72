package ir

// This file implements the graph hash that tells whether a pass changed a
// model (explain's "unchanged", merged dumps).

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strconv"
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
	h := &hasher{sum: fnvOffset}
	h.graph(m.Graph)
	for _, f := range m.Functions {
		h.str(f.Domain)
		h.str(f.Name)
		h.graph(f.Body)
	}
	return fmt.Sprintf("%016x", h.sum)
}

// The hasher is 64-bit FNV-1a (hash/fnv's New64a) computed in place: no
// interface call and no []byte copy of each string (explain hashes the
// model after every pass: at 100k nodes those copies were a third of its
// time). The fingerprints are hash/fnv's, byte for byte.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

type hasher struct {
	sum uint64
	num [8]byte // int's scratch
	buf []byte  // appended's scratch
}

func (h *hasher) write(s string) {
	for i := 0; i < len(s); i++ {
		h.sum = (h.sum ^ uint64(s[i])) * fnvPrime
	}
}

func (h *hasher) writeBytes(b []byte) {
	for _, c := range b {
		h.sum = (h.sum ^ uint64(c)) * fnvPrime
	}
}

func (h *hasher) int(v int64) {
	binary.LittleEndian.PutUint64(h.num[:], uint64(v))
	h.writeBytes(h.num[:])
}

func (h *hasher) str(s string) {
	h.int(int64(len(s)))
	h.write(s)
}

// appended is str(string(b)) for text b appended to h.buf[:0], which it
// keeps as the scratch: no string is built for it.
func (h *hasher) appended(b []byte) {
	h.buf = b
	h.int(int64(len(b)))
	h.writeBytes(b)
}

// ptr counts a tensor (or any pointer) by identity, as fmt's %p writes it.
func (h *hasher) ptr(p any) {
	h.appended(strconv.AppendUint(append(h.buf[:0], "0x"...), uint64(reflect.ValueOf(p).Pointer()), 16))
}

// value writes a reference to v as the text form prints it (its name, or
// its ID when it has none) with its type and constant.
func (h *hasher) value(v *Value) {
	if v == nil {
		h.int(-1)
		return
	}
	h.appended(appendValueRef(h.buf[:0], v))
	h.appended(v.Type.AppendText(h.buf[:0]))
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
	each(h, g.Sparse(), func(s *SparseInitializer) {
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
