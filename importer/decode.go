package importer

// This file implements decoding of ModelProto, GraphProto, NodeProto,
// AttributeProto and FunctionProto into the IR, with name resolution
// across nested scopes.

import (
	"fmt"
	"slices"

	"github.com/wolong-dev/wolong/internal/pbwire"

	"github.com/wolong-dev/wolong/ir"
)

// decoder holds the state of one import.
type decoder struct {
	file  []byte // the whole model file (for offsets)
	path  string
	dir   string // folder external data is confined to ("" when decoding memory)
	maps  *mappings
	self  *mapping // the mapping of file (nil when decoding memory)
	ext   map[string]*mapping
	opt   Options
	depth int
	// ops interns op types: a model of 100k nodes has a handful, and one
	// string each saves an allocation per node
	ops map[string]string
	// attrs shares plain attributes (numbers, strings and their lists)
	// between the nodes whose AttributeProto bytes are equal: a model's
	// 100k Conv nodes carry a handful of distinct kernel_shape, pads and
	// strides, and an ir.Attr is ~300 bytes. No stage mutates an Attr in
	// place (passes give a node new ones), so one Attr may serve many.
	attrs map[string]*ir.Attr
}

func (d *decoder) warn(format string, args ...any) {
	if d.opt.Warn != nil {
		d.opt.Warn(fmt.Sprintf(format, args...))
	}
}

func (d *decoder) model(b []byte) (*ir.Model, error) {
	m := &ir.Model{}
	var graphBytes []byte
	var fnBytes [][]byte
	haveGraph := false
	err := eachField(b, func(f field) error {
		var err error
		switch f.num {
		case modelIRVersion:
			m.IRVersion, err = f.int64()
		case modelProducerName:
			m.ProducerName = f.doc()
		case modelProducerVersion:
			m.ProducerVersion = f.doc()
		case modelDomain:
			m.Domain = f.doc()
		case modelModelVersion:
			m.ModelVersion, err = f.int64()
		case modelDocString:
			m.Doc = f.doc()
		case modelGraph:
			graphBytes, haveGraph = f.b, true
		case modelOpsetImport:
			var o ir.OpsetID
			o, err = d.opset(f.b)
			m.Opsets = append(m.Opsets, o)
		case modelMetadataProps:
			var kv ir.StringPair
			kv, err = d.entry(f.b)
			m.Metadata = append(m.Metadata, kv)
		case modelTrainingInfo:
			d.warn("training_info is not imported")
		case modelFunctions:
			fnBytes = append(fnBytes, f.b)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !haveGraph {
		return nil, fmt.Errorf("not an ONNX model: no graph")
	}
	if m.IRVersion <= 0 {
		return nil, fmt.Errorf("not an ONNX model: ir_version %d", m.IRVersion)
	}
	seen := map[string]bool{}
	for _, o := range m.Opsets {
		dom := ir.CanonicalDomain(o.Domain)
		if seen[dom] {
			return nil, fmt.Errorf("opset_import lists domain %q twice", o.Domain)
		}
		seen[dom] = true
		if o.Version < 1 || o.Version > maxOpsetVersion {
			return nil, fmt.Errorf("opset_import %q version %d is out of range (1..%d)", o.Domain, o.Version, maxOpsetVersion)
		}
	}
	for i := range m.Opsets {
		m.Opsets[i].Domain = ir.CanonicalDomain(m.Opsets[i].Domain)
	}
	if len(m.Opsets) == 0 {
		// IR version 1-2 models may omit it; the default domain at opset 1 is implied.
		m.Opsets = []ir.OpsetID{{Domain: "", Version: 1}}
		d.warn("no opset_import: assuming ai.onnx opset 1")
	}
	for _, fb := range fnBytes {
		fn, err := d.function(fb)
		if err != nil {
			return nil, err
		}
		m.Functions = append(m.Functions, fn)
	}
	g, err := d.graph(graphBytes, nil, nil)
	if err != nil {
		return nil, err
	}
	m.Graph = g
	return m, nil
}

// maxOpsetVersion is the largest opset version accepted for any domain: a
// generous bound above every released opset, so that "opsets from the
// future" within reason import (their unknown ops go opaque), while absurd
// versions are refused.
const maxOpsetVersion = 1000

func (d *decoder) opset(b []byte) (ir.OpsetID, error) {
	var o ir.OpsetID
	err := eachField(b, func(f field) error {
		var err error
		switch f.num {
		case opsetDomain:
			o.Domain, err = f.str("opset domain")
		case opsetVersion:
			o.Version, err = f.int64()
		}
		return err
	})
	return o, err
}

// rawGraph is a GraphProto decoded but not yet linked.
type rawGraph struct {
	name, doc  string
	nodes      []rawNode
	inits      []*ir.Tensor
	sparse     []*ir.SparseTensor
	inputs     []valueInfo
	outputs    []valueInfo
	valueInfos []valueInfo
	metadata   []ir.StringPair
}

type rawNode struct {
	inputs, outputs            []string
	name, op, domain, overload string
	doc                        string
	attrs                      [][]byte
	metadata                   []ir.StringPair
}

func (d *decoder) rawGraph(b []byte) (*rawGraph, error) {
	rg := &rawGraph{}
	nodes := 0
	eachField(b, func(f field) error {
		if f.num == graphNode {
			nodes++
		}
		return nil
	})
	rg.nodes = make([]rawNode, 0, nodes)
	err := eachField(b, func(f field) error {
		var err error
		switch f.num {
		case graphNode:
			var n rawNode
			n, err = d.rawNode(f.b)
			rg.nodes = append(rg.nodes, n)
		case graphName:
			rg.name, err = f.str("graph name")
		case graphInitializer:
			var t *ir.Tensor
			t, err = d.tensor(f.b)
			rg.inits = append(rg.inits, t)
		case graphSparseInitializer:
			var st *ir.SparseTensor
			st, err = d.sparseTensor(f.b)
			rg.sparse = append(rg.sparse, st)
		case graphDocString:
			rg.doc = f.doc()
		case graphInput, graphOutput, graphValueInfo:
			var vi valueInfo
			vi, err = d.valueInfo(f.b)
			switch f.num {
			case graphInput:
				rg.inputs = append(rg.inputs, vi)
			case graphOutput:
				rg.outputs = append(rg.outputs, vi)
			default:
				rg.valueInfos = append(rg.valueInfos, vi)
			}
		case graphMetadataProps:
			var kv ir.StringPair
			kv, err = d.entry(f.b)
			rg.metadata = append(rg.metadata, kv)
		case graphQuantizationAnnotation:
			// Quantization annotations describe tensors for other tools; not kept.
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("graph %q: %w", rg.name, err)
	}
	return rg, nil
}

func (d *decoder) rawNode(b []byte) (rawNode, error) {
	var n rawNode
	err := eachField(b, func(f field) error {
		var err error
		var s string
		switch f.num {
		case nodeInput:
			s, err = f.str("node input")
			n.inputs = append(n.inputs, s)
		case nodeOutput:
			s, err = f.str("node output")
			n.outputs = append(n.outputs, s)
		case nodeName:
			n.name, err = f.str("node name")
		case nodeOpType:
			n.op, err = d.opType(f)
		case nodeDomain:
			n.domain, err = f.str("node domain")
			n.domain = ir.CanonicalDomain(n.domain)
		case nodeOverload:
			n.overload, err = f.str("node overload")
		case nodeAttribute:
			n.attrs = append(n.attrs, f.b)
		case nodeDocString:
			n.doc = f.doc()
		case nodeMetadataProps:
			var kv ir.StringPair
			kv, err = d.entry(f.b)
			n.metadata = append(n.metadata, kv)
		}
		return err
	})
	if err != nil {
		return n, &Error{File: d.path, Node: n.name, Err: err}
	}
	if n.op == "" {
		return n, &Error{File: d.path, Node: n.name, Err: fmt.Errorf("node has no op_type")}
	}
	return n, nil
}

// opType is f as an op type (f.str), interned in d.ops.
func (d *decoder) opType(f field) (string, error) {
	if op, ok := d.ops[string(f.b)]; ok && f.typ == pbwire.BytesType { // the conversion does not allocate
		return op, nil
	}
	op, err := f.str("op_type")
	if err != nil {
		return "", err
	}
	if d.ops == nil {
		d.ops = map[string]string{}
	}
	d.ops[op] = op
	return op, nil
}

// scope maps names to values for one graph, chained to the enclosing one.
type scope struct {
	names  map[string]*ir.Value
	parent *scope
}

func (s *scope) lookup(name string) *ir.Value {
	for ; s != nil; s = s.parent {
		if v, ok := s.names[name]; ok {
			return v
		}
	}
	return nil
}

// graph decodes and links a GraphProto. parent is the enclosing scope and
// owner the node holding it (nil for the main graph).
func (d *decoder) graph(b []byte, parent *scope, owner *ir.Node) (*ir.Graph, error) {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > d.opt.MaxDepth {
		return nil, fmt.Errorf("subgraphs nested deeper than %d", d.opt.MaxDepth)
	}
	rg, err := d.rawGraph(b)
	if err != nil {
		return nil, err
	}
	return d.link(rg, parent, owner)
}

func (d *decoder) link(rg *rawGraph, parent *scope, owner *ir.Node) (*ir.Graph, error) {
	g := ir.NewGraph(rg.name)
	g.SetDoc(rg.doc)
	g.SetMetadata(rg.metadata)
	g.ParentNode = owner
	if owner != nil {
		g.Parent = owner.Graph
	}
	gname := rg.name
	if owner == nil {
		gname = ""
	} else if gname == "" {
		gname = "(subgraph of " + ir.NodeLabel(owner) + ")"
	}
	fail := func(node string, err error) error { return &Error{File: d.path, Graph: gname, Node: node, Err: err} }
	sc := &scope{names: make(map[string]*ir.Value, len(rg.nodes)+len(rg.inputs)+len(rg.inits)), parent: parent}
	// define names v in this scope; what (or, for a node's output, node)
	// says what defines it in the error for a name defined twice.
	define := func(v *ir.Value, what string, node *ir.Node) error {
		if v.Name == "" {
			return nil
		}
		if prev, ok := sc.names[v.Name]; ok {
			if node != nil {
				what = "node " + ir.NodeLabel(node) // built only here: a label per node was ~25 ms at 100k nodes
			}
			by := "an input or initializer"
			if prev.Producer != nil {
				by = "node " + ir.NodeLabel(prev.Producer)
			}
			return fmt.Errorf("value %q is defined twice (by %s and %s)", v.Name, by, what)
		}
		sc.names[v.Name] = v
		return nil
	}
	for i, vi := range rg.inputs {
		if vi.name == "" {
			return nil, fail("", fmt.Errorf("graph input #%d has no name", i))
		}
		var t ir.Type
		if vi.typ != nil {
			t = vi.typ.Clone()
		}
		v := g.AddInput(vi.name, t)
		if vi.typ != nil {
			dt := vi.typ.Clone()
			v.Declared = &dt
		}
		v.SetInfo(vi.doc, vi.metadata)
		if err := define(v, "a graph input", nil); err != nil {
			return nil, fail("", err)
		}
	}
	for i, t := range rg.inits {
		if t.Name == "" {
			return nil, fail("", fmt.Errorf("initializer #%d (%s) has no name", i, t.DType))
		}
		if v, ok := sc.names[t.Name]; ok && v.Producer == nil && v.Const == nil && t.Name != "" {
			// IR < 4: an initializer that is also a graph input is its default value.
			v.Const = t
			g.Initializers = append(g.Initializers, v)
			continue
		}
		v := g.AddInitializer(t)
		if err := define(v, "an initializer", nil); err != nil {
			return nil, fail("", err)
		}
	}
	for _, st := range rg.sparse {
		v := g.NewValue(st.Values.Name, ir.Type{Kind: ir.KindTensor, DType: st.Values.DType, Shape: ir.ShapeOf(st.Dims...)})
		g.AddSparse(&ir.SparseInitializer{Value: v, Sparse: st})
		if err := define(v, "a sparse initializer", nil); err != nil {
			return nil, fail("", err)
		}
	}
	// Create every node and its outputs first, so that inputs may name
	// values produced later in the list (unsorted graphs; cycles are the
	// verifier's to report) and subgraphs see every name of this scope.
	nodes := make([]*ir.Node, len(rg.nodes))
	sl := nodeSlab(rg.nodes)
	g.Nodes = slices.Grow(g.Nodes, len(rg.nodes))
	for i, rn := range rg.nodes {
		n := g.AddNodeIn(sl, rn.op, rn.domain, rn.name, nil, rn.outputs)
		n.SetInfo(rn.overload, rn.doc, rn.metadata)
		nodes[i] = n
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			if err := define(o, "", n); err != nil {
				return nil, fail(ir.NodeLabel(n), err)
			}
		}
	}
	for i, rn := range rg.nodes {
		n := nodes[i]
		for _, ab := range rn.attrs {
			a, err := d.attr(ab, sc, n)
			if err != nil {
				var ie *Error
				if asErr(err, &ie) {
					return nil, err
				}
				return nil, fail(ir.NodeLabel(n), err)
			}
			if n.Attr(a.Name) != nil {
				return nil, fail(ir.NodeLabel(n), fmt.Errorf("attribute %q given twice", a.Name))
			}
			n.Attrs = append(n.Attrs, a)
		}
		ins := make([]*ir.Value, len(rn.inputs))
		for j, name := range rn.inputs {
			if name == "" {
				continue
			}
			v := recentOutput(nodes[max(i-recentNodes, 0):i], name)
			if v == nil {
				v = sc.lookup(name)
			}
			if v == nil {
				return nil, fail(ir.NodeLabel(n), fmt.Errorf("input %d reads %q, which nothing produces", j, name))
			}
			ins[j] = v
		}
		n.Inputs = make([]*ir.Value, len(ins))
		for j, v := range ins {
			n.Inputs[j] = nil
			if v != nil {
				n.SetInput(j, v)
			}
		}
	}
	if err := linkOutputs(g, rg, sc); err != nil {
		return nil, fail("", err)
	}
	// The IR keeps nodes in topological order (ir.Verify checks it): a
	// file that lists them out of order is sorted here, stably, so that a
	// sorted file keeps its order. A cycle is the verifier's to report.
	_ = ir.SortNodes(g)
	return g, nil
}

// recentNodes is how many preceding nodes recentOutput searches.
const recentNodes = 4

// recentOutput returns the output called name of one of nodes (the few
// that precede a node in the file), or nil. Most inputs read what a node
// just before produced, and comparing a few names in cache is cheaper
// than probing the scope's map, which at a million nodes is a cache miss
// or two per input (~0.5 s of a 1M-node import). The outputs are defined
// in the node's own scope, so the map would give the same value.
func recentOutput(nodes []*ir.Node, name string) *ir.Value {
	for k := len(nodes) - 1; k >= 0; k-- {
		for _, o := range nodes[k].Outputs {
			if o != nil && o.Name == name {
				return o
			}
		}
	}
	return nil
}

// linkOutputs binds g's outputs to the values of sc they name and sets
// the declared types of outputs and value_info entries.
func linkOutputs(g *ir.Graph, rg *rawGraph, sc *scope) error {
	for _, vi := range rg.outputs {
		v := sc.lookup(vi.name)
		if v == nil {
			return fmt.Errorf("output %q is not produced by any node, input or initializer", vi.name)
		}
		if vi.typ != nil {
			dt := vi.typ.Clone()
			if v.Producer != nil || v.Declared == nil {
				v.Declared = &dt
			}
		}
		if v.Doc() == "" {
			v.SetInfo(vi.doc, v.Metadata())
		}
		g.Outputs = append(g.Outputs, v)
	}
	for _, vi := range rg.valueInfos {
		v, ok := sc.names[vi.name]
		if !ok || vi.typ == nil {
			continue // value_info for a name this graph does not define: harmless
		}
		if v.Producer != nil && v.Declared == nil {
			dt := vi.typ.Clone()
			v.Declared = &dt
		}
	}
	return nil
}

// attr decodes an AttributeProto. Subgraphs are linked in scope sc, owned
// by node n.
func (d *decoder) attr(b []byte, sc *scope, n *ir.Node) (*ir.Attr, error) {
	if a, ok := d.attrs[string(b)]; ok {
		return a, nil
	}
	a, err := d.decodeAttr(b, sc, n)
	if err == nil && len(b) <= maxSharedAttr && plainAttr(a) {
		if d.attrs == nil {
			d.attrs = map[string]*ir.Attr{}
		}
		d.attrs[string(b)] = a
	}
	return a, err
}

// maxSharedAttr bounds the encoded size of an attribute the decoder
// shares (larger ones are rarely repeated, and the key is a copy).
const maxSharedAttr = 256

// plainAttr reports whether a holds only numbers and strings (no tensor,
// graph or type a stage could reach into through it).
func plainAttr(a *ir.Attr) bool {
	switch a.Type {
	case ir.AttrFloat, ir.AttrInt, ir.AttrString, ir.AttrFloats, ir.AttrInts, ir.AttrStrings:
		return a.T == nil && a.G == nil && a.ST == nil && a.TP == nil && a.Tensors == nil &&
			a.Graphs == nil && a.SparseTensors == nil && a.TypeProtos == nil && a.RefAttrName == ""
	}
	return false
}

// decodeAttr decodes an AttributeProto (attr without the sharing).
func (d *decoder) decodeAttr(b []byte, sc *scope, n *ir.Node) (*ir.Attr, error) {
	a := &ir.Attr{}
	var graphs [][]byte
	var graph []byte
	hasGraph := false
	err := eachField(b, func(f field) error {
		var err error
		switch f.num {
		case attrName:
			a.Name, err = f.str("attribute name")
		case attrRefAttrName:
			a.RefAttrName, err = f.str("ref_attr_name")
		case attrDocString:
			a.Doc = f.doc()
		case attrType:
			a.Type = ir.AttrType(int32(f.u))
		case attrF:
			var fs []float32
			fs, err = appendFloats(nil, f)
			if len(fs) == 1 {
				a.F = fs[0]
			}
		case attrI:
			a.I, err = f.int64()
		case attrS:
			a.S = f.b
		case attrT:
			a.T, err = d.tensor(f.b)
		case attrG:
			graph, hasGraph = f.b, true
		case attrSparseTensor:
			a.ST, err = d.sparseTensor(f.b)
		case attrTP:
			var t ir.Type
			t, err = d.typeProto(f.b, 0)
			a.TP = &t
		case attrFloats:
			a.Floats, err = appendFloats(a.Floats, f)
		case attrInts:
			a.Ints, err = appendInt64s(a.Ints, f)
		case attrStrings:
			a.Strings = append(a.Strings, f.b)
		case attrTensors:
			var t *ir.Tensor
			t, err = d.tensor(f.b)
			a.Tensors = append(a.Tensors, t)
		case attrGraphs:
			graphs = append(graphs, f.b)
		case attrSparseTensors:
			var st *ir.SparseTensor
			st, err = d.sparseTensor(f.b)
			a.SparseTensors = append(a.SparseTensors, st)
		case attrTypeProtos:
			var t ir.Type
			t, err = d.typeProto(f.b, 0)
			a.TypeProtos = append(a.TypeProtos, &t)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
	}
	if a.Name == "" {
		return nil, fmt.Errorf("attribute without a name")
	}
	if a.Type == ir.AttrUndefined {
		a.Type = guessAttrType(a, hasGraph, len(graphs) > 0)
	}
	if a.Type < 0 || a.Type > ir.AttrTypeProtos {
		return nil, fmt.Errorf("attribute %q: unknown type %d", a.Name, int32(a.Type))
	}
	if hasGraph {
		a.G, err = d.graph(graph, sc, n)
		if err != nil {
			return nil, err
		}
	}
	for _, gb := range graphs {
		g, err := d.graph(gb, sc, n)
		if err != nil {
			return nil, err
		}
		a.Graphs = append(a.Graphs, g)
	}
	return a, nil
}

// guessAttrType infers the type of an attribute written without one (IR
// version 1 models), from the field that is set.
func guessAttrType(a *ir.Attr, hasGraph, hasGraphs bool) ir.AttrType {
	switch {
	case a.RefAttrName != "":
		return ir.AttrUndefined
	case hasGraph:
		return ir.AttrGraph
	case hasGraphs:
		return ir.AttrGraphs
	case a.T != nil:
		return ir.AttrTensor
	case a.ST != nil:
		return ir.AttrSparseTensor
	case a.TP != nil:
		return ir.AttrTypeProto
	case a.Floats != nil:
		return ir.AttrFloats
	case a.Ints != nil:
		return ir.AttrInts
	case a.Strings != nil:
		return ir.AttrStrings
	case a.Tensors != nil:
		return ir.AttrTensors
	case a.SparseTensors != nil:
		return ir.AttrSparseTensors
	case a.TypeProtos != nil:
		return ir.AttrTypeProtos
	case a.S != nil:
		return ir.AttrString
	case a.F != 0:
		return ir.AttrFloat
	}
	return ir.AttrInt
}

// function decodes a FunctionProto. Its body is linked as a graph whose
// inputs are the formal parameters (with unknown types).
func (d *decoder) function(b []byte) (*ir.Function, error) {
	fn := &ir.Function{}
	rg := &rawGraph{}
	err := eachField(b, func(f field) error {
		var err error
		var s string
		switch f.num {
		case fnName:
			fn.Name, err = f.str("function name")
		case fnDomain:
			fn.Domain, err = f.str("function domain")
			fn.Domain = ir.CanonicalDomain(fn.Domain)
		case fnOverload:
			fn.Overload, err = f.str("function overload")
		case fnDocString:
			fn.Doc = f.doc()
		case fnInput:
			s, err = f.str("function input")
			rg.inputs = append(rg.inputs, valueInfo{name: s})
		case fnOutput:
			s, err = f.str("function output")
			rg.outputs = append(rg.outputs, valueInfo{name: s})
		case fnAttribute:
			s, err = f.str("function attribute")
			fn.AttrNames = append(fn.AttrNames, s)
		case fnAttributeProto:
			// Attribute defaults never hold subgraphs that see the body.
			var a *ir.Attr
			a, err = d.attr(f.b, nil, nil)
			fn.AttrDefs = append(fn.AttrDefs, a)
		case fnNode:
			var n rawNode
			n, err = d.rawNode(f.b)
			rg.nodes = append(rg.nodes, n)
		case fnOpsetImport:
			var o ir.OpsetID
			o, err = d.opset(f.b)
			o.Domain = ir.CanonicalDomain(o.Domain)
			fn.Opsets = append(fn.Opsets, o)
		case fnValueInfo:
			var vi valueInfo
			vi, err = d.valueInfo(f.b)
			rg.valueInfos = append(rg.valueInfos, vi)
		case fnMetadataProps:
			var kv ir.StringPair
			kv, err = d.entry(f.b)
			fn.Metadata = append(fn.Metadata, kv)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("function %q: %w", fn.Name, err)
	}
	rg.name = fn.Name
	d.depth++
	defer func() { d.depth-- }()
	body, err := d.link(rg, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("function %q: %w", fn.Name, err)
	}
	fn.Body = body
	return fn, nil
}

// nodeSlab reserves the storage of the nodes of a raw graph and of their
// outputs (ir.NodeSlab): one allocation each instead of one per node and
// per output value.
func nodeSlab(nodes []rawNode) *ir.NodeSlab {
	var outs, vals int
	for _, rn := range nodes {
		outs += len(rn.outputs)
		for _, o := range rn.outputs {
			if o != "" {
				vals++
			}
		}
	}
	return ir.NewNodeSlab(len(nodes), outs, vals)
}
