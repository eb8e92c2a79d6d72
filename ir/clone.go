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
	return cloneGraph(src, parent, parentNode, map[*Value]*Value{}, 0)
}

func cloneGraph(src, parent *Graph, parentNode *Node, vm map[*Value]*Value, depth int) (*Graph, error) {
	if depth > maxSubgraphDepth {
		return nil, fmt.Errorf("subgraphs nested deeper than %d", maxSubgraphDepth)
	}
	g := NewGraph(src.Name)
	g.Doc, g.Metadata = src.Doc, src.Metadata
	g.Parent, g.ParentNode = parent, parentNode
	copyValue := func(dst, v *Value) {
		dst.ID = v.ID
		dst.Type, dst.Known, dst.Const, dst.Doc, dst.Metadata = v.Type.Clone(), v.Known, v.Const, v.Doc, v.Metadata
		if v.Declared != nil {
			d := v.Declared.Clone()
			dst.Declared = &d
		}
	}
	for _, v := range src.Inputs {
		w := g.AddInput(v.Name, Type{})
		copyValue(w, v)
		vm[v] = w
	}
	for _, v := range src.Initializers {
		if w, ok := vm[v]; ok {
			g.Initializers = append(g.Initializers, w) // also a graph input
			continue
		}
		w := g.NewValue(v.Name, Type{})
		copyValue(w, v)
		g.Initializers = append(g.Initializers, w)
		vm[v] = w
	}
	for _, s := range src.Sparse {
		w, ok := vm[s.Value]
		if !ok {
			w = g.NewValue(s.Value.Name, Type{})
			copyValue(w, s.Value)
			vm[s.Value] = w
		}
		g.Sparse = append(g.Sparse, &SparseInitializer{Value: w, Sparse: s.Sparse})
	}
	order, err := Topo(src)
	if err != nil {
		return nil, err
	}
	copies := make(map[*Node]*Node, len(order))
	for _, n := range order {
		ins := make([]*Value, len(n.Inputs))
		for i, v := range n.Inputs {
			if w, ok := vm[v]; ok {
				ins[i] = w
			} else {
				ins[i] = v // nil, or a value of an enclosing scope
			}
		}
		outs := make([]string, len(n.Outputs))
		for i, o := range n.Outputs {
			if o != nil {
				outs[i] = o.Name
			}
		}
		attrs := make([]*Attr, len(n.Attrs))
		c := g.AddNode(n.Op, n.Domain, n.Name, ins, outs)
		c.ID = n.ID
		copies[n] = c
		for i, a := range n.Attrs {
			b := *a
			if a.G != nil {
				if b.G, err = cloneGraph(a.G, g, c, vm, depth+1); err != nil {
					return nil, err
				}
			}
			if len(a.Graphs) > 0 {
				b.Graphs = make([]*Graph, len(a.Graphs))
				for k, sg := range a.Graphs {
					if b.Graphs[k], err = cloneGraph(sg, g, c, vm, depth+1); err != nil {
						return nil, err
					}
				}
			}
			attrs[i] = &b
		}
		c.Attrs = attrs
		c.Overload, c.Doc, c.Metadata = n.Overload, n.Doc, n.Metadata
		for i, o := range n.Outputs {
			if o != nil {
				copyValue(c.Outputs[i], o)
				vm[o] = c.Outputs[i]
			}
		}
	}
	for i, n := range src.Nodes {
		g.Nodes[i] = copies[n]
	}
	g.nextNode, g.nextValue = src.nextNode, src.nextValue
	for _, o := range src.Outputs {
		if w, ok := vm[o]; ok {
			g.Outputs = append(g.Outputs, w)
		} else {
			g.Outputs = append(g.Outputs, o) // an outer value passed through
		}
	}
	return g, nil
}

// CloneModel returns a copy of m whose main graph and function bodies are
// copies (CloneGraph): passes and inference on one leave the other as it
// was. Tensor data is shared, so the copy is valid only while m is open;
// closing the copy releases nothing.
func CloneModel(m *Model) (*Model, error) {
	c := *m
	c.Closer = nil
	c.Opsets = append([]OpsetID(nil), m.Opsets...)
	var err error
	if m.Graph != nil {
		if c.Graph, err = CloneGraph(m.Graph, nil, nil); err != nil {
			return nil, err
		}
	}
	c.Functions = make([]*Function, len(m.Functions))
	for i, f := range m.Functions {
		cf := *f
		if f.Body != nil {
			if cf.Body, err = CloneGraph(f.Body, nil, nil); err != nil {
				return nil, err
			}
		}
		c.Functions[i] = &cf
	}
	return &c, nil
}
