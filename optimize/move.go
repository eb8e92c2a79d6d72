package optimize

// This file holds the edits that move nodes between a graph and the
// If/Loop/Scan bodies nested in it (branchfold, loophoist).

import (
	"slices"

	"github.com/wolong-dev/wolong/ir"
)

// moveNode moves n from its graph to graph to, appended at the end (the
// driver restores the order). Its output values keep their identity,
// names, types and uses (readers in nested bodies included) and get IDs
// of to; the bodies n holds get to as their parent graph. n stays listed
// in the graph it left until the caller's sweepNodes of that graph.
func moveNode(n *ir.Node, to *ir.Graph) {
	removeNode(n.Graph, n) // drops n's uses of its inputs; AttachNode records them again
	for _, o := range n.Outputs {
		if o != nil {
			o.Graph = nil // AttachNode gives it an ID of to
		}
	}
	to.AttachNode(n)
	for _, sg := range n.Subgraphs() {
		sg.Parent = to
	}
}

// moveInitializer makes initializer v of a body an initializer of to (an
// enclosing graph): a new value of the same name and data that every
// reader of v reads instead, v leaving the body's initializer list.
func moveInitializer(v *ir.Value, to *ir.Graph) *ir.Value {
	nv := to.AddInitializer(v.Const)
	nv.Type, nv.Declared = v.Type, v.Declared
	from := v.Graph
	v.ReplaceAllUses(nv)
	from.Initializers = slices.DeleteFunc(from.Initializers, func(x *ir.Value) bool { return x == v })
	return nv
}

// dropBodyUses removes the uses that the nodes of n's bodies (at any
// depth) hold on the values they read, before n is deleted with its
// bodies: otherwise a value of an enclosing graph would keep a use by a
// node that no longer exists (and look used to the passes after).
func dropBodyUses(n *ir.Node) {
	for _, sg := range n.Subgraphs() {
		for _, m := range sg.Nodes {
			dropBodyUses(m)
			removeNode(sg, m)
		}
		sweepNodes(sg)
	}
}
