package ir

// NodeSlab is storage for many nodes and their output values added at
// once (the importer adds a whole graph): one allocation per kind instead
// of one per node and per value. A slab that runs out, or a nil one, falls
// back to single allocations. What is taken from a slab stays allocated as
// long as any part of it is reachable, so it suits nodes that mostly live
// as long as the graph; it does not shrink when passes delete nodes.
type NodeSlab struct {
	nodes []Node
	vals  []Value
	outs  []*Value
}

// NewNodeSlab reserves room for nodes nodes with outputs output slots in
// all, values of them named (not omitted).
func NewNodeSlab(nodes, outputs, values int) *NodeSlab {
	return &NodeSlab{nodes: make([]Node, max(nodes, 0)), outs: make([]*Value, max(outputs, 0)), vals: make([]Value, max(values, 0))}
}

// node returns a zero Node from the slab (or the heap).
func (sl *NodeSlab) node() *Node {
	if sl == nil || len(sl.nodes) == 0 {
		return new(Node)
	}
	n := &sl.nodes[0]
	sl.nodes = sl.nodes[1:]
	return n
}

// value returns a zero Value from the slab (or the heap).
func (sl *NodeSlab) value() *Value {
	if sl == nil || len(sl.vals) == 0 {
		return new(Value)
	}
	v := &sl.vals[0]
	sl.vals = sl.vals[1:]
	return v
}

// outputs returns k nil output slots, capped at k (an append reallocates).
func (sl *NodeSlab) outputs(k int) []*Value {
	if sl == nil || len(sl.outs) < k {
		return make([]*Value, k)
	}
	return take(&sl.outs, k)
}
