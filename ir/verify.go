package ir

// This file implements the IR verifier, run after import and after every
// optimization pass.

import (
	"fmt"
	"strings"
)

// VerifyError lists the problems the verifier found.
type VerifyError struct {
	Problems []string
}

func (e *VerifyError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return fmt.Sprintf("%s (and %d more problem(s))", e.Problems[0], len(e.Problems)-1)
}

// Verify checks the structural invariants of m's main graph, its subgraphs
// and its functions: every input is defined in scope by an input,
// initializer or a node of the graph; each value has one definition; use
// lists match the inputs; nodes are in topological order (so the graph is
// acyclic: the importer sorts what a file lists out of order, and the pass
// driver restores the order after every pass); arities match the op table
// for registered ops; graph outputs are defined. It returns nil or a
// *VerifyError.
func Verify(m *Model) error {
	v := &verifier{opsets: m.Opsets}
	v.graph(m.Graph, 0)
	for _, f := range m.Functions {
		if f.Body != nil {
			v.opsets = MergeOpsets(m.Opsets, f.Opsets)
			v.graph(f.Body, 0)
		}
	}
	if len(v.problems) > 0 {
		return &VerifyError{Problems: v.problems}
	}
	return nil
}

// VerifyGraph checks one graph and its subgraphs. Without a model it
// knows no opset: arity is checked against the loosest bounds the op has
// had.
func VerifyGraph(g *Graph) error {
	v := &verifier{}
	v.graph(g, 0)
	if len(v.problems) > 0 {
		return &VerifyError{Problems: v.problems}
	}
	return nil
}

type verifier struct {
	problems []string
	opsets   []OpsetID // in force for the graph being checked (nil: unknown)
}

const maxProblems = 50

func (v *verifier) errorf(g *Graph, n *Node, format string, args ...any) {
	if len(v.problems) >= maxProblems {
		return
	}
	var b strings.Builder
	if g.Parent != nil || g.ParentNode != nil {
		fmt.Fprintf(&b, "graph %q: ", g.Name)
	}
	if n != nil {
		fmt.Fprintf(&b, "node %s (%s): ", NodeLabel(n), n.QualifiedOp())
	}
	fmt.Fprintf(&b, format, args...)
	v.problems = append(v.problems, b.String())
}

// inScope reports whether value x, defined in graph x.Graph, is visible
// from graph g (the same graph or an enclosing one).
func inScope(x *Value, g *Graph) bool {
	for s := g; s != nil; s = s.Parent {
		if x.Graph == s {
			return true
		}
	}
	return false
}

func (v *verifier) graph(g *Graph, depth int) {
	if depth > maxSubgraphDepth {
		v.errorf(g, nil, "subgraphs nested deeper than %d", maxSubgraphDepth)
		return
	}
	// by ID, not maps keyed by pointer (idTable): inGraph counts the
	// listings of each node, defined the definitions of each value, refs
	// the inputs of g's nodes reading each value
	inGraph, defined, refs := nodeTable(g), valueTable(g), valueTable(g)
	for _, n := range g.Nodes {
		if inGraph.get(n) > 0 {
			v.errorf(g, n, "listed twice")
		}
		inGraph.add(n, 1)
	}
	var refOrder []*Value
	for _, x := range g.Inputs {
		defined.add(x, 1)
	}
	for _, x := range g.Initializers {
		defined.add(x, 1)
		if x.Const == nil {
			v.errorf(g, nil, "initializer %q has no data", x.Name)
		}
	}
	for _, s := range g.Sparse() {
		defined.add(s.Value, 1)
	}
	for _, n := range g.Nodes {
		if n.Graph != g {
			v.errorf(g, n, "node's Graph field points elsewhere")
		}
		for i, in := range n.Inputs {
			if in == nil {
				continue
			}
			if !inScope(in, g) {
				v.errorf(g, n, "input %d %q is not in scope", i, in.Name)
				continue
			}
			if in.Producer != nil && in.Producer.Graph == nil {
				v.errorf(g, n, "input %d %q is produced by a removed node", i, in.Name)
			}
			if refs.get(in) == 0 {
				refOrder = append(refOrder, in)
			}
			refs.add(in, 1)
		}
		for i, o := range n.Outputs {
			if o == nil {
				continue
			}
			if o.Producer != n || o.ProducerOut != i {
				v.errorf(g, n, "output %d %q names a different producer", i, o.Name)
			}
			if defined.get(o) > 0 {
				v.errorf(g, n, "output %q is defined twice", o.Name)
			}
			defined.add(o, 1)
			for _, u := range o.Uses {
				if u.Index >= len(u.Node.Inputs) || u.Node.Inputs[u.Index] != o {
					v.errorf(g, n, "output %q has a stale use by node %s", o.Name, NodeLabel(u.Node))
				}
			}
		}
		v.arity(g, n)
		if IsFused(n) {
			for _, x := range capturedValues(n) {
				v.errorf(g, n, "fused body reads %q, which is not one of its inputs", x.Name)
			}
		}
		for _, sg := range n.Subgraphs() {
			if sg.Parent != g || sg.ParentNode != n {
				v.errorf(g, n, "subgraph %q has a wrong parent link", sg.Name)
			}
			v.graph(sg, depth+1)
		}
	}
	for _, n := range g.Nodes {
		for i, in := range n.Inputs {
			if in != nil && in.Graph == g && in.Producer != nil && inGraph.get(in.Producer) == 0 {
				v.errorf(g, n, "input %d %q is produced by a node outside the graph", i, in.Name)
			}
		}
	}
	for _, x := range refOrder {
		k := refs.get(x)
		// Uses also count readers in nested subgraphs, so a value may have
		// more uses than g's own nodes; every use must be real, and g's
		// readers must all be listed.
		mine := 0
		for _, u := range x.Uses {
			if u.Index >= len(u.Node.Inputs) || u.Node.Inputs[u.Index] != x {
				v.errorf(g, nil, "value %q has a stale use by node %s", x.Name, NodeLabel(u.Node))
			} else if u.Node.Graph == g {
				mine++
			}
		}
		if mine != k {
			v.errorf(g, nil, "value %q: %d readers in the graph, but %d in its use list", x.Name, k, mine)
		}
	}
	for i, o := range g.Outputs {
		if o == nil {
			v.errorf(g, nil, "output %d is nil", i)
			continue
		}
		if !inScope(o, g) || (o.Graph == g && defined.get(o) == 0) {
			v.errorf(g, nil, "output %q is not defined in the graph", o.Name)
		}
	}
	if x := g.outs; x != nil && x.at != nil && x.current(g) {
		for i, o := range g.Outputs {
			if j, ok := x.at[o]; !ok || int(j) > i || g.Outputs[j] != o {
				v.errorf(g, nil, "output %d was replaced in place, not with SetOutput: IsOutput's index is stale", i)
				break
			}
		}
	}
	v.order(g)
}

func arity(min, max int) string {
	switch {
	case max < 0:
		return fmt.Sprintf("at least %d", min)
	case min == max:
		return fmt.Sprint(min)
	}
	return fmt.Sprintf("%d to %d", min, max)
}
