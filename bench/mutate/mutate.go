package main

// This file is the table of mutations. Each one picks a random site of the
// kind it damages (a Dim, an Attribute, a node's inputs, ...) in the parsed
// model and changes it; it reports false when the model has no such site,
// and the caller then draws another. Byte-level mutations act on the
// encoded file instead, so they also reach what the tree cannot express
// (broken lengths, wire types, truncation mid-field).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/wolong-dev/wolong/internal/pbwire"
)

// mctx is the state one variant's mutations share.
type mctx struct {
	r    *rand.Rand
	root *msg     // the parsed ModelProto
	ops  []string // op types to draw from (every seed's plus the standard ones)
	log  []string // what was done, one entry per mutation
}

func (c *mctx) logf(format string, args ...any) { c.log = append(c.log, fmt.Sprintf(format, args...)) }

// mutator is one row of the table.
type mutator struct {
	name   string
	weight int
	apply  func(c *mctx) bool
}

// mutators are the protobuf-aware mutations, weighted by how much of the
// code behind the importer they reach.
var mutators = []mutator{
	{"field-drop", 6, fieldDrop},
	{"field-dup", 4, fieldDup},
	{"field-swap", 3, fieldSwap},
	{"wire-type", 2, wireType},
	{"repeat-huge", 2, repeatHuge},
	{"dim", 8, dimMut},
	{"dtype", 6, dtypeMut},
	{"attr-value", 10, attrValue},
	{"attr-kind", 3, attrKind},
	{"attr-name", 3, attrName},
	{"op-type", 6, opType},
	{"domain", 3, domainMut},
	{"edge", 8, edgeMut},
	{"opset", 4, opsetMut},
	{"ext-data", 3, extData},
	{"nest-if", 3, nestIf},
	{"wrap-loop", 2, wrapLoop},
	{"fn-recursive", 2, fnRecursive},
	{"subgraph-swap", 2, subgraphSwap},
	{"tensor-values", 10, tensorValues},
	{"raw-size", 3, rawSize},
	{"name", 3, nameMut},
	{"sparse", 2, sparseMut},
	{"input-type", 2, inputType},
}

// byteMutators damage the encoded bytes.
var byteMutators = []struct {
	name  string
	apply func(r *rand.Rand, b []byte) ([]byte, string)
}{
	{"bitflip", bitflip},
	{"truncate", truncateBytes},
	{"splice", splice},
	{"chunk-dup", chunkDup},
	{"chunk-del", chunkDel},
}

var interestingInts = []int64{0, -1, 1, 2, 3, -2, 7, 255, 1 << 16, 1<<31 - 1, 1 << 31, 1 << 32, 1 << 40, 1 << 62, math.MaxInt64, math.MinInt64}

// intv returns an interesting int64: a boundary value or a small one.
func (c *mctx) intv() int64 {
	if c.r.IntN(3) == 0 {
		return c.r.Int64N(20) - 4
	}
	return interestingInts[c.r.IntN(len(interestingInts))]
}

var interestingFloats = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 1e-45, 1e38, -1e38, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 65504, 3}

func (c *mctx) floatv() float32 { return interestingFloats[c.r.IntN(len(interestingFloats))] }

var weirdStrings = []string{"", "x", "N", "a b", "a\nb", "\x1b[31mred\x1b[0m", "\xff\xfe", "a\x00b", "../../etc/passwd", "%s%d%n", strings.Repeat("long", 1200)}

func (c *mctx) strv() string { return weirdStrings[c.r.IntN(len(weirdStrings))] }

// pick returns a random element of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// sites returns every field of the tree that keep accepts.
func (c *mctx) sites(keep func(m *msg, f *field) bool) []site {
	var out []site
	c.root.walk(func(s site) {
		if keep(s.m, s.f()) {
			out = append(out, s)
		}
	})
	return out
}

// msgs returns the messages of kind k that keep accepts (nil keep: all).
func (c *mctx) msgs(k kind, keep func(m *msg) bool) []*msg {
	var out []*msg
	for _, m := range c.root.messages(k) {
		if keep == nil || keep(m) {
			out = append(out, m)
		}
	}
	return out
}

func any_(m *msg, f *field) bool { return true }

func fieldDrop(c *mctx) bool {
	ss := c.sites(any_)
	if len(ss) == 0 {
		return false
	}
	s := pick(c.r, ss)
	c.logf("drop field %d of a kind-%d message", s.f().num, s.m.kind)
	s.m.fields = slices.Delete(s.m.fields, s.i, s.i+1)
	return true
}

func fieldDup(c *mctx) bool {
	ss := c.sites(any_)
	if len(ss) == 0 {
		return false
	}
	s := pick(c.r, ss)
	f := *s.f()
	if f.sub != nil {
		f.sub = f.sub.clone()
	}
	at := s.i + 1
	if c.r.IntN(2) == 0 {
		at = len(s.m.fields)
	}
	c.logf("duplicate field %d of a kind-%d message", f.num, s.m.kind)
	s.m.fields = slices.Insert(s.m.fields, at, f)
	return true
}

func fieldSwap(c *mctx) bool {
	var ms []*msg
	for k := kModel; k <= kFunction; k++ {
		ms = append(ms, c.msgs(k, func(m *msg) bool { return len(m.fields) >= 2 })...)
	}
	if len(ms) == 0 {
		return false
	}
	m := pick(c.r, ms)
	i, j := c.r.IntN(len(m.fields)), c.r.IntN(len(m.fields))
	m.fields[i], m.fields[j] = m.fields[j], m.fields[i]
	c.logf("swap fields %d and %d of a kind-%d message", i, j, m.kind)
	return true
}

func wireType(c *mctx) bool {
	ss := c.sites(any_)
	if len(ss) == 0 {
		return false
	}
	f := pick(c.r, ss).f()
	switch f.typ {
	case pbwire.BytesType:
		f.typ, f.v, f.raw, f.sub = pick(c.r, []pbwire.Type{pbwire.VarintType, pbwire.Fixed32Type, pbwire.Fixed64Type}), uint64(c.intv()), nil, nil
	default:
		f.typ, f.raw, f.sub = pbwire.BytesType, []byte(c.strv()), nil
	}
	c.logf("field %d becomes wire type %d", f.num, f.typ)
	return true
}

// repeatHuge repeats one field (a node, an initializer, an input, an
// opset import, an attribute) or extends a packed list up to ~16 MiB.
func repeatHuge(c *mctx) bool {
	ss := c.sites(func(m *msg, f *field) bool {
		switch m.kind {
		case kModel:
			return f.num == fModelOpset
		case kGraph:
			return f.num == fGraphNode || f.num == fGraphInit || f.num == fGraphInput || f.num == fGraphOutput
		case kNode:
			return f.num == fNodeInput || f.num == fNodeAttr || f.num == fNodeOutput
		case kAttr:
			return f.num == fAttrInts || f.num == fAttrFloats
		case kTensor:
			return f.num == fTDims
		case kShape:
			return f.num == fShapeDim
		}
		return false
	})
	if len(ss) == 0 {
		return false
	}
	s := pick(c.r, ss)
	f := *s.f()
	n := pick(c.r, []int{16, 256, 4096, 65536, 1 << 20})
	if (s.m.kind == kAttr || s.m.kind == kTensor) && f.typ == pbwire.BytesType {
		vs := packedInts(&f)
		elem := len(f.raw)/max(len(vs), 1) + 1
		n = min(n, 16<<20/elem)
		for len(vs) < n {
			vs = append(vs, c.intv())
		}
		setPackedInts(s.f(), vs)
		c.logf("packed field %d of a kind-%d message extended to %d values", f.num, s.m.kind, n)
		return true
	}
	size := len(f.raw)
	if f.sub != nil {
		size = len(f.sub.encode(nil))
	}
	n = min(n, 16<<20/(size+4))
	add := make([]field, n)
	for i := range add {
		add[i] = f // sub-messages shared: they are only encoded after this
	}
	s.m.fields = slices.Insert(s.m.fields, s.i+1, add...)
	c.logf("field %d of a kind-%d message repeated %d times", f.num, s.m.kind, n)
	return true
}

func dimMut(c *mctx) bool {
	dims := c.msgs(kDim, nil)
	shapes := c.msgs(kShape, nil)
	tdims := c.sites(func(m *msg, f *field) bool { return m.kind == kTensor && f.num == fTDims })
	switch c.r.IntN(4) {
	case 0, 1:
		if len(dims) == 0 {
			return false
		}
		d := pick(c.r, dims)
		d.drop(fDimValue)
		d.drop(fDimParam)
		switch c.r.IntN(4) {
		case 0:
			s := pick(c.r, []string{"N", "", "batch", "2*N", "a b", "\xff"})
			d.addStr(fDimParam, s)
			c.logf("dim becomes param %q", s)
		case 1:
			c.logf("dim becomes unknown")
		default:
			v := c.intv()
			d.addInt(fDimValue, v)
			c.logf("dim becomes %d", v)
		}
	case 2:
		if len(shapes) == 0 {
			return false
		}
		sh := pick(c.r, shapes)
		if len(sh.fields) > 0 && c.r.IntN(2) == 0 {
			i := c.r.IntN(len(sh.fields))
			sh.fields = slices.Delete(sh.fields, i, i+1)
			c.logf("shape loses dim %d", i)
		} else {
			d := &msg{kind: kDim}
			d.addInt(fDimValue, c.intv())
			sh.fields = slices.Insert(sh.fields, c.r.IntN(len(sh.fields)+1), field{num: fShapeDim, typ: pbwire.BytesType, sub: d})
			c.logf("shape gains a dim")
		}
	default:
		if len(tdims) == 0 {
			return false
		}
		f := pick(c.r, tdims).f()
		vs := packedInts(f)
		switch {
		case len(vs) > 0 && c.r.IntN(3) > 0:
			i := c.r.IntN(len(vs))
			vs[i] = c.intv()
			c.logf("tensor dim %d becomes %d", i, vs[i])
		case len(vs) > 0 && c.r.IntN(2) == 0:
			vs = vs[:len(vs)-1]
			c.logf("tensor loses its last dim")
		default:
			vs = append(vs, c.intv())
			c.logf("tensor gains a dim")
		}
		setPackedInts(f, vs)
	}
	return true
}

var dtypes = []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 100, -1, 1 << 33}

func dtypeMut(c *mctx) bool {
	ss := c.sites(func(m *msg, f *field) bool {
		switch m.kind {
		case kTensorType:
			return f.num == fTensorElem
		case kTensor:
			return f.num == fTType
		case kAttr:
			n := m.str(fAttrName)
			return f.num == fAttrI && (n == "to" || n == "dtype" || n == "output_datatype")
		}
		return false
	})
	if len(ss) == 0 {
		return false
	}
	f := pick(c.r, ss).f()
	f.typ, f.v = pbwire.VarintType, uint64(pick(c.r, dtypes))
	c.logf("dtype field %d becomes %d", f.num, int64(f.v))
	return true
}

func attrValue(c *mctx) bool {
	as := c.msgs(kAttr, nil)
	if len(as) == 0 {
		return false
	}
	a := pick(c.r, as)
	name := a.str(fAttrName)
	for i := range a.fields {
		f := &a.fields[i]
		switch f.num {
		case fAttrI:
			f.typ, f.v = pbwire.VarintType, uint64(c.intv())
			c.logf("attribute %q i = %d", name, int64(f.v))
			return true
		case fAttrF:
			v := c.floatv()
			f.typ, f.v = pbwire.Fixed32Type, uint64(math.Float32bits(v))
			c.logf("attribute %q f = %g", name, v)
			return true
		case fAttrInts:
			vs := packedInts(f)
			switch {
			case len(vs) > 0 && c.r.IntN(3) > 0:
				vs[c.r.IntN(len(vs))] = c.intv()
			case c.r.IntN(2) == 0:
				vs = nil
			default:
				vs = append(vs, c.intv())
			}
			setPackedInts(f, vs)
			c.logf("attribute %q ints = %v", name, vs)
			return true
		case fAttrFloats:
			if f.typ != pbwire.BytesType {
				f.typ, f.v = pbwire.Fixed32Type, uint64(math.Float32bits(c.floatv()))
				c.logf("attribute %q floats[0] = %g", name, math.Float32frombits(uint32(f.v)))
			} else if len(f.raw) >= 4 {
				i := 4 * c.r.IntN(len(f.raw)/4)
				f.raw = pbwire.AppendFixed32(append([]byte(nil), f.raw[:i]...), math.Float32bits(c.floatv()))
				c.logf("attribute %q floats truncated with a special value", name)
			} else {
				f.raw = f.raw[:0]
				c.logf("attribute %q floats emptied", name)
			}
			return true
		case fAttrS:
			f.raw = []byte(c.strv())
			c.logf("attribute %q s = %q", name, f.raw)
			return true
		case fAttrT:
			if f.sub != nil {
				if mutateTensor(c, f.sub) {
					c.logf("attribute %q tensor values", name)
					return true
				}
			}
		case fAttrG:
			if f.sub != nil {
				f.sub.drop(fGraphNode)
				c.logf("attribute %q graph emptied of nodes", name)
				return true
			}
		}
	}
	return false
}

func attrKind(c *mctx) bool {
	as := c.msgs(kAttr, nil)
	if len(as) == 0 {
		return false
	}
	a := pick(c.r, as)
	if c.r.IntN(2) == 0 {
		t := pick(c.r, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 99, -1})
		a.drop(fAttrType)
		a.addInt(fAttrType, t)
		c.logf("attribute %q type = %d", a.str(fAttrName), t)
		return true
	}
	// Move the value into another value field.
	for i := range a.fields {
		f := &a.fields[i]
		if f.num >= fAttrF && f.num <= 23 && f.num != 13 && f.num != fAttrType && f.num != 21 {
			to := pick(c.r, []pbwire.Number{fAttrF, fAttrI, fAttrS, fAttrT, fAttrG, fAttrFloats, fAttrInts, fAttrStrings, 10, fAttrGraphs, 22})
			c.logf("attribute %q value moves from field %d to %d", a.str(fAttrName), f.num, to)
			f.num = to
			return true
		}
	}
	return false
}

var attrNames = []string{"axis", "axes", "perm", "kernel_shape", "pads", "strides", "dilations", "group", "to", "keepdims", "mode", "shape", "value", "then_branch", "else_branch", "body", "num_scan_inputs", "direction", "hidden_size", "epsilon", "alpha", "transA", "auto_pad", "allowzero", "blocksize", "bogus"}

func attrName(c *mctx) bool {
	as := c.msgs(kAttr, nil)
	if len(as) == 0 {
		return false
	}
	a := pick(c.r, as)
	n := pick(c.r, attrNames)
	c.logf("attribute %q renamed %q", a.str(fAttrName), n)
	a.set(field{num: fAttrName, typ: pbwire.BytesType, raw: []byte(n)})
	return true
}

func opType(c *mctx) bool {
	ns := c.msgs(kNode, nil)
	if len(ns) == 0 {
		return false
	}
	n := pick(c.r, ns)
	op := pick(c.r, c.ops)
	if c.r.IntN(10) == 0 {
		op = c.strv()
	}
	c.logf("node %q: op %q -> %q", n.str(fNodeName), n.str(fNodeOpType), op)
	n.set(field{num: fNodeOpType, typ: pbwire.BytesType, raw: []byte(op)})
	return true
}

func domainMut(c *mctx) bool {
	ns := c.msgs(kNode, nil)
	if len(ns) == 0 {
		return false
	}
	n := pick(c.r, ns)
	d := pick(c.r, []string{"", "ai.onnx", "com.microsoft", "ai.onnx.ml", "ai.onnx.contrib", "bogus.domain", "com.microsoft.experimental", "\xff"})
	c.logf("node %q (%s): domain %q", n.str(fNodeName), n.str(fNodeOpType), d)
	n.drop(fNodeDomain)
	n.addStr(fNodeDomain, d)
	return true
}

// valueNames returns every value name the tree mentions: node inputs and
// outputs, graph inputs and outputs and initializers, in tree order.
func (c *mctx) valueNames() []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, n := range c.msgs(kNode, nil) {
		for _, s := range append(n.strs(fNodeInput), n.strs(fNodeOutput)...) {
			add(s)
		}
	}
	for _, v := range c.msgs(kValueInfo, nil) {
		add(v.str(fVIName))
	}
	return out
}

// edgeMut rewires one edge: an input to another value (upstream,
// downstream: a cycle, a subgraph's: a scope error), to nothing or to an
// empty name; an output to an existing name (defined twice); an extra or a
// missing input.
func edgeMut(c *mctx) bool {
	ns := c.msgs(kNode, nil)
	names := c.valueNames()
	if len(ns) == 0 || len(names) == 0 {
		return false
	}
	n := pick(c.r, ns)
	var ins, outs []int
	for i, f := range n.fields {
		switch f.num {
		case fNodeInput:
			ins = append(ins, i)
		case fNodeOutput:
			outs = append(outs, i)
		}
	}
	target := pick(c.r, names)
	switch a := c.r.IntN(6); {
	case a <= 1 && len(ins) > 0:
		i := pick(c.r, ins)
		if c.r.IntN(4) == 0 {
			target = pick(c.r, []string{"", "ghost"})
		}
		c.logf("node %q: input %q -> %q", n.str(fNodeName), n.fields[i].raw, target)
		n.fields[i].raw = []byte(target)
	case a == 2 && len(outs) > 0:
		i := pick(c.r, outs)
		c.logf("node %q: output %q -> %q", n.str(fNodeName), n.fields[i].raw, target)
		n.fields[i].raw = []byte(target)
	case a == 3:
		c.logf("node %q: extra input %q", n.str(fNodeName), target)
		n.addStr(fNodeInput, target)
	case a == 4 && len(ins) > 0:
		c.logf("node %q: inputs dropped", n.str(fNodeName))
		n.drop(fNodeInput)
	default:
		outsG := c.sites(func(m *msg, f *field) bool { return m.kind == kGraph && f.num == fGraphOutput && f.sub != nil })
		if len(outsG) == 0 {
			return false
		}
		vi := pick(c.r, outsG).f().sub
		c.logf("graph output %q -> %q", vi.str(fVIName), target)
		vi.set(field{num: fVIName, typ: pbwire.BytesType, raw: []byte(target)})
	}
	return true
}

func opsetMut(c *mctx) bool {
	if c.r.IntN(5) == 0 {
		v := pick(c.r, []int64{0, 1, 3, 7, 10, 11, 12, 100, -1})
		c.root.drop(fModelIR)
		c.root.fields = slices.Insert(c.root.fields, 0, field{num: fModelIR, typ: pbwire.VarintType, v: uint64(v)})
		c.logf("ir_version %d", v)
		return true
	}
	var ops []*msg
	for _, kn := range []struct {
		k kind
		n pbwire.Number
	}{{kModel, fModelOpset}, {kFunction, fFnOpset}} {
		for _, m := range c.msgs(kn.k, nil) {
			for _, f := range m.fields {
				if f.num == kn.n && f.sub != nil {
					ops = append(ops, f.sub)
				}
			}
		}
	}
	switch {
	case len(ops) == 0 || c.r.IntN(6) == 0:
		c.root.drop(fModelOpset)
		c.logf("opset imports dropped")
	case c.r.IntN(5) == 0:
		o := &msg{kind: kLeaf}
		d := pick(c.r, []string{"", "ai.onnx", "com.microsoft", "ai.onnx.ml", "bogus"})
		v := c.intv()
		o.addStr(fOpsetDomain, d)
		o.addInt(fOpsetVersion, v)
		c.root.addSub(fModelOpset, o)
		c.logf("opset import %q %d added", d, v)
	default:
		o := pick(c.r, ops)
		v := pick(c.r, []int64{0, 1, 6, 7, 9, 11, 13, 17, 18, 21, 22, 23, 24, 25, 26, 99, -1, 1 << 40})
		o.set(field{num: fOpsetVersion, typ: pbwire.VarintType, v: uint64(v)})
		c.logf("opset %q -> %d", o.str(fOpsetDomain), v)
	}
	return true
}

// extData turns a tensor's data into an external-data reference: to a
// file that is missing, outside the folder (relative or absolute), the
// model itself, or a real file at offsets past its end.
func extData(c *mctx) bool {
	ts := c.msgs(kTensor, func(m *msg) bool { return m.get(fTDims) != nil || m.get(fTRaw) != nil || m.get(fTExternal) != nil })
	if len(ts) == 0 {
		return false
	}
	t := pick(c.r, ts)
	loc := pick(c.r, []string{"missing.bin", "../escape.bin", "/etc/hostname", "sub/../../escape.bin", "", "v.onnx", ".", "side.bin", "a\x00b", "escape.bin/../../escape.bin"})
	for _, n := range []pbwire.Number{fTFloat, fTInt32, 6, fTInt64, fTRaw, fTDouble, 11, fTExternal, fTLocation} {
		t.drop(n)
	}
	entry := func(k, v string) {
		e := &msg{kind: kLeaf}
		e.addStr(fEntryKey, k)
		e.addStr(fEntryValue, v)
		t.addSub(fTExternal, e)
	}
	entry("location", loc)
	if c.r.IntN(2) == 0 {
		entry("offset", pick(c.r, []string{"0", "8", "-1", "99999999999", "abc", "18446744073709551615"}))
	}
	if c.r.IntN(2) == 0 {
		entry("length", pick(c.r, []string{"0", "4", "-8", "99999999999", "1e3"}))
	}
	t.addInt(fTLocation, pick(c.r, []int64{1, 1, 1, 0, 7}))
	c.logf("tensor %q: external data at %q", t.str(fTName), loc)
	return true
}

// graphOf returns the graphs of the tree with at least one node.
func (c *mctx) graphs() []*msg {
	return c.msgs(kGraph, func(m *msg) bool { return m.get(fGraphNode) != nil })
}

// bodyOf returns a GraphProto holding node n, its outputs declared without types.
func bodyOf(name string, n *msg, extraOut ...string) *msg {
	g := &msg{kind: kGraph}
	g.addSub(fGraphNode, n)
	g.addStr(fGraphName, name)
	for _, o := range append(extraOut, n.strs(fNodeOutput)...) {
		vi := &msg{kind: kValueInfo}
		vi.addStr(fVIName, o)
		g.addSub(fGraphOutput, vi)
	}
	return g
}

func graphAttr(name string, g *msg) *msg {
	a := &msg{kind: kAttr}
	a.addStr(fAttrName, name)
	a.addInt(fAttrType, 5)
	a.addSub(fAttrG, g)
	return a
}

// nestIf wraps one node in 1 to 40 levels of If, both branches holding it,
// the condition taken from any value of the graph.
func nestIf(c *mctx) bool {
	gs := c.graphs()
	if len(gs) == 0 {
		return false
	}
	g := pick(c.r, gs)
	idx := nodeIndexes(g)
	i := pick(c.r, idx)
	n := g.fields[i].sub
	if n == nil {
		return false
	}
	cond := pick(c.r, append(c.valueNames(), "cond"))
	depth := pick(c.r, []int{1, 1, 2, 3, 8, 40})
	outs := n.strs(fNodeOutput)
	orig := n
	for d := 0; d < depth; d++ {
		w := &msg{kind: kNode}
		w.addStr(fNodeInput, cond)
		for _, o := range outs {
			w.addStr(fNodeOutput, o)
		}
		w.addStr(fNodeName, fmt.Sprintf("nest_if_%d", d))
		w.addStr(fNodeOpType, "If")
		// The nesting goes through then_branch only, so the size grows linearly.
		w.addSub(fNodeAttr, graphAttr("then_branch", bodyOf("then", n)))
		w.addSub(fNodeAttr, graphAttr("else_branch", bodyOf("else", orig.clone())))
		n = w
	}
	g.fields[i].sub = n
	c.logf("node %d wrapped in %d If levels on %q", i, depth, cond)
	return true
}

func nodeIndexes(g *msg) []int {
	var out []int
	for i, f := range g.fields {
		if f.num == fGraphNode {
			out = append(out, i)
		}
	}
	return out
}

// wrapLoop puts one node in a Loop body with a trip count from a new
// initializer (0, 1, 3 or 2^20 iterations): its outputs become scan
// outputs, one more dim each.
func wrapLoop(c *mctx) bool {
	gs := c.graphs()
	if len(gs) == 0 {
		return false
	}
	g := pick(c.r, gs)
	i := pick(c.r, nodeIndexes(g))
	n := g.fields[i].sub
	if n == nil {
		return false
	}
	trip := pick(c.r, []int64{0, 1, 3, 1 << 20})
	tname := fmt.Sprintf("loop_trip_%d", i)
	t := &msg{kind: kTensor}
	t.addInt(fTType, 7)
	t.addStr(fTName, tname)
	t.fields = append(t.fields, field{num: fTRaw, typ: pbwire.BytesType, raw: pbwire.AppendFixed64(nil, uint64(trip))})
	g.addSub(fGraphInit, t)

	body := bodyOf("body", n, "cond_out")
	ident := &msg{kind: kNode}
	ident.addStr(fNodeInput, "cond_in")
	ident.addStr(fNodeOutput, "cond_out")
	ident.addStr(fNodeOpType, "Identity")
	body.fields = slices.Insert(body.fields, 0, field{num: fGraphNode, typ: pbwire.BytesType, sub: ident})
	for _, in := range []struct {
		name  string
		dtype int64
	}{{"iter", 7}, {"cond_in", 9}} {
		tt := &msg{kind: kTensorType}
		tt.addInt(fTensorElem, in.dtype)
		tt.addSub(fTensorShape, &msg{kind: kShape})
		ty := &msg{kind: kType}
		ty.addSub(fTypeTensor, tt)
		vi := &msg{kind: kValueInfo}
		vi.addStr(fVIName, in.name)
		vi.addSub(fVIType, ty)
		body.addSub(fGraphInput, vi)
	}
	w := &msg{kind: kNode}
	w.addStr(fNodeInput, tname)
	w.addStr(fNodeInput, "")
	for _, o := range n.strs(fNodeOutput) {
		w.addStr(fNodeOutput, o)
	}
	w.addStr(fNodeName, "wrap_loop")
	w.addStr(fNodeOpType, "Loop")
	w.addSub(fNodeAttr, graphAttr("body", body))
	g.fields[i].sub = w
	c.logf("node %d wrapped in a Loop of %d iterations", i, trip)
	return true
}

// fnRecursive adds model-local functions that call themselves (or each
// other) and points a node at one.
func fnRecursive(c *mctx) bool {
	ns := c.msgs(kNode, nil)
	if len(ns) == 0 {
		return false
	}
	mutual := c.r.IntN(2) == 0
	fn := func(name, callee string) *msg {
		f := &msg{kind: kFunction}
		f.addStr(fFnName, name)
		f.addStr(fFnInput, "x")
		f.addStr(fFnOutput, "y")
		body := &msg{kind: kNode}
		body.addStr(fNodeInput, "x")
		body.addStr(fNodeOutput, "y")
		body.addStr(fNodeOpType, callee)
		body.addStr(fNodeDomain, "local.fn")
		f.addSub(fFnNode, body)
		o := &msg{kind: kLeaf}
		o.addStr(fOpsetDomain, "")
		o.addInt(fOpsetVersion, 17)
		f.addSub(fFnOpset, o)
		o = &msg{kind: kLeaf}
		o.addStr(fOpsetDomain, "local.fn")
		o.addInt(fOpsetVersion, 1)
		f.addSub(fFnOpset, o)
		f.addStr(fFnDomain, "local.fn")
		return f
	}
	if mutual {
		c.root.addSub(fModelFunctions, fn("F", "G"))
		c.root.addSub(fModelFunctions, fn("G", "F"))
	} else {
		c.root.addSub(fModelFunctions, fn("F", "F"))
	}
	o := &msg{kind: kLeaf}
	o.addStr(fOpsetDomain, "local.fn")
	o.addInt(fOpsetVersion, 1)
	c.root.addSub(fModelOpset, o)
	n := pick(c.r, ns)
	n.set(field{num: fNodeOpType, typ: pbwire.BytesType, raw: []byte("F")})
	n.drop(fNodeDomain)
	n.addStr(fNodeDomain, "local.fn")
	c.logf("node %q calls a recursive local function (mutual %v)", n.str(fNodeName), mutual)
	return true
}

// subgraphSwap replaces an If/Loop/Scan body with a copy of another graph
// of the model (the main graph included): wrong arity, wrong scope.
func subgraphSwap(c *mctx) bool {
	ss := c.sites(func(m *msg, f *field) bool {
		return m.kind == kAttr && (f.num == fAttrG || f.num == fAttrGraphs) && f.sub != nil
	})
	gs := c.msgs(kGraph, nil)
	if len(ss) == 0 || len(gs) == 0 {
		return false
	}
	f := pick(c.r, ss).f()
	g := pick(c.r, gs)
	if g == f.sub {
		return false
	}
	f.sub = g.clone()
	c.logf("a subgraph replaced by a copy of graph %q", g.str(fGraphName))
	return true
}

// tensorValues changes values of a small tensor (shape constants, axes,
// starts, scales: the values shape inference and folding read).
func tensorValues(c *mctx) bool {
	ts := c.msgs(kTensor, func(m *msg) bool {
		for _, n := range []pbwire.Number{fTRaw, fTInt64, fTInt32, fTFloat, fTDouble} {
			if f := m.get(n); f != nil && len(f.raw) > 0 && len(f.raw) <= 1024 {
				return true
			}
		}
		return false
	})
	if len(ts) == 0 {
		return false
	}
	t := pick(c.r, ts)
	if !mutateTensor(c, t) {
		return false
	}
	c.logf("values of tensor %q", t.str(fTName))
	return true
}

// mutateTensor changes one element of t's data to an interesting value.
func mutateTensor(c *mctx, t *msg) bool {
	dt := int64(-1)
	if f := t.get(fTType); f != nil {
		dt = int64(f.v)
	}
	for _, n := range []pbwire.Number{fTRaw, fTInt64, fTInt32, fTFloat, fTDouble} {
		f := t.get(n)
		if f == nil || f.typ != pbwire.BytesType || len(f.raw) == 0 {
			continue
		}
		b := append([]byte(nil), f.raw...)
		switch {
		case n == fTInt64 || n == fTInt32:
			vs := packedInts(f)
			if len(vs) == 0 {
				return false
			}
			vs[c.r.IntN(len(vs))] = c.intv()
			setPackedInts(f, vs)
			return true
		case (n == fTFloat || (n == fTRaw && dt == 1)) && len(b) >= 4:
			i := 4 * c.r.IntN(len(b)/4)
			copy(b[i:], pbwire.AppendFixed32(nil, math.Float32bits(c.floatv())))
		case (n == fTRaw && dt == 7) || n == fTDouble:
			if len(b) < 8 {
				return false
			}
			i := 8 * c.r.IntN(len(b)/8)
			copy(b[i:], pbwire.AppendFixed64(nil, uint64(c.intv())))
		case n == fTRaw && dt == 6 && len(b) >= 4:
			i := 4 * c.r.IntN(len(b)/4)
			copy(b[i:], pbwire.AppendFixed32(nil, uint32(c.intv())))
		default:
			b[c.r.IntN(len(b))] = byte(c.intv())
		}
		f.raw = b
		return true
	}
	return false
}

func rawSize(c *mctx) bool {
	ss := c.sites(func(m *msg, f *field) bool { return m.kind == kTensor && f.num == fTRaw })
	if len(ss) == 0 {
		return false
	}
	f := pick(c.r, ss).f()
	switch c.r.IntN(4) {
	case 0:
		f.raw = f.raw[:c.r.IntN(len(f.raw)+1)]
		c.logf("raw data truncated to %d bytes", len(f.raw))
	case 1:
		f.raw = append(append([]byte(nil), f.raw...), f.raw...)
		c.logf("raw data doubled to %d bytes", len(f.raw))
	case 2:
		f.num = fTFloat
		c.logf("raw data moved to float_data")
	default:
		f.raw = nil
		c.logf("raw data emptied")
	}
	return true
}

func nameMut(c *mctx) bool {
	ss := c.sites(func(m *msg, f *field) bool {
		switch m.kind {
		case kNode:
			return f.num == fNodeName || f.num == fNodeInput || f.num == fNodeOutput
		case kValueInfo:
			return f.num == fVIName
		case kTensor:
			return f.num == fTName
		case kGraph:
			return f.num == fGraphName
		}
		return false
	})
	if len(ss) == 0 {
		return false
	}
	f := pick(c.r, ss).f()
	s := c.strv()
	c.logf("name %q -> %q", truncLog(string(f.raw)), truncLog(s))
	f.typ, f.raw, f.sub = pbwire.BytesType, []byte(s), nil
	return true
}

func truncLog(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// sparseMut moves an initializer into sparse_initializer: its first values
// with random indices (some out of range, negative or repeated).
func sparseMut(c *mctx) bool {
	ss := c.sites(func(m *msg, f *field) bool { return m.kind == kGraph && f.num == fGraphInit && f.sub != nil })
	if len(ss) == 0 {
		return false
	}
	s := pick(c.r, ss)
	t := s.f().sub
	vals := t.clone()
	vals.drop(fTDims)
	k := int64(1 + c.r.IntN(4))
	vals.fields = slices.Insert(vals.fields, 0, field{num: fTDims, typ: pbwire.BytesType, raw: pbwire.AppendVarint(nil, uint64(k))})
	idx := &msg{kind: kTensor}
	setIdx := field{num: fTDims}
	setPackedInts(&setIdx, []int64{k})
	idx.fields = append(idx.fields, setIdx)
	idx.addInt(fTType, 7)
	var raw []byte
	for i := int64(0); i < k; i++ {
		raw = pbwire.AppendFixed64(raw, uint64(c.intv()))
	}
	idx.fields = append(idx.fields, field{num: fTRaw, typ: pbwire.BytesType, raw: raw})
	sp := &msg{kind: kSparse}
	sp.addSub(fSparseValues, vals)
	sp.addSub(fSparseIndices, idx)
	if d := t.get(fTDims); d != nil {
		dd := *d
		dd.num = fSparseDims
		sp.fields = append(sp.fields, dd)
	}
	s.m.fields = slices.Delete(s.m.fields, s.i, s.i+1)
	s.m.addSub(fGraphSparseInit, sp)
	c.logf("initializer %q made sparse with %d values", t.str(fTName), k)
	return true
}

// inputType changes a graph input's or output's type to a sequence, a map,
// an optional or a sparse tensor of its tensor type.
func inputType(c *mctx) bool {
	ss := c.sites(func(m *msg, f *field) bool { return m.kind == kValueInfo && f.num == fVIType && f.sub != nil })
	if len(ss) == 0 {
		return false
	}
	ty := pick(c.r, ss).f().sub
	wrap := pick(c.r, []pbwire.Number{4, 5, 8, 9, 3})
	inner := ty.clone()
	ty.fields = nil
	switch wrap {
	case 5:
		mt := &msg{kind: kMapType}
		mt.addInt(1, 7)
		mt.addSub(2, inner)
		ty.addSub(5, mt)
	case 8:
		if tt := inner.get(fTypeTensor); tt != nil && tt.sub != nil {
			ty.addSub(8, tt.sub)
		}
	case 3: // no such member
		ty.addInt(3, 1)
	default:
		st := &msg{kind: kSeqType}
		st.addSub(1, inner)
		ty.addSub(wrap, st)
	}
	c.logf("a value's type wrapped in TypeProto member %d", wrap)
	return true
}

func bitflip(r *rand.Rand, b []byte) ([]byte, string) {
	if len(b) == 0 {
		return b, "bitflip (empty)"
	}
	n := 1 + r.IntN(8)
	for k := 0; k < n; k++ {
		b[r.IntN(len(b))] ^= 1 << r.IntN(8)
	}
	return b, fmt.Sprintf("%d bits flipped", n)
}

func truncateBytes(r *rand.Rand, b []byte) ([]byte, string) {
	n := r.IntN(len(b) + 1)
	return b[:n], fmt.Sprintf("truncated to %d of %d bytes", n, len(b))
}

func splice(r *rand.Rand, b []byte) ([]byte, string) {
	if len(b) == 0 {
		return b, "splice (empty)"
	}
	at := r.IntN(len(b))
	n := min(1+r.IntN(16), len(b)-at)
	v := pick(r, []byte{0x00, 0xff, 0x7f, 0x80, 0x01})
	for i := at; i < at+n; i++ {
		b[i] = v
	}
	return b, fmt.Sprintf("%d bytes at %d set to %#x", n, at, v)
}

func chunkDup(r *rand.Rand, b []byte) ([]byte, string) {
	if len(b) == 0 {
		return b, "chunk-dup (empty)"
	}
	at := r.IntN(len(b))
	n := min(1+r.IntN(256), len(b)-at)
	to := r.IntN(len(b) + 1)
	return slices.Insert(b, to, slices.Clone(b[at:at+n])...), fmt.Sprintf("%d bytes from %d copied to %d", n, at, to)
}

func chunkDel(r *rand.Rand, b []byte) ([]byte, string) {
	if len(b) == 0 {
		return b, "chunk-del (empty)"
	}
	at := r.IntN(len(b))
	n := min(1+r.IntN(256), len(b)-at)
	return slices.Delete(b, at, at+n), fmt.Sprintf("%d bytes deleted at %d", n, at)
}
