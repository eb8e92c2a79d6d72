package optimize

// This file words the batching passes' refusals.

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// refuseMixedSiblings records, for siblings of one op reading x whose
// batching keys differ (weights of other shapes, dtypes or attributes),
// that the ones left alone were not batched with the first group: the
// saving is a launch and a read of x per op left out.
func (c *Context) refuseMixedSiblings(x *ir.Value, keys []string, byKey map[string][]hCand) {
	if !c.Opt.Refusals || len(keys) < 2 {
		return
	}
	firstOf := map[string]hCand{} // op -> first candidate seen
	for _, k := range keys {
		op, _, _ := strings.Cut(k, "|")
		cs := byKey[k]
		f, ok := firstOf[op]
		if !ok {
			firstOf[op] = cs[0]
			continue
		}
		if len(cs) >= 2 {
			continue // batched among themselves
		}
		a, b := f.n, cs[0].n
		c.Refuse(ir.RefuseShapes, []*ir.Node{a, b}, fmt.Sprintf("%s and %s both read %s but shapes differ: weights %s vs %s", labelOp(a), labelOp(b), x.Name, weightDesc(a), weightDesc(b)),
			Saving{Bytes: valueBytes(x), Kernels: 1})
	}
}

// weightDesc is a node's weight as "[64 128] float32".
func weightDesc(n *ir.Node) string {
	w := constOf(n.Input(1))
	if w == nil {
		return "?"
	}
	return fmt.Sprintf("%v %s", w.Dims, w.DType)
}
