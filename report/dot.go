package report

// This file writes a model's main graph as Graphviz DOT, with every fused
// group (a wolong node with a body) drawn as a cluster of its members.

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/wolong-dev/wolong/ir"
)

// WriteDOT writes m's main graph as a DOT digraph titled title. Graph
// inputs are ellipses, nodes boxes labelled "name\nop", fused groups
// clusters; initializers are left out. Node order is the graph's, so the
// output is deterministic.
func WriteDOT(w io.Writer, m *ir.Model, title string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n  rankdir=TB;\n  node [shape=box, fontsize=10];\n", strconv.Quote(title))
	d := &dotWriter{w: bw, ids: map[*ir.Node]string{}, outer: map[*ir.Value]*ir.Value{}, inner: map[*ir.Value]*ir.Value{}}
	g := m.Graph
	for i, v := range g.Inputs {
		if v.Const != nil {
			continue
		}
		fmt.Fprintf(bw, "  in%d [shape=ellipse, label=%s];\n", i, strconv.Quote(v.Name))
	}
	for k, n := range g.Nodes {
		body := ir.FusedBody(n)
		if body == nil {
			d.node(n, fmt.Sprintf("n%d", k), "  ")
			continue
		}
		fmt.Fprintf(bw, "  subgraph cluster_%d {\n    label=%s;\n    style=filled; color=lightgrey;\n", k,
			strconv.Quote(ir.NodeLabel(n)+" ("+n.QualifiedOp()+")"))
		for i, v := range body.Inputs {
			if i < len(n.Inputs) && n.Inputs[i] != nil {
				d.outer[v] = n.Inputs[i]
			}
		}
		for j, bn := range body.Nodes {
			d.node(bn, fmt.Sprintf("n%d_%d", k, j), "    ")
		}
		for i, v := range body.Outputs {
			if i < len(n.Outputs) && n.Outputs[i] != nil {
				d.inner[n.Outputs[i]] = v
			}
		}
		bw.WriteString("  }\n")
	}
	// Edges.
	for _, e := range d.edges {
		src := d.source(e.v)
		if src != "" {
			fmt.Fprintf(bw, "  %s -> %s;\n", src, e.to)
		}
	}
	for i, o := range g.Outputs {
		fmt.Fprintf(bw, "  out%d [shape=ellipse, label=%s];\n", i, strconv.Quote(o.Name))
		if src := d.source(o); src != "" {
			fmt.Fprintf(bw, "  %s -> out%d;\n", src, i)
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

type dotEdge struct {
	v  *ir.Value
	to string
}

type dotWriter struct {
	w     *bufio.Writer
	ids   map[*ir.Node]string
	outer map[*ir.Value]*ir.Value // body input -> the fused node's input
	inner map[*ir.Value]*ir.Value // fused node output -> body output
	edges []dotEdge
}

func (d *dotWriter) node(n *ir.Node, id, indent string) {
	d.ids[n] = id
	fmt.Fprintf(d.w, "%s%s [label=%s];\n", indent, id, strconv.Quote(ir.NodeLabel(n)+"\n"+n.QualifiedOp()))
	for _, in := range n.Inputs {
		if in != nil && in.Const == nil {
			d.edges = append(d.edges, dotEdge{in, id})
		}
	}
}

// source returns the DOT id of the node (or input) producing v.
func (d *dotWriter) source(v *ir.Value) string {
	for hops := 0; v != nil && hops < 64; hops++ {
		if w, ok := d.outer[v]; ok {
			v = w
			continue
		}
		if v.Producer != nil && ir.FusedBody(v.Producer) != nil {
			next := d.inner[v]
			if next == nil {
				return ""
			}
			v = next
			continue
		}
		if v.Producer != nil {
			return d.ids[v.Producer]
		}
		if v.Const == nil && v.Graph != nil && v.Graph.Parent == nil {
			return d.inputID(v)
		}
		return ""
	}
	return ""
}

func (d *dotWriter) inputID(v *ir.Value) string {
	for i, in := range v.Graph.Inputs {
		if in == v {
			return fmt.Sprintf("in%d", i)
		}
	}
	return ""
}
