package ir

// This file holds what makes copying a large graph cheap: the copy's
// nodes, values and their input, output and use lists come from a few
// large allocations (slabs) instead of several small ones per node, and
// values are looked up by ID instead of through a map keyed by pointer.

// cloneSlabs hands out the storage of one graph's copied nodes: a
// NodeSlab for the nodes, their output lists and values, and the input and
// use lists a copy has too. Each list is capped at its length, so a pass
// appending to one reallocates it instead of writing into its neighbour's.
type cloneSlabs struct {
	NodeSlab
	ins  []*Value
	uses []Use
}

// newCloneSlabs sizes the slabs for copies of nodes.
func newCloneSlabs(nodes []*Node) *cloneSlabs {
	var nIn, nOut, nVal, nUse int
	for _, n := range nodes {
		nIn += len(n.Inputs)
		nOut += len(n.Outputs)
		for _, o := range n.Outputs {
			if o != nil {
				nVal++
				nUse += len(o.Uses)
			}
		}
	}
	return &cloneSlabs{NodeSlab: *NewNodeSlab(len(nodes), nOut, nVal), ins: make([]*Value, nIn), uses: make([]Use, nUse)}
}

// take cuts the first k entries off *s, capped at k.
func take[T any](s *[]T, k int) []T {
	t := (*s)[:k:k]
	*s = (*s)[k:]
	return t
}

// node returns a copy of n in g: same ID, op, name and annotations, its
// inputs mapped through vm (values of enclosing scopes stay as they are)
// and recorded as uses, and copies of its outputs, produced by it. The
// attributes are left to the caller.
func (sl *cloneSlabs) node(g *Graph, n *Node, vm *valueMap) *Node {
	c := sl.NodeSlab.node()
	*c = Node{ID: n.ID, Name: n.Name, Op: n.Op, Domain: n.Domain, Graph: g, Info: n.Info}
	c.Inputs = take(&sl.ins, len(n.Inputs))
	for i, v := range n.Inputs {
		w := v // nil, or a value of an enclosing scope
		if m := vm.get(v); m != nil {
			w = m
		}
		c.Inputs[i] = w
		if w != nil {
			w.Uses = append(w.Uses, Use{c, i})
		}
	}
	c.Outputs = sl.outputs(len(n.Outputs))
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		w := sl.value()
		copyValue(w, o)
		w.Name, w.Graph, w.Producer, w.ProducerOut = o.Name, g, c, i
		w.Uses = take(&sl.uses, len(o.Uses))[:0]
		c.Outputs[i] = w
	}
	return c
}

// valueMap maps the values of the graphs being copied to their copies.
// A value of a graph given a table is found by its ID (IDs are unique
// within a graph); any other (a value whose ID another value of its graph
// already holds, which a valid graph never has) goes through a map.
type valueMap struct {
	tables map[*Graph][]valuePair
	last   *Graph // the graph of the last lookup, and its table
	lastT  []valuePair
	other  map[*Value]*Value
}

// valuePair is a value of the source graph and its copy.
type valuePair struct{ src, dst *Value }

func newValueMap() *valueMap {
	return &valueMap{tables: map[*Graph][]valuePair{}, other: map[*Value]*Value{}}
}

// table gives src a table indexed by value ID.
func (m *valueMap) table(src *Graph) {
	m.tables[src] = make([]valuePair, src.nextValue)
	m.last = nil
}

// slot returns v's entry in its graph's table, nil if it has none.
func (m *valueMap) slot(v *Value) *valuePair {
	if v.Graph != m.last {
		m.last, m.lastT = v.Graph, m.tables[v.Graph]
	}
	if v.ID < 0 || v.ID >= len(m.lastT) {
		return nil
	}
	return &m.lastT[v.ID]
}

// get returns v's copy, nil if v (or nil) has none.
func (m *valueMap) get(v *Value) *Value {
	if v == nil {
		return nil
	}
	if p := m.slot(v); p != nil && p.src == v {
		return p.dst
	}
	return m.other[v]
}

// set records w as v's copy.
func (m *valueMap) set(v, w *Value) {
	if p := m.slot(v); p != nil && (p.src == nil || p.src == v) {
		*p = valuePair{v, w}
		return
	}
	m.other[v] = w
}
