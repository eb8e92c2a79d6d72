package optimize

// This file holds what the batching passes share: concatenating constant
// weights (cached, so a weight set batched at every time step is built
// once) and splitting a batched result back into the original values.

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// concatConsts concatenates constant tensors along axis (all of the same
// dtype and rank, equal except along axis), or returns nil. The result is
// derived: its bytes are computed from the parts when read (derived.go).
func concatConsts(name string, ts []*ir.Tensor, axis int) *ir.Tensor {
	if len(ts) == 0 || ts[0] == nil {
		return nil
	}
	dt, rank := ts[0].DType, len(ts[0].Dims)
	if axis < 0 || axis >= rank || dt.Bits() < 8 || dt.Bits()%8 != 0 {
		return nil
	}
	esize := int64(dt.Bits() / 8)
	dims := append([]int64(nil), ts[0].Dims...)
	dims[axis] = 0
	src := &concatSource{outer: 1}
	for _, d := range dims[:axis] {
		src.outer *= d
	}
	for _, t := range ts {
		if t == nil || t.DType != dt || len(t.Dims) != rank {
			return nil
		}
		for d := range t.Dims {
			if d != axis && t.Dims[d] != ts[0].Dims[d] {
				return nil
			}
		}
		r := packedSource(t)
		if r == nil {
			return nil
		}
		dims[axis] += t.Dims[axis]
		chunk := esize
		for _, d := range t.Dims[axis:] {
			chunk *= d
		}
		src.parts = append(src.parts, r)
		src.chunks = append(src.chunks, chunk)
		src.block += chunk
	}
	if src.outer == 0 || src.block == 0 {
		return nil
	}
	return derived(name, dt, dims, src)
}

// weightCache remembers concatenated weights by their parts.
type weightCache map[string]*ir.Value

func (wc weightCache) concat(c *Context, parts []*ir.Value, axis int) *ir.Value {
	// what fmt's "%d:" of axis and "%p," of each part write, without fmt
	// (hbatch asks it for every group of heads, tbatch for every group of
	// steps)
	var key strings.Builder
	var num [20]byte
	key.Write(strconv.AppendInt(num[:0], int64(axis), 10))
	key.WriteByte(':')
	for _, p := range parts {
		key.WriteString("0x")
		key.Write(strconv.AppendUint(num[:0], uint64(reflect.ValueOf(p).Pointer()), 16))
		key.WriteByte(',')
	}
	if v := wc[key.String()]; v != nil {
		return v
	}
	ts := make([]*ir.Tensor, len(parts))
	for i, p := range parts {
		ts[i] = constOf(p)
	}
	t := concatConsts(c.newName(parts[0].Name+"_batched"), ts, axis)
	if t == nil {
		return nil
	}
	v := c.Graph().AddInitializer(t)
	wc[key.String()] = v
	return v
}

// splitInto adds a Split of v along axis whose outputs are outs (existing
// values, which keep their names and uses), with the sizes given. The
// split sizes are an input from opset 13 and an attribute before.
func splitInto(c *Context, v *ir.Value, axis int, sizes []int64, outs []*ir.Value) *ir.Node {
	g := c.Graph()
	n := &ir.Node{Name: c.newName("split"), Op: "Split", Outputs: outs}
	n.Attrs = []*ir.Attr{c.intAttr("axis", int64(axis))}
	if c.Model.Opset("") >= 13 {
		key := fmt.Sprint(sizes)
		if c.sizes == nil {
			c.sizes = map[string]*ir.Value{}
		}
		sv := c.sizes[key]
		if sv == nil || sv.Graph != g {
			sv = g.AddInitializer(i64Tensor(c.newName("split_sizes"), sizes))
			c.sizes[key] = sv
		}
		n.Inputs = []*ir.Value{v, sv}
	} else {
		n.Inputs = []*ir.Value{v}
		n.Attrs = append(n.Attrs, &ir.Attr{Name: "split", Type: ir.AttrInts, Ints: append([]int64(nil), sizes...)})
	}
	g.AttachNode(n)
	return n
}

// concatOf adds a Concat of vs along axis with output type t.
func concatOf(c *Context, vs []*ir.Value, axis int, t ir.Type) *ir.Value {
	n := &ir.Node{Name: c.newName("concat"), Op: "Concat", Inputs: vs,
		Attrs: []*ir.Attr{c.intAttr("axis", int64(axis))}}
	out := c.Graph().NewValue(n.Name+"_out", t)
	n.Outputs = []*ir.Value{out}
	c.Graph().AttachNode(n)
	return out
}

// i64Tensor packs vals into a 1-D int64 tensor.
func i64Tensor(name string, vals []int64) *ir.Tensor {
	raw := make([]byte, 8*len(vals))
	for i, v := range vals {
		for b := 0; b < 8; b++ {
			raw[8*i+b] = byte(uint64(v) >> (8 * b))
		}
	}
	return &ir.Tensor{Name: name, DType: ir.Int64, Dims: []int64{int64(len(vals))}, Raw: raw}
}

// withDim returns t with dimension axis set to d.
func withDim(t ir.Type, axis int, d int64) ir.Type {
	t = t.Clone()
	if axis >= 0 && axis < len(t.Shape.Dims) {
		t.Shape.Dims[axis] = ir.D(d)
	}
	return t
}

// attrsEqual reports whether a and b carry the same attributes (names,
// kinds, values), ignoring order.
func attrsEqual(a, b *ir.Node) bool {
	if len(a.Attrs) != len(b.Attrs) {
		return false
	}
	for _, x := range a.Attrs {
		y := b.Attr(x.Name)
		if y == nil {
			return false
		}
		var kx, ky strings.Builder
		attrKey(&kx, x, nil)
		attrKey(&ky, y, nil)
		if kx.String() != ky.String() {
			return false
		}
	}
	return true
}
