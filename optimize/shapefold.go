package optimize

// This file implements shape-computation folding.

import (
	"encoding/binary"
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// shapeFold replaces nodes whose every output inference has already
// computed — a constant (Value.Const) or a fully concrete integer value
// (Value.Known: Shape, Size, and the Gather/Concat/Slice chains over them
// under static shapes) — by initializers, then constant-folds what the
// new constants feed (a Concat of a known dim and a -1). What is left of the shape
// subgraph becomes dead and dce deletes it. Graph outputs are left alone.
func shapeFold(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	order := nodesInOrder(g)
	var rw []Rewrite
	for _, n := range order {
		if !foldable(g, n) || n.Is(ir.OpConstant) && len(n.Outputs[0].Uses) == 0 {
			continue
		}
		ts := make([]*ir.Tensor, len(n.Outputs))
		ok := true
		for i, o := range n.Outputs {
			if o == nil {
				continue
			}
			t := knownTensor(o)
			if t == nil || t.ByteSize() > c.Opt.FoldMaxBytes {
				ok = false
				break
			}
			ts[i] = t
		}
		if !ok {
			continue
		}
		promote(g, n, ts)
		remark := fmt.Sprintf("%s value known from shapes", n.QualifiedOp())
		if n.Is(ir.OpConstant) {
			remark = "Constant to initializer"
		}
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, Remark: remark})
	}
	g.SweepNodes()
	if len(rw) > 0 {
		// What consumed the known values may now have constant inputs only
		// (Concat of a known dim and a -1, Unsqueeze, Cast ...).
		more, err := constFold(c)
		if err != nil {
			return nil, err
		}
		rw = append(rw, more...)
	}
	return rw, nil
}

// knownTensor returns o's value as a tensor when inference proved it.
func knownTensor(o *ir.Value) *ir.Tensor {
	if o.Const != nil {
		t := *o.Const
		return &t
	}
	if o.Known() == nil || !o.Type.IsTensor() || (o.Type.DType != ir.Int64 && o.Type.DType != ir.Int32) {
		return nil
	}
	dims, ok := o.Type.Shape.Ints()
	if !ok {
		return nil
	}
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	if n != int64(len(o.Known())) {
		return nil
	}
	size := 8
	if o.Type.DType == ir.Int32 {
		size = 4
	}
	raw := make([]byte, size*len(o.Known()))
	for i, d := range o.Known() {
		if !d.IsConcrete() {
			return nil
		}
		if size == 8 {
			binary.LittleEndian.PutUint64(raw[8*i:], uint64(d.Val))
		} else {
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(int32(d.Val)))
		}
	}
	return &ir.Tensor{Name: o.Name, DType: o.Type.DType, Dims: dims, Raw: raw}
}
