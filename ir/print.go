package ir

// This file implements the IR's readable text form (wolong inspect --ir).

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Fprint writes m in wolong's text form:
//
//	model ir_version=8 opsets={ai.onnx:17}
//	graph main(%x: float32[N,3,224,224]) {
//	  %w1 = const float32[64,3,7,7]
//	  %y = Conv(%x, %w1) {kernel_shape=[7,7], strides=[2,2]} : float32[N,64,112,112]
//	  return %y
//	}
//
// Nodes are printed in topological order; subgraphs are nested in braces
// under the attribute that holds them.
func Fprint(w io.Writer, m *Model) error {
	bw := bufio.NewWriter(w)
	p := &printer{w: bw}
	var ops []string
	for _, o := range m.SortedOpsets() {
		d := o.Domain
		if d == "" {
			d = "ai.onnx"
		}
		ops = append(ops, fmt.Sprintf("%s:%d", d, o.Version))
	}
	fmt.Fprintf(bw, "model ir_version=%d opsets={%s}\n", m.IRVersion, strings.Join(ops, ", "))
	p.graph(m.Graph, "graph", 0)
	for _, f := range m.Functions {
		if f.Body != nil {
			name := f.Name
			if f.Domain != "" {
				name = f.Domain + ":" + f.Name
			}
			p.graph(f.Body, "function "+name, 0)
		}
	}
	return bw.Flush()
}

// FprintGraph writes one graph in the text form.
func FprintGraph(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	(&printer{w: bw}).graph(g, "graph", 0)
	return bw.Flush()
}

type printer struct {
	w *bufio.Writer
}

func (p *printer) indent(depth int) { p.w.WriteString(strings.Repeat("  ", depth)) }

func valueRef(v *Value) string {
	if v == nil {
		return "_"
	}
	if v.Name == "" {
		return fmt.Sprintf("%%#%d", v.ID)
	}
	return "%" + v.Name
}

func (p *printer) graph(g *Graph, kw string, depth int) {
	p.indent(depth)
	name := g.Name
	if name == "" {
		name = "main"
	}
	fmt.Fprintf(p.w, "%s %s(", kw, name)
	for i, in := range g.Inputs {
		if i > 0 {
			p.w.WriteString(", ")
		}
		fmt.Fprintf(p.w, "%s: %s", valueRef(in), in.Type)
	}
	p.w.WriteString(") {\n")
	for _, v := range g.Initializers {
		p.indent(depth + 1)
		fmt.Fprintf(p.w, "%s = const %s\n", valueRef(v), v.Type)
	}
	order, err := Topo(g)
	if err != nil {
		order = g.Nodes
		p.indent(depth + 1)
		fmt.Fprintf(p.w, "# %v\n", err)
	}
	for _, n := range order {
		p.node(n, depth+1)
	}
	p.indent(depth + 1)
	p.w.WriteString("return ")
	for i, o := range g.Outputs {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.w.WriteString(valueRef(o))
	}
	p.w.WriteString("\n")
	p.indent(depth)
	p.w.WriteString("}\n")
}

func (p *printer) node(n *Node, depth int) {
	p.indent(depth)
	for i, o := range n.Outputs {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.w.WriteString(valueRef(o))
	}
	if len(n.Outputs) > 0 {
		p.w.WriteString(" = ")
	}
	p.w.WriteString(n.QualifiedOp())
	p.w.WriteString("(")
	for i, in := range n.Inputs {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.w.WriteString(valueRef(in))
	}
	p.w.WriteString(")")
	var subs []*Attr
	var attrs []string
	for _, a := range n.Attrs {
		if a.Type == AttrGraph || a.Type == AttrGraphs {
			subs = append(subs, a)
			continue
		}
		attrs = append(attrs, a.Name+"="+attrText(a))
	}
	if len(attrs) > 0 {
		fmt.Fprintf(p.w, " {%s}", strings.Join(attrs, ", "))
	}
	var types []string
	for _, o := range n.Outputs {
		if o != nil {
			types = append(types, o.Type.String())
		}
	}
	if n.Name != "" {
		fmt.Fprintf(p.w, "  # %s", n.Name)
	}
	if len(types) > 0 {
		fmt.Fprintf(p.w, " : %s", strings.Join(types, ", "))
	}
	p.w.WriteString("\n")
	for _, a := range subs {
		gs := a.Graphs
		if a.G != nil {
			gs = []*Graph{a.G}
		}
		for _, g := range gs {
			p.graph(g, a.Name+":", depth+1)
		}
	}
}

// attrText prints an attribute value compactly; long lists are elided.
func attrText(a *Attr) string {
	if a.RefAttrName != "" {
		return "@" + a.RefAttrName
	}
	const maxList = 16
	switch a.Type {
	case AttrFloat:
		return strconv.FormatFloat(float64(a.F), 'g', -1, 32)
	case AttrInt:
		return strconv.FormatInt(a.I, 10)
	case AttrString:
		return strconv.Quote(truncateString(string(a.S), 64))
	case AttrTensor:
		if a.T == nil {
			return "tensor(?)"
		}
		return "tensor " + a.T.Type().String()
	case AttrSparseTensor:
		return "sparse tensor"
	case AttrTypeProto:
		if a.TP != nil {
			return "type " + a.TP.String()
		}
	case AttrFloats:
		parts := make([]string, 0, len(a.Floats))
		for i, f := range a.Floats {
			if i == maxList {
				parts = append(parts, fmt.Sprintf("...(%d)", len(a.Floats)))
				break
			}
			parts = append(parts, strconv.FormatFloat(float64(f), 'g', -1, 32))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case AttrInts:
		parts := make([]string, 0, len(a.Ints))
		for i, v := range a.Ints {
			if i == maxList {
				parts = append(parts, fmt.Sprintf("...(%d)", len(a.Ints)))
				break
			}
			parts = append(parts, strconv.FormatInt(v, 10))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case AttrStrings:
		parts := make([]string, 0, len(a.Strings))
		for i, s := range a.Strings {
			if i == maxList {
				parts = append(parts, fmt.Sprintf("...(%d)", len(a.Strings)))
				break
			}
			parts = append(parts, strconv.Quote(truncateString(string(s), 32)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case AttrTensors:
		return fmt.Sprintf("tensors(%d)", len(a.Tensors))
	case AttrSparseTensors:
		return fmt.Sprintf("sparse_tensors(%d)", len(a.SparseTensors))
	case AttrTypeProtos:
		return fmt.Sprintf("types(%d)", len(a.TypeProtos))
	}
	return "?"
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
