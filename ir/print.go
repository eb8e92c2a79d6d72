package ir

// This file implements the IR's readable text form (wolong inspect --ir,
// the .wir files of explain --dump-dir), which parse.go reads back.

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
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
// under the attribute that holds them. Names other than plain words are
// quoted (%"a b"); constants of up to 8 elements print their values
// (float, int32, int64 and bool ones), larger ones only their type; float
// attributes always have a point or exponent. Parse reads the text back.
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
			name := quoteName(f.Name)
			if f.Domain != "" {
				name = quoteName(f.Domain) + ":" + name
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

func valueRef(v *Value) string { return string(appendValueRef(nil, v)) }

// appendValueRef appends how the text form refers to v: %name, %#ID for
// a value without a name, _ for none.
func appendValueRef(b []byte, v *Value) []byte {
	switch {
	case v == nil:
		return append(b, '_')
	case v.Name == "":
		return strconv.AppendInt(append(b, "%#"...), int64(v.ID), 10)
	}
	return append(append(b, '%'), quoteName(v.Name)...)
}

// plainName reports whether s prints as it is: a non-empty word of
// letters, digits and _ . : / - + @ $ [ ] ' ! ? ~ (and any non-ASCII
// letter), not starting with # or " nor ending with :.
func plainName(s string) bool {
	if s == "" || s[0] == '#' || s[0] == '"' || s[len(s)-1] == ':' {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("_.:/-+@$[]'!?~#", r):
		case r > 0x7f && unicode.IsLetter(r):
		default:
			return false
		}
	}
	return true
}

// quoteName returns s, or s quoted when it is not a plain name.
func quoteName(s string) string {
	if plainName(s) {
		return s
	}
	return strconv.Quote(s)
}

// quoteComment returns a node name for the "# name" comment: as it is
// unless the parser could not find its end (a " : ", a leading quote or
// space, a control character).
func quoteComment(s string) string {
	if s == "" || strings.Contains(s, " : ") || s[0] == '"' || s[0] == ' ' || strings.HasSuffix(s, " :") || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

func (p *printer) graph(g *Graph, kw string, depth int) {
	p.indent(depth)
	name := g.Name
	if name == "" {
		name = "main"
	}
	fmt.Fprintf(p.w, "%s %s(", kw, quoteName(name))
	for i, in := range g.Inputs {
		if i > 0 {
			p.w.WriteString(", ")
		}
		fmt.Fprintf(p.w, "%s: %s", valueRef(in), in.Type)
	}
	p.w.WriteString(") {\n")
	for _, v := range g.Initializers {
		p.indent(depth + 1)
		fmt.Fprintf(p.w, "%s = const %s%s\n", valueRef(v), v.Type, constValues(v.Const))
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
		fmt.Fprintf(p.w, "  # %s", quoteComment(n.Name))
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
		return floatText(float64(a.F), 32)
	case AttrInt:
		return strconv.FormatInt(a.I, 10)
	case AttrString:
		return strconv.Quote(truncateString(string(a.S), 64))
	case AttrTensor:
		if a.T == nil {
			return "tensor(?)"
		}
		return "tensor " + a.T.Type().String() + constValues(a.T)
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
			parts = append(parts, floatText(float64(f), 32))
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

// maxPrintedValues is the most elements a constant prints the values of.
const maxPrintedValues = 8

// constValues returns " [v,...]", the values of a float, int32, int64 or
// bool tensor of at most maxPrintedValues elements, or "" (other dtypes,
// larger tensors, data that cannot be read).
func constValues(t *Tensor) string {
	if t == nil {
		return ""
	}
	n, ok := t.NumElements()
	if !ok || n > maxPrintedValues {
		return ""
	}
	var parts []string
	switch t.DType {
	case Float32, Float64:
		v, err := t.Float64Values(maxPrintedValues)
		if err != nil || int64(len(v)) != n {
			return ""
		}
		bits := 64
		if t.DType == Float32 {
			bits = 32
		}
		for _, f := range v {
			parts = append(parts, floatText(f, bits))
		}
	case Int32, Int64, Bool:
		v, err := t.Int64Values(maxPrintedValues)
		if err != nil || int64(len(v)) != n {
			return ""
		}
		for _, i := range v {
			parts = append(parts, strconv.FormatInt(i, 10))
		}
	default:
		return ""
	}
	return " [" + strings.Join(parts, ",") + "]"
}

// floatText formats f (of the given bits) shortest, with a point or an
// exponent so that it does not read as an integer: 1 prints "1.0".
func floatText(f float64, bits int) string {
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eIN") {
		s += ".0"
	}
	return s
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
