package ir

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"testing"
)

// TestHash: the hash is the same for the same model, and changes with
// every edit a pass can make.
func TestHash(t *testing.T) {
	base := func() *Model {
		m, _, _ := twoNodeChain()
		w := m.Graph.AddInitializer((&Tensor{Name: "w", DType: Float32, Dims: []int64{2}}).SetFloats([]float32{1, 2}))
		n := m.Graph.AddNode("Add", "", "c", []*Value{m.Graph.Outputs[0], w}, []string{"yc"}, &Attr{Name: "k", Type: AttrInts, Ints: []int64{1, 2}})
		m.Graph.Outputs = []*Value{n.Outputs[0]}
		return m
	}
	m := base()
	h := Hash(m)
	if h != Hash(m) {
		t.Fatal("two hashes of one model differ")
	}
	for _, tc := range []struct {
		name string
		edit func(m *Model)
		same bool
	}{
		{"nothing", func(*Model) {}, true},
		{"sort of a sorted graph", func(m *Model) { SortNodes(m.Graph) }, true},
		{"node renamed", func(m *Model) { m.Graph.Nodes[0].Name = "a2" }, false},
		{"op changed", func(m *Model) { m.Graph.Nodes[1].Op = "Abs" }, false},
		{"value renamed", func(m *Model) { m.Graph.Nodes[0].Outputs[0].Name = "z" }, false},
		{"type changed", func(m *Model) { m.Graph.Nodes[0].Outputs[0].Type = TensorType(Float32, ShapeOf(3)) }, false},
		{"attribute list changed", func(m *Model) { m.Graph.Nodes[2].Attrs[0].Ints[1] = 3 }, false},
		{"attribute added", func(m *Model) {
			m.Graph.Nodes[0].Attrs = append(m.Graph.Nodes[0].Attrs, &Attr{Name: "alpha", Type: AttrFloat, F: 0.5})
		}, false},
		{"constant replaced", func(m *Model) {
			v := m.Graph.Initializers[0]
			c := *v.Const
			v.Const = &c
		}, false},
		{"input rewired", func(m *Model) { m.Graph.Nodes[1].SetInput(0, m.Graph.Inputs[0]) }, false},
		{"node removed", func(m *Model) {
			b := m.Graph.Nodes[1]
			b.Outputs[0].ReplaceAllUses(m.Graph.Nodes[0].Outputs[0])
			m.Graph.RemoveNode(b)
		}, false},
		{"nodes reordered", func(m *Model) { m.Graph.Nodes[0], m.Graph.Nodes[1] = m.Graph.Nodes[1], m.Graph.Nodes[0] }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := base() // a build of its own: tensors count by identity
			before := Hash(m)
			tc.edit(m)
			if got := Hash(m) == before; got != tc.same {
				t.Fatalf("hash unchanged = %v, want %v", got, tc.same)
			}
		})
	}
}

// TestHasherIsFNV64a: the hasher computes hash/fnv's 64-bit FNV-1a of
// what it is given (lengths as 8 little-endian bytes, then the bytes;
// pointers as fmt's %p), so fingerprints did not change when it stopped
// going through hash/fnv.
func TestHasherIsFNV64a(t *testing.T) {
	h, f := &hasher{sum: fnvOffset}, fnv.New64a()
	fstr := func(s string) {
		f.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(s))))
		f.Write([]byte(s))
	}
	tensor := &Tensor{Name: "w"}
	for _, s := range []string{"", "a", "float32[2,3]", "%x y", "\xff\x00"} {
		h.str(s)
		fstr(s)
	}
	h.int(-1)
	f.Write(binary.LittleEndian.AppendUint64(nil, ^uint64(0)))
	h.appended(append(h.buf[:0], "%name"...))
	fstr("%name")
	h.ptr(tensor)
	fstr(fmt.Sprintf("%p", tensor))
	h.ptr((*Tensor)(nil))
	fstr(fmt.Sprintf("%p", (*Tensor)(nil)))
	if h.sum != f.Sum64() {
		t.Errorf("hasher sum %016x, hash/fnv New64a %016x", h.sum, f.Sum64())
	}
}
