package ir

// This file implements the reader of the IR's text form (print.go): a
// model, its graphs and subgraphs, nodes with their attributes and output
// types, and the values of small constants.

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseError is an error in the text form, with its line (1-based).
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// maxParseDepth bounds the nesting of subgraphs a text may have.
const maxParseDepth = 64

// Parse reads a model in the text form Fprint writes. What the text form
// leaves out stays out: a constant of more than 8 elements (or of another
// dtype than float, int32, int64 and bool) has no data, a tensor attribute
// likewise, list attributes and strings the printer shortened stay short
// (an elided list keeps its length, up to 2^20, its hidden elements zero), and the
// metadata, doc strings and declared types are not in the text. So
// Fprint(Parse(text)) is text for any text Fprint wrote, and a parsed
// model carries the structure, types and small constants a pass test
// needs. Value types are the printed ones (run InferModel to recompute
// them).
func Parse(text string) (*Model, error) {
	p := &textParser{lines: strings.Split(text, "\n")}
	m, err := p.model()
	if err != nil {
		return nil, err
	}
	return m, nil
}

type textParser struct {
	lines []string
	i     int // next line
}

// scope resolves value names: a graph's values, then its parent's.
type scope struct {
	g      *Graph
	vals   map[string]*Value
	parent *scope
}

func (s *scope) lookup(name string) *Value {
	for ; s != nil; s = s.parent {
		if v, ok := s.vals[name]; ok {
			return v
		}
	}
	return nil
}

func (p *textParser) errorf(format string, args ...any) error {
	return &ParseError{Line: p.i, Msg: fmt.Sprintf(format, args...)}
}

// next returns the next line that is not blank, trimmed, or false at the end.
func (p *textParser) next() (string, bool) {
	for p.i < len(p.lines) {
		l := strings.TrimSpace(p.lines[p.i])
		p.i++
		if l != "" {
			return l, true
		}
	}
	return "", false
}

// peek returns the next line that is not blank without taking it.
func (p *textParser) peek() string {
	save := p.i
	l, _ := p.next()
	p.i = save
	return l
}

func (p *textParser) model() (*Model, error) {
	l, ok := p.next()
	if !ok {
		return nil, p.errorf("empty text: want a model line")
	}
	m := &Model{}
	rest, ok := strings.CutPrefix(l, "model ir_version=")
	if !ok {
		return nil, p.errorf("want \"model ir_version=N opsets={...}\", have %q", l)
	}
	ver, ops, ok := strings.Cut(rest, " opsets={")
	if !ok || !strings.HasSuffix(ops, "}") {
		return nil, p.errorf("want \"model ir_version=N opsets={...}\", have %q", l)
	}
	v, err := strconv.ParseInt(ver, 10, 64)
	if err != nil {
		return nil, p.errorf("ir_version %q: not an integer", ver)
	}
	m.IRVersion = v
	if ops = strings.TrimSuffix(ops, "}"); ops != "" {
		for _, o := range strings.Split(ops, ", ") {
			i := strings.LastIndexByte(o, ':')
			if i < 0 {
				return nil, p.errorf("opset %q: want domain:version", o)
			}
			v, err := strconv.ParseInt(o[i+1:], 10, 64)
			if err != nil {
				return nil, p.errorf("opset %q: want domain:version", o)
			}
			d := o[:i]
			if d == "ai.onnx" {
				d = ""
			}
			m.Opsets = append(m.Opsets, OpsetID{Domain: d, Version: v})
		}
	}
	l, ok = p.next()
	if !ok || !strings.HasPrefix(l, "graph ") {
		return nil, p.errorf("want the main graph (\"graph NAME(...) {\")")
	}
	g, err := p.graph(strings.TrimPrefix(l, "graph "), nil, 0)
	if err != nil {
		return nil, err
	}
	m.Graph = g
	for {
		l, ok := p.next()
		if !ok {
			return m, nil
		}
		rest, ok := strings.CutPrefix(l, "function ")
		if !ok {
			return nil, p.errorf("want a function or the end of the text, have %q", l)
		}
		c := &cursor{s: rest}
		quoted := c.peek('"')
		domain, name := "", c.name()
		if c.eat(":") {
			domain, name = name, c.name()
		} else if i := strings.IndexByte(name, ':'); i >= 0 && !quoted {
			domain, name = name[:i], name[i+1:]
		}
		if name == "" || !c.eat(" ") {
			return nil, p.errorf("want \"function [DOMAIN:]NAME GRAPH(...) {\", have %q", l)
		}
		body, err := p.graph(c.s[c.pos:], nil, 0)
		if err != nil {
			return nil, err
		}
		m.Functions = append(m.Functions, &Function{Name: name, Domain: domain, Body: body})
	}
}

// graph reads a graph from its header (after the keyword: "NAME(inputs) {")
// to its closing brace.
func (p *textParser) graph(header string, parent *scope, depth int) (*Graph, error) {
	if depth > maxParseDepth {
		return nil, p.errorf("subgraphs nested deeper than %d", maxParseDepth)
	}
	c := &cursor{s: header}
	g := NewGraph(c.name())
	sc := &scope{g: g, vals: map[string]*Value{}, parent: parent}
	if parent != nil {
		g.Parent = parent.g
	}
	if !c.eat("(") {
		return nil, p.errorf("graph header %q: want NAME(", header)
	}
	for !c.eat(") {") {
		if len(g.Inputs) > 0 && !c.eat(", ") {
			return nil, p.errorf("graph header %q: want \", \" or \") {\" at column %d", header, c.pos+1)
		}
		name, ok := c.ref()
		if !ok || !c.eat(": ") {
			return nil, p.errorf("graph header %q: want %%NAME: TYPE at column %d", header, c.pos+1)
		}
		t, err := c.typ()
		if err != nil {
			return nil, p.errorf("graph header %q: %v", header, err)
		}
		v := g.AddInput(name, t)
		if c.anon {
			unname(v, name)
		}
		if err := define(sc, name, v); err != nil {
			return nil, p.errorf("%v", err)
		}
	}
	if !c.end() {
		return nil, p.errorf("graph header %q: text after \"{\"", header)
	}
	var last *Node
	for {
		l, ok := p.next()
		if !ok {
			return nil, p.errorf("graph %q: missing \"}\"", g.Name)
		}
		switch {
		case l == "}":
			return nil, p.errorf("graph %q: no return line", g.Name)
		case strings.HasPrefix(l, "return"):
			if err := p.outputs(g, sc, strings.TrimPrefix(l, "return")); err != nil {
				return nil, err
			}
			if l, _ := p.next(); l != "}" {
				return nil, p.errorf("graph %q: want \"}\" after the return line, have %q", g.Name, l)
			}
			return g, nil
		case strings.HasPrefix(l, "#"):
			// a comment (the printer's note of a cycle)
		case isSubgraphHeader(l):
			if last == nil {
				return nil, p.errorf("subgraph %q: no node before it", l)
			}
			attr, rest, _ := strings.Cut(l, ": ")
			sg, err := p.graph(rest, sc, depth+1)
			if err != nil {
				return nil, err
			}
			sg.ParentNode = last
			addGraphAttr(last, attr, sg)
		default:
			n, err := p.nodeOrConst(l, g, sc)
			if err != nil {
				return nil, err
			}
			if n != nil {
				last = n
			}
		}
	}
}

// isSubgraphHeader reports whether l opens a subgraph: "ATTR: NAME(...) {".
func isSubgraphHeader(l string) bool {
	attr, _, ok := strings.Cut(l, ": ")
	return ok && attr != "" && strings.IndexFunc(attr, func(r rune) bool { return !isNameRune(r) }) < 0 && strings.HasSuffix(l, ") {")
}

// addGraphAttr adds sg to n's graph attribute called name (a second graph
// under the same name makes it a list).
func addGraphAttr(n *Node, name string, sg *Graph) {
	if a := n.Attr(name); a != nil {
		if a.Type == AttrGraph {
			a.Type, a.Graphs, a.G = AttrGraphs, []*Graph{a.G}, nil
		}
		a.Graphs = append(a.Graphs, sg)
		return
	}
	n.Attrs = append(n.Attrs, &Attr{Name: name, Type: AttrGraph, G: sg})
}

// unname makes v the unnamed value %#ID that ref (text "#ID") names.
func unname(v *Value, ref string) {
	id, _ := strconv.Atoi(strings.TrimPrefix(ref, "#"))
	v.Name, v.ID = "", id
	if id >= v.Graph.nextValue {
		v.Graph.nextValue = id + 1
	}
}

func define(sc *scope, name string, v *Value) error {
	if _, ok := sc.vals[name]; ok {
		return fmt.Errorf("value %q defined twice", name)
	}
	sc.vals[name] = v
	return nil
}

func (p *textParser) outputs(g *Graph, sc *scope, s string) error {
	c := &cursor{s: strings.TrimSpace(s)}
	for !c.end() {
		if len(g.Outputs) > 0 && !c.eat(", ") {
			return p.errorf("return: want \", \" at column %d", c.pos+1)
		}
		name, ok := c.ref()
		if !ok {
			return p.errorf("return: want %%NAME at column %d", c.pos+1)
		}
		v := sc.lookup(name)
		if v == nil {
			return p.errorf("return: value %q is not defined", name)
		}
		g.Outputs = append(g.Outputs, v)
	}
	return nil
}

// nodeOrConst reads "%w = const TYPE [values]" (returning a nil node) or a
// node line "%y, %z = [DOMAIN:]OP(%a, _) {attrs}  # name : types".
func (p *textParser) nodeOrConst(l string, g *Graph, sc *scope) (*Node, error) {
	c := &cursor{s: l}
	var outs []string
	var anon []bool
	if c.peek('%') || c.peek('_') {
		for {
			name, ok := c.ref()
			if !ok {
				return nil, p.errorf("want %%NAME or _ at column %d of %q", c.pos+1, l)
			}
			outs, anon = append(outs, name), append(anon, c.anon)
			if c.eat(" = ") {
				break
			}
			if !c.eat(", ") {
				return nil, p.errorf("want \", \" or \" = \" at column %d of %q", c.pos+1, l)
			}
		}
	}
	if c.eat("const ") {
		if len(outs) != 1 || outs[0] == "" {
			return nil, p.errorf("a constant defines one value: %q", l)
		}
		t, err := c.tensor()
		if err != nil {
			return nil, p.errorf("%v in %q", err, l)
		}
		if !c.end() {
			return nil, p.errorf("text after the constant at column %d of %q", c.pos+1, l)
		}
		t.Name = outs[0]
		if v, ok := sc.vals[outs[0]]; ok && v.Producer == nil && v.Const == nil {
			v.Const = t // an input with a default
			g.Initializers = append(g.Initializers, v)
			return nil, nil
		}
		v := g.AddInitializer(t)
		if anon[0] {
			unname(v, outs[0])
		}
		if err := define(sc, outs[0], v); err != nil {
			return nil, p.errorf("%v", err)
		}
		return nil, nil
	}
	op := c.until('(')
	if op == "" || !c.eat("(") {
		return nil, p.errorf("want OP(...) at column %d of %q", c.pos+1, l)
	}
	domain := ""
	if i := strings.LastIndexByte(op, ':'); i >= 0 {
		domain, op = op[:i], op[i+1:]
	}
	var ins []*Value
	for !c.eat(")") {
		if len(ins) > 0 && !c.eat(", ") {
			return nil, p.errorf("want \", \" or \")\" at column %d of %q", c.pos+1, l)
		}
		name, ok := c.ref()
		if !ok {
			return nil, p.errorf("want %%NAME or _ at column %d of %q", c.pos+1, l)
		}
		var v *Value
		if name != "" {
			if v = sc.lookup(name); v == nil {
				return nil, p.errorf("value %q is not defined before its use", name)
			}
		}
		ins = append(ins, v)
	}
	var attrs []*Attr
	if c.eat(" {") {
		for !c.eat("}") {
			if len(attrs) > 0 && !c.eat(", ") {
				return nil, p.errorf("want \", \" or \"}\" at column %d of %q", c.pos+1, l)
			}
			a, err := c.attr()
			if err != nil {
				return nil, p.errorf("%v in %q", err, l)
			}
			attrs = append(attrs, a)
		}
	}
	name := ""
	if c.eat("  # ") {
		if c.peek('"') {
			s, ok := c.quoted()
			if !ok {
				return nil, p.errorf("bad quoted node name at column %d of %q", c.pos+1, l)
			}
			name = s
		} else {
			rest := c.s[c.pos:]
			i := strings.Index(rest, " : ")
			if i < 0 {
				i = len(rest)
			}
			name, c.pos = rest[:i], c.pos+i
		}
	}
	var types []Type
	if c.eat(" : ") {
		for {
			t, err := c.typ()
			if err != nil {
				return nil, p.errorf("%v in %q", err, l)
			}
			types = append(types, t)
			if !c.eat(", ") {
				break
			}
		}
	}
	if !c.end() {
		return nil, p.errorf("unexpected text at column %d of %q", c.pos+1, l)
	}
	n := g.AddNode(op, domain, name, ins, outs, attrs...)
	k := 0
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		if anon[i] {
			unname(o, o.Name)
		}
		if k < len(types) {
			o.Type = types[k]
			k++
		}
		if err := define(sc, outs[i], o); err != nil {
			return nil, p.errorf("%v", err)
		}
	}
	if k != len(types) {
		return nil, p.errorf("%d types for %d outputs in %q", len(types), k, l)
	}
	return n, nil
}
