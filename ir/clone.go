package ir

// This file implements copying a graph.

import "fmt"

// CloneGraph returns a copy of src with its own values and nodes, set in
// parent as the subgraph of parentNode (both may be nil). Nested subgraphs
// are copied too. Values src reads from an enclosing scope stay those
// values. The copy keeps src's node order and its node and value IDs (a
// graph not in topological order stays in its order, and labels of
// unnamed nodes stay the same). Tensor data is shared, not copied:
// constants are read-only.
func CloneGraph(src, parent *Graph, parentNode *Node) (*Graph, error) {
	return cloneGraph(src, parent, parentNode, newValueMap(), 0)
}

func cloneGraph(src, parent *Graph, parentNode *Node, vm *valueMap, depth int) (*Graph, error) {
	if depth > maxSubgraphDepth {
		return nil, fmt.Errorf("subgraphs nested deeper than %d", maxSubgraphDepth)
	}
	g := NewGraph(src.Name)
	g.SetDoc(src.Doc())
	g.SetMetadata(src.Metadata())
	g.Parent, g.ParentNode = parent, parentNode
	vm.table(src)
	for _, v := range src.Inputs {
		w := g.AddInput(v.Name, Type{})
		copyValue(w, v)
		vm.set(v, w)
	}
	for _, v := range src.Initializers {
		if w := vm.get(v); w != nil {
			g.Initializers = append(g.Initializers, w) // also a graph input
			continue
		}
		w := g.NewValue(v.Name, Type{})
		copyValue(w, v)
		g.Initializers = append(g.Initializers, w)
		vm.set(v, w)
	}
	for _, s := range src.Sparse() {
		w := vm.get(s.Value)
		if w == nil {
			w = g.NewValue(s.Value.Name, Type{})
			copyValue(w, s.Value)
			vm.set(s.Value, w)
		}
		g.AddSparse(&SparseInitializer{Value: w, Sparse: s.Sparse})
	}
	// Producers are copied before their consumers: a graph in order (the
	// IR invariant) is copied as listed, any other in Topo's order and
	// then put back in its own.
	order, sorted := src.Nodes, inOrder(src)
	if !sorted {
		var err error
		if order, err = Topo(src); err != nil {
			return nil, err
		}
	}
	sl := newCloneSlabs(order)
	g.Nodes = make([]*Node, 0, len(order))
	for _, n := range order {
		c := sl.node(g, n, vm)
		g.Nodes = append(g.Nodes, c)
		if err := cloneAttrs(g, c, n, vm, depth); err != nil {
			return nil, err
		}
		for i, o := range n.Outputs {
			if o != nil {
				vm.set(o, c.Outputs[i])
			}
		}
	}
	if !sorted {
		copies := make(map[*Node]*Node, len(order))
		for i, n := range order {
			copies[n] = g.Nodes[i]
		}
		for i, n := range src.Nodes {
			g.Nodes[i] = copies[n]
		}
	}
	g.nextNode, g.nextValue = src.nextNode, src.nextValue
	for _, o := range src.Outputs {
		if w := vm.get(o); w != nil {
			g.Outputs = append(g.Outputs, w)
		} else {
			g.Outputs = append(g.Outputs, o) // an outer value passed through
		}
	}
	return g, nil
}

// copyValue copies v's ID, type, constant data and annotations into dst.
func copyValue(dst, v *Value) {
	dst.ID = v.ID
	dst.Type, dst.known, dst.Const, dst.Info = v.Type.Clone(), v.known, v.Const, v.Info
	if v.Declared != nil {
		d := v.Declared.Clone()
		dst.Declared = &d
	}
}

// cloneAttrs gives c copies of n's attributes, their subgraphs cloned
// into g's scope.
func cloneAttrs(g *Graph, c, n *Node, vm *valueMap, depth int) error {
	if len(n.Attrs) == 0 {
		return nil
	}
	attrs := make([]*Attr, len(n.Attrs))
	vals := make([]Attr, len(n.Attrs))
	var err error
	for i, a := range n.Attrs {
		b := &vals[i]
		*b = *a
		if a.G != nil {
			if b.G, err = cloneGraph(a.G, g, c, vm, depth+1); err != nil {
				return err
			}
		}
		if len(a.Graphs) > 0 {
			b.Graphs = make([]*Graph, len(a.Graphs))
			for k, sg := range a.Graphs {
				if b.Graphs[k], err = cloneGraph(sg, g, c, vm, depth+1); err != nil {
					return err
				}
			}
		}
		attrs[i] = b
	}
	c.Attrs = attrs
	return nil
}

// CloneModel returns a copy of m whose main graph and function bodies are
// copies (CloneGraph): passes and inference on one leave the other as it
// was. Tensor data is shared, so the copy is valid only while m is open;
// closing the copy releases nothing.
func CloneModel(m *Model) (*Model, error) {
	c, err := cloneShell(m)
	if err != nil || m.Graph == nil {
		return c, err
	}
	if c.Graph, err = CloneGraph(m.Graph, nil, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// ExtractModel returns a model holding a copy of n alone (ExtractNode)
// as its main graph, with m's header, opsets and copies of its functions,
// and n's copy.
func ExtractModel(m *Model, n *Node) (*Model, *Node, error) {
	c, err := cloneShell(m)
	if err != nil {
		return nil, nil, err
	}
	g, cn, err := ExtractNode(n)
	if err != nil {
		return nil, nil, err
	}
	c.Graph = g
	return c, cn, nil
}

// cloneShell returns a model with m's header fields, opsets and copies of
// its functions, and no main graph.
func cloneShell(m *Model) (*Model, error) {
	c := &Model{Path: m.Path, IRVersion: m.IRVersion, ProducerName: m.ProducerName, ProducerVersion: m.ProducerVersion,
		Domain: m.Domain, ModelVersion: m.ModelVersion, Doc: m.Doc, Metadata: m.Metadata}
	c.Opsets = append([]OpsetID(nil), m.Opsets...)
	c.Functions = make([]*Function, len(m.Functions))
	for i, f := range m.Functions {
		cf := *f
		if f.Body != nil {
			var err error
			if cf.Body, err = CloneGraph(f.Body, nil, nil); err != nil {
				return nil, err
			}
		}
		c.Functions[i] = &cf
	}
	return c, nil
}

// ExtractNode returns a main graph holding a copy of n alone, its
// subgraphs copied too: each value n reads from its graph or an enclosing
// scope (its inputs, and the values its subgraphs capture) becomes, under
// its own name and with its type and known elements, an initializer of
// the new graph sharing its data when it is constant and a graph input
// otherwise; n's outputs are the graph's outputs. It also returns n's
// copy. What the copy computes is what n computes on those values, so a
// decision about n alone (a trial of a rewrite of it) costs the size of n
// and its subgraphs, not of the model around it: the copy is node 0 of
// its graph, and the graph's values are numbered from 0 (nodes and values
// inside the subgraphs keep their IDs, as in CloneGraph). Tensor data is
// shared, as in CloneGraph.
func ExtractNode(n *Node) (*Graph, *Node, error) {
	if n == nil || n.Graph == nil {
		return nil, nil, fmt.Errorf("extract: node not in a graph")
	}
	g := NewGraph(n.Graph.Name)
	vm := newValueMap()
	outer := func(x *Value) {
		if x == nil || vm.get(x) != nil {
			return
		}
		w := g.NewValue(x.Name, Type{})
		id := w.ID
		copyValue(w, x)
		w.ID = id
		if x.Const != nil {
			g.Initializers = append(g.Initializers, w)
		} else {
			g.Inputs = append(g.Inputs, w)
		}
		vm.set(x, w)
	}
	for _, x := range n.Inputs {
		outer(x)
	}
	for _, x := range n.CapturedValues() {
		outer(x)
	}
	sl := newCloneSlabs([]*Node{n})
	c := sl.node(g, n, vm)
	for _, o := range c.Outputs {
		if o != nil {
			o.ID = g.nextValue // the source graph's IDs would collide with the inputs'
			g.nextValue++
			g.Outputs = append(g.Outputs, o)
		}
	}
	c.ID = 0 // dense per-node tables of the new graph stay its size
	g.Nodes = []*Node{c}
	g.nextNode = 1
	if err := cloneAttrs(g, c, n, vm, 0); err != nil {
		return nil, nil, err
	}
	return g, c, nil
}
