package report

// This file implements the parameter count of `wolong inspect`: every
// tensor a model stores, wherever it is stored, each once.

import "github.com/wolong-dev/wolong/ir"

// paramCounter sums parameters, counting each stored tensor once: a tensor
// reached twice (the same object, or the same bytes of one file, as two
// initializers sharing external data) adds nothing the second time.
type paramCounter struct {
	elems, bytes int64
	seen         map[*ir.Tensor]bool
	locs         map[ir.Location]bool
}

func newParamCounter() *paramCounter {
	return &paramCounter{seen: map[*ir.Tensor]bool{}, locs: map[ir.Location]bool{}}
}

// tensor counts t (nil is ignored).
func (c *paramCounter) tensor(t *ir.Tensor) {
	if t == nil || c.seen[t] {
		return
	}
	c.seen[t] = true
	if l := t.Loc; l.File != "" && l.Length > 0 {
		key := ir.Location{File: l.File, Offset: l.Offset, Length: l.Length}
		if c.locs[key] {
			return
		}
		c.locs[key] = true
	}
	n, _ := t.NumElements()
	c.elems += n
	c.bytes += t.ByteSize()
}

// sparse counts a sparse tensor's stored values and their indices; the
// elements are the stored values.
func (c *paramCounter) sparse(st *ir.SparseTensor) {
	if st == nil {
		return
	}
	before := c.elems
	c.tensor(st.Values)
	c.tensor(st.Indices)
	if st.Indices != nil && c.elems > before {
		n, _ := st.Indices.NumElements()
		c.elems -= n
	}
}

// model counts the initializers and sparse initializers of every graph
// (the main graph, control-flow bodies at any depth, model-local function
// bodies) and the constant nodes in them (constantParams).
func (c *paramCounter) model(m *ir.Model) {
	graphs := []*ir.Graph{m.Graph}
	for _, f := range m.Functions {
		if f.Body != nil {
			graphs = append(graphs, f.Body)
		}
	}
	for _, root := range graphs {
		root.Walk(func(g *ir.Graph) bool {
			for _, v := range g.Initializers {
				c.tensor(v.Const)
			}
			for _, s := range g.Sparse() {
				c.sparse(s.Sparse)
			}
			for _, n := range g.Nodes {
				c.node(n)
			}
			return true
		})
	}
}

// node counts what a constant node materializes (constantParams).
func (c *paramCounter) node(n *ir.Node) {
	if !n.Is(ir.OpConstant) {
		if e, b, ok := constantParams(n); ok {
			c.elems += e
			c.bytes += b
		}
		return
	}
	for _, a := range n.Attrs {
		switch a.Name {
		case "value":
			c.tensor(a.T)
		case "sparse_value":
			c.sparse(a.ST)
		case "value_float", "value_int":
			c.elems++
			c.bytes += map[bool]int64{true: 4, false: 8}[a.Name == "value_float"]
		case "value_floats":
			c.elems += int64(len(a.Floats))
			c.bytes += 4 * int64(len(a.Floats))
		case "value_ints":
			c.elems += int64(len(a.Ints))
			c.bytes += 8 * int64(len(a.Ints))
		case "value_string":
			c.elems++
			c.bytes += int64(len(a.S))
		case "value_strings":
			c.elems += int64(len(a.Strings))
			for _, s := range a.Strings {
				c.bytes += int64(len(s))
			}
		}
	}
}
