package ir

// This file implements models, graphs, nodes and values, and the
// primitive edits that keep their links current.

import (
	"io"
	"sort"
	"sync/atomic"
)

// StringPair is one metadata_props entry.
type StringPair struct{ Key, Value string }

// OpsetID is one opset_import entry. Domain "" is ai.onnx.
type OpsetID struct {
	Domain  string
	Version int64
}

// Model is an imported model: the main graph, model-local functions and the
// ModelProto metadata. Close releases the file mappings that its tensors
// view; after Close no tensor data may be read.
type Model struct {
	Path            string // file the model was read from ("" if built in memory)
	IRVersion       int64
	Opsets          []OpsetID
	ProducerName    string
	ProducerVersion string
	Domain          string
	ModelVersion    int64
	Doc             string
	Metadata        []StringPair
	Graph           *Graph
	Functions       []*Function

	// Closer releases the memory mappings (set by the importer).
	Closer io.Closer

	// fns holds the *functionIndex of Functions for Function
	// (functions.go), atomically: the cost model looks functions up from
	// several goroutines.
	fns atomic.Value
}

// Close releases the model's file mappings.
func (m *Model) Close() error {
	if m == nil || m.Closer == nil {
		return nil
	}
	c := m.Closer
	m.Closer = nil
	return c.Close()
}

// Opset returns the model's opset version for domain ("" and "ai.onnx" are
// the same domain; the model's own domains are canonical), or 0 if the
// model does not import it.
func (m *Model) Opset(domain string) int64 {
	domain = CanonicalDomain(domain)
	for _, o := range m.Opsets {
		if o.Domain == domain {
			return o.Version
		}
	}
	return 0
}

// Function is a model-local function (onnx.FunctionProto). Its body is a
// Graph whose Inputs and Outputs are the formal parameters.
type Function struct {
	Name      string
	Domain    string
	Overload  string
	Doc       string
	AttrNames []string // attributes without defaults
	AttrDefs  []*Attr  // attributes with defaults (attribute_proto)
	Opsets    []OpsetID
	Body      *Graph
	Metadata  []StringPair
}

// Use is one use of a value: input Index of Node.
type Use struct {
	Node  *Node
	Index int
}

// Value is a named tensor (or sequence, map, optional) in a graph: a graph
// input, an initializer, or a node output.
type Value struct {
	ID   int // dense, unique within the owning graph
	Name string
	Type Type

	Graph       *Graph // scope the value is defined in
	Producer    *Node  // nil for graph inputs and initializers
	ProducerOut int    // output index on Producer
	Uses        []Use  // consumers, including nodes in nested subgraphs

	// Const holds the data of an initializer (or of a value proven
	// constant). Graph inputs with a Const are initializers that a caller
	// may override (IR < 4 style).
	Const *Tensor

	// known holds the element values of a small integer tensor when shape
	// inference could compute them (Known, SetKnown), nil for the rest:
	// out of line, as few values have them (a Value is 160 bytes, not 176).
	known *[]Dim

	// Declared is the type the file declared for this value (graph input,
	// output or value_info), nil if none. Inference never copies it except
	// through opaque nodes; it compares and warns on conflict.
	Declared *Type
	// Info is what few values carry from the file for export (a doc
	// string, metadata_props), nil for the rest: see Doc, Metadata and
	// SetInfo. It is kept out of line because a model has a Value per
	// tensor and almost none has either (a Value is 160 bytes, not 216:
	// see Type and known too).
	Info *ValueInfo
}

// Known is the element values of v, a small integer tensor, when shape
// inference could compute them (data propagation through Shape, Gather,
// Concat ...). Elements may be symbolic. Nil when unknown.
func (v *Value) Known() []Dim {
	if v.known == nil {
		return nil
	}
	return *v.known
}

// SetKnown sets v's known element values (nil: unknown). Values may share
// the slice, as they share Dims: neither is changed in place.
func (v *Value) SetKnown(d []Dim) {
	v.known = nil
	if d != nil {
		v.known = &d
	}
}

// ValueInfo is a value's doc string and ValueInfoProto.metadata_props.
// It is replaced (SetInfo), never changed in place: values may share one.
type ValueInfo struct {
	Doc      string
	Metadata []StringPair
}

// Doc returns v's doc string.
func (v *Value) Doc() string {
	if v.Info == nil {
		return ""
	}
	return v.Info.Doc
}

// Metadata returns v's metadata_props.
func (v *Value) Metadata() []StringPair {
	if v.Info == nil {
		return nil
	}
	return v.Info.Metadata
}

// SetInfo sets v's doc string and metadata (nil Info when both are empty).
func (v *Value) SetInfo(doc string, md []StringPair) {
	v.Info = nil
	if doc != "" || len(md) > 0 {
		v.Info = &ValueInfo{Doc: doc, Metadata: md}
	}
}

// IsConst reports whether v carries constant data.
func (v *Value) IsConst() bool { return v != nil && v.Const != nil }

// Node is one operator application.
type Node struct {
	ID      int // dense, unique within the owning graph
	Name    string
	Op      string
	Domain  string   // "" for ai.onnx
	Inputs  []*Value // nil entries stand for omitted optional inputs ("")
	Outputs []*Value // nil entries stand for omitted optional outputs
	Attrs   []*Attr
	Graph   *Graph // the graph the node belongs to
	// Info is what few nodes carry from the file (a function overload, a
	// doc string, metadata_props), nil for the rest: see Overload, Doc,
	// Metadata and SetInfo (kept out of line: a Node is 144 bytes, not 192).
	Info *NodeInfo
}

// NodeInfo is a node's overload, doc string and NodeProto.metadata_props.
// It is replaced (SetInfo), never changed in place: nodes may share one.
type NodeInfo struct {
	Overload string
	Doc      string
	Metadata []StringPair
}

// Overload returns the overload of the model-local function n calls ("").
func (n *Node) Overload() string {
	if n.Info == nil {
		return ""
	}
	return n.Info.Overload
}

// Doc returns n's doc string.
func (n *Node) Doc() string {
	if n.Info == nil {
		return ""
	}
	return n.Info.Doc
}

// Metadata returns n's metadata_props.
func (n *Node) Metadata() []StringPair {
	if n.Info == nil {
		return nil
	}
	return n.Info.Metadata
}

// SetInfo sets n's overload, doc string and metadata (nil Info when all
// are empty).
func (n *Node) SetInfo(overload, doc string, md []StringPair) {
	n.Info = nil
	if overload != "" || doc != "" || len(md) > 0 {
		n.Info = &NodeInfo{Overload: overload, Doc: doc, Metadata: md}
	}
}

// QualifiedOp returns "Op" for ai.onnx and "domain:Op" otherwise.
func (n *Node) QualifiedOp() string {
	return n.Key().String()
}

// Input returns input i, or nil when absent or omitted.
func (n *Node) Input(i int) *Value {
	if i < 0 || i >= len(n.Inputs) {
		return nil
	}
	return n.Inputs[i]
}

// Output returns output i, or nil when absent or omitted.
func (n *Node) Output(i int) *Value {
	if i < 0 || i >= len(n.Outputs) {
		return nil
	}
	return n.Outputs[i]
}

// Graph is a dataflow graph: the main graph of a model, a subgraph held by
// an If/Loop/Scan attribute, or a function body.
type Graph struct {
	Name string

	Inputs []*Value
	// Outputs may be appended to or assigned a new slice; an element is
	// replaced with SetOutput (IsOutput keeps an index of a long list).
	Outputs      []*Value
	Initializers []*Value // values with Const, in file order
	Nodes        []*Node  // in file order; see Topo for a schedule

	// Parent is the enclosing graph of a subgraph (nil for the main graph),
	// and ParentNode the node whose attribute holds it.
	Parent     *Graph
	ParentNode *Node

	// info is the graph's doc string, metadata_props and sparse
	// initializers (Doc, Metadata, Sparse and their setters), nil for a
	// graph with none; outs is IsOutput's index of a long output list,
	// nil until one is built. Both are out of line because every fused
	// kernel has a body graph and almost none has either (a Graph is 160
	// bytes, not 240).
	info *graphInfo
	outs *outIndex

	nextValue int
	nextNode  int
}

// graphInfo is what few graphs carry besides their nodes and values.
type graphInfo struct {
	doc      string
	metadata []StringPair
	sparse   []*SparseInitializer
}

// Doc is g's doc string.
func (g *Graph) Doc() string {
	if g.info == nil {
		return ""
	}
	return g.info.doc
}

// Metadata is g's metadata_props.
func (g *Graph) Metadata() []StringPair {
	if g.info == nil {
		return nil
	}
	return g.info.metadata
}

// Sparse is g's sparse initializers, in file order.
func (g *Graph) Sparse() []*SparseInitializer {
	if g.info == nil {
		return nil
	}
	return g.info.sparse
}

// editInfo returns g's info to change, making it when g has none.
func (g *Graph) editInfo() *graphInfo {
	if g.info == nil {
		g.info = &graphInfo{}
	}
	return g.info
}

// SetDoc sets g's doc string.
func (g *Graph) SetDoc(doc string) {
	if doc != "" || g.info != nil {
		g.editInfo().doc = doc
	}
}

// SetMetadata sets g's metadata_props.
func (g *Graph) SetMetadata(md []StringPair) {
	if md != nil || g.info != nil {
		g.editInfo().metadata = md
	}
}

// AddSparse appends a sparse initializer to g's.
func (g *Graph) AddSparse(s *SparseInitializer) {
	i := g.editInfo()
	i.sparse = append(i.sparse, s)
}

// SparseInitializer is a sparse_initializer entry; Value is the dense value
// it defines.
type SparseInitializer struct {
	Value  *Value
	Sparse *SparseTensor
}

// NewGraph returns an empty graph.
func NewGraph(name string) *Graph { return &Graph{Name: name} }

// NewValue creates a value owned by g (not yet an input, output or node
// output).
func (g *Graph) NewValue(name string, t Type) *Value {
	v := &Value{ID: g.nextValue, Name: name, Type: t, Graph: g}
	g.nextValue++
	return v
}

// NumValueIDs is one more than the largest value ID handed out, for dense
// per-value tables.
func (g *Graph) NumValueIDs() int { return g.nextValue }

// NumNodeIDs is one more than the largest node ID handed out.
func (g *Graph) NumNodeIDs() int { return g.nextNode }

// AddInput appends a graph input.
func (g *Graph) AddInput(name string, t Type) *Value {
	v := g.NewValue(name, t)
	g.Inputs = append(g.Inputs, v)
	return v
}

// AddInitializer appends an initializer holding t.
func (g *Graph) AddInitializer(t *Tensor) *Value {
	v := g.NewValue(t.Name, t.Type())
	v.Const = t
	g.Initializers = append(g.Initializers, v)
	return v
}

// AddNode appends a node reading inputs (nil for an omitted input) and
// creates its outputs (an empty name gives an omitted output). The new
// outputs have unknown types until inference runs.
func (g *Graph) AddNode(op, domain, name string, inputs []*Value, outputs []string, attrs ...*Attr) *Node {
	return g.AddNodeIn(nil, op, domain, name, inputs, outputs, attrs...)
}

// AddNodeIn is AddNode with the node, its output list and its output
// values taken from sl (nil: from the heap).
func (g *Graph) AddNodeIn(sl *NodeSlab, op, domain, name string, inputs []*Value, outputs []string, attrs ...*Attr) *Node {
	n := sl.node()
	*n = Node{ID: g.nextNode, Name: name, Op: op, Domain: domain, Graph: g, Attrs: attrs}
	g.nextNode++
	n.Inputs = make([]*Value, len(inputs))
	for i, in := range inputs {
		n.Inputs[i] = in
		if in != nil {
			in.Uses = append(in.Uses, Use{n, i})
		}
	}
	n.Outputs = sl.outputs(len(outputs))
	for i, o := range outputs {
		if o == "" {
			continue
		}
		v := sl.value()
		*v = Value{ID: g.nextValue, Name: o, Graph: g, Producer: n, ProducerOut: i}
		g.nextValue++
		n.Outputs[i] = v
	}
	g.Nodes = append(g.Nodes, n)
	return n
}

// AttachNode appends an already built node (from another graph's builder or
// a pass) to g, assigning it a fresh ID and recording its uses.
func (g *Graph) AttachNode(n *Node) {
	n.ID = g.nextNode
	g.nextNode++
	n.Graph = g
	for i, in := range n.Inputs {
		if in != nil {
			in.Uses = append(in.Uses, Use{n, i})
		}
	}
	for i, o := range n.Outputs {
		if o != nil {
			o.Producer, o.ProducerOut = n, i
			if o.Graph == nil {
				o.Graph = g
				o.ID = g.nextValue
				g.nextValue++
			}
		}
	}
	g.Nodes = append(g.Nodes, n)
}

// SetInput replaces input i of n with v, keeping use lists current.
func (n *Node) SetInput(i int, v *Value) {
	if old := n.Inputs[i]; old != nil {
		old.removeUse(n, i)
	}
	n.Inputs[i] = v
	if v != nil {
		v.Uses = append(v.Uses, Use{n, i})
	}
}

func (v *Value) removeUse(n *Node, i int) {
	for k, u := range v.Uses {
		if u.Node == n && u.Index == i {
			v.Uses = append(v.Uses[:k], v.Uses[k+1:]...)
			return
		}
	}
}

// ReplaceAllUses makes every consumer of v read w instead, and every graph
// output that is v become w.
func (v *Value) ReplaceAllUses(w *Value) {
	if v == w {
		return
	}
	uses := v.Uses
	v.Uses = nil
	for _, u := range uses {
		u.Node.Inputs[u.Index] = w
		w.Uses = append(w.Uses, u)
	}
	if g := v.Graph; g != nil && g.IsOutput(v) {
		g.replaceOutput(v, w)
	}
}

// RemoveNode deletes n from g, dropping its uses of its inputs. Its outputs
// keep their own uses; callers rewire them first.
func (g *Graph) RemoveNode(n *Node) {
	for i, in := range n.Inputs {
		if in != nil {
			in.removeUse(n, i)
		}
	}
	for i, m := range g.Nodes {
		if m == n {
			g.Nodes = append(g.Nodes[:i], g.Nodes[i+1:]...)
			break
		}
	}
	n.Graph = nil
}

// RemoveNodes deletes a set of nodes in one sweep (linear time).
func (g *Graph) RemoveNodes(dead map[*Node]bool) {
	if len(dead) == 0 {
		return
	}
	for n := range dead {
		for i, in := range n.Inputs {
			if in != nil {
				in.removeUse(n, i)
			}
		}
	}
	kept := g.Nodes[:0]
	for _, n := range g.Nodes {
		if dead[n] {
			n.Graph = nil
			continue
		}
		kept = append(kept, n)
	}
	for i := len(kept); i < len(g.Nodes); i++ {
		g.Nodes[i] = nil
	}
	g.Nodes = kept
}

// IsOutput reports whether v is one of g's outputs. It scans a short
// list and looks a long one up in an index built on first use (so a pass
// that asks per node is linear in nodes + outputs, not their product).
func (g *Graph) IsOutput(v *Value) bool {
	if len(g.Outputs) <= outScan {
		for _, o := range g.Outputs {
			if o == v {
				return true
			}
		}
		return false
	}
	i, ok := g.outIndex()[v]
	return ok && g.Outputs[i] == v
}

// SetOutput replaces the graph's i-th output with v, keeping IsOutput's
// index current.
func (g *Graph) SetOutput(i int, v *Value) {
	old := g.Outputs[i]
	g.Outputs[i] = v
	x := g.outs
	if x == nil || x.at == nil || !x.current(g) {
		return
	}
	if x.dup {
		x.at = nil // rebuilt on the next lookup
		return
	}
	delete(x.at, old)
	if _, ok := x.at[v]; ok {
		x.dup = true
		return
	}
	x.at[v] = int32(i)
}

// replaceOutput makes every output of g that is v (one at least) w.
func (g *Graph) replaceOutput(v, w *Value) {
	if len(g.Outputs) > outScan && (g.outs == nil || !g.outs.dup) {
		if i, ok := g.outIndex()[v]; ok && g.Outputs[i] == v {
			g.SetOutput(int(i), w)
			return
		}
	}
	for i, o := range g.Outputs {
		if o == v {
			g.SetOutput(i, w)
		}
	}
}

// outScan is the longest output list IsOutput scans instead of indexing.
const outScan = 16

// outIndex maps each output of a graph to its first position in Outputs.
// It is current while Outputs has the length and backing array it was
// built for: appending or assigning a new slice makes it stale (rebuilt
// on the next lookup), and SetOutput updates it. dup says some value is
// an output twice (then SetOutput drops the index instead of updating it).
type outIndex struct {
	at   map[*Value]int32
	base **Value
	n    int
	dup  bool
}

func (x *outIndex) current(g *Graph) bool {
	return x.n == len(g.Outputs) && x.n > 0 && x.base == &g.Outputs[0]
}

func (g *Graph) outIndex() map[*Value]int32 {
	if g.outs == nil {
		g.outs = &outIndex{}
	}
	x := g.outs
	if x.at != nil && x.current(g) {
		return x.at
	}
	*x = outIndex{at: make(map[*Value]int32, len(g.Outputs)), n: len(g.Outputs)}
	if x.n > 0 {
		x.base = &g.Outputs[0]
	}
	for i := len(g.Outputs) - 1; i >= 0; i-- {
		o := g.Outputs[i]
		if _, ok := x.at[o]; ok {
			x.dup = true
		}
		x.at[o] = int32(i)
	}
	return x.at
}

// Walk calls fn for g and, depth first, every subgraph nested in its nodes.
// Returning false from fn stops the descent into that graph's subgraphs.
func (g *Graph) Walk(fn func(*Graph) bool) {
	if !fn(g) {
		return
	}
	for _, n := range g.Nodes {
		for _, sg := range n.Subgraphs() {
			sg.Walk(fn)
		}
	}
}

// CapturedValues returns the values from enclosing scopes that n's
// subgraphs (at any depth) read: the implicit inputs of an If/Loop/Scan.
// The order is first use, so it is deterministic. A fused kernel's body
// binds its inputs to the node's (fused.go) and captures nothing: the
// walk is skipped for it (every pass's dependence and liveness checks
// call this, and after fusion most nodes are fused), and Verify reports a
// body that breaks the contract.
func (n *Node) CapturedValues() []*Value {
	if IsFused(n) {
		return nil // a fused body reads only its inputs (fused.go; Verify checks)
	}
	return capturedValues(n)
}

// capturedValues is CapturedValues without the fused kernels' shortcut.
func capturedValues(n *Node) []*Value {
	var set captureSet
	w := captureWalk{n: n, fn: set.add}
	w.subgraphs(n)
	return set.out
}

// EachCaptured calls fn for every read, in n's subgraphs (at any depth),
// of a value from an enclosing scope, in CapturedValues' order but once
// per read: a value read twice is passed twice. It allocates nothing, so
// a caller that only tests each value (a dependence or order check, whose
// answer a repeat cannot change) or dedups by its own marks walks the
// subgraphs without building CapturedValues' list. A fused kernel
// captures nothing (see CapturedValues).
func (n *Node) EachCaptured(fn func(*Value)) {
	if IsFused(n) {
		return
	}
	w := captureWalk{n: n, fn: fn}
	w.subgraphs(n)
}

// captureLinear is how many captures captureSet dedups by scanning its
// list before it builds a set: an If or Loop captures a few values, and a
// map per call was most of the cost of the calls every pass makes.
const captureLinear = 16

// captureSet lists the values added, once each, in the order first added.
type captureSet struct {
	out  []*Value
	seen map[*Value]bool // out as a set, once it is longer than captureLinear
}

// add appends x unless it is listed.
func (s *captureSet) add(x *Value) {
	if s.seen != nil {
		if !s.seen[x] {
			s.seen[x] = true
			s.out = append(s.out, x)
		}
		return
	}
	for _, y := range s.out {
		if y == x {
			return
		}
	}
	s.out = append(s.out, x)
	if len(s.out) > captureLinear {
		s.seen = make(map[*Value]bool, 2*len(s.out))
		for _, y := range s.out {
			s.seen[y] = true
		}
	}
}

// captureWalk passes to fn each read, in n's subgraphs, of a value from
// outside n, in the order read. It holds no list of its own, so fn does
// not escape and a caller's closure stays on its stack.
type captureWalk struct {
	n  *Node
	fn func(*Value)
}

// capture passes x, read in sg, to fn when it comes from outside n. The
// test x.Graph == sg goes first: most values read are sg's own, and it
// reads no memory but x.
func (w *captureWalk) capture(x *Value, sg *Graph) {
	if x == nil || x.Graph == sg || definedWithin(x.Graph, w.n) {
		return
	}
	w.fn(x)
}

// subgraphs visits m's subgraphs in Subgraphs' order (without its slice).
func (w *captureWalk) subgraphs(m *Node) {
	for _, a := range m.Attrs {
		switch a.Type {
		case AttrGraph:
			if a.G != nil {
				w.visit(a.G)
			}
		case AttrGraphs:
			for _, g := range a.Graphs {
				if g != nil {
					w.visit(g)
				}
			}
		}
	}
}

func (w *captureWalk) visit(sg *Graph) {
	for _, m := range sg.Nodes {
		for _, in := range m.Inputs {
			w.capture(in, sg)
		}
		// A nested fused kernel's body reads only values defined in it
		// (Verify checks each fused node, at every depth, with the walk
		// rooted at it), all of them defined within w.n too: its walk
		// would pass nothing. After fusion, most nodes of an If's or
		// Loop's body are fused.
		if !IsFused(m) {
			w.subgraphs(m)
		}
	}
	for _, o := range sg.Outputs {
		w.capture(o, sg)
	}
}

// definedWithin reports whether graph g is one of n's subgraphs or nested
// in one.
func definedWithin(g *Graph, n *Node) bool {
	for ; g != nil; g = g.Parent {
		if g.ParentNode == n {
			return true
		}
	}
	return false
}

// SortedOpsets returns the model's opset imports sorted by domain.
func (m *Model) SortedOpsets() []OpsetID {
	out := append([]OpsetID(nil), m.Opsets...)
	sort.Slice(out, func(i, j int) bool { return out[i].Domain < out[j].Domain })
	return out
}
