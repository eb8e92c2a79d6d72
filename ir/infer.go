package ir

// This file implements the shape and type inference engine: the op
// registry, the per-node context handed to each op's inference function,
// and the driver that walks a graph in topological order.
//
// Per-op functions live in infer_*.go files grouped by op family. Each is
// registered by (domain, op) with Register and reads the model's opset for
// its domain from the context (ONNX moved several attributes to inputs:
// Split, Squeeze, Unsqueeze, ReduceSum ...). Inference works from graph
// inputs and initializers alone: declared output and value_info shapes are
// only compared against, never copied (except through opaque nodes, whose
// outputs have nothing else to go on).

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// InferFunc infers the output types of one node. It reads inputs and
// attributes through c and sets outputs with c.SetOutput. Returning an error
// marks the node's unset outputs unknown and records a diagnostic; it never
// stops inference of the rest of the graph.
type InferFunc func(c *InferContext) error

// OpDef registers the inference function of one operator, which the op
// table (ops.go) must declare: its arity and other facts are there.
type OpDef struct {
	Domain string // "" for ai.onnx
	Name   string
	Infer  InferFunc
}

// inferDefs are the registrations (registerAll appends; the table is
// built on first use, so that a command that infers nothing pays
// nothing at start-up).
var inferDefs []OpDef

// inferTable holds the registered inference functions by op. Building it
// panics on a duplicate or on an op the op table does not declare,
// programming errors any test catches.
func inferTable() map[OpKey]InferFunc {
	inferTableOnce.Do(func() { inferTableMap = buildInferTable() })
	return inferTableMap
}

// inferTableOnce and inferTableMap are a sync.Once and its value, not a
// sync.OnceValue variable: registerAll reaches inferTable itself, and a
// variable's initializer may not.
var (
	inferTableOnce sync.Once
	inferTableMap  map[OpKey]InferFunc
)

func buildInferTable() map[OpKey]InferFunc {
	registerAll()
	t := make(map[OpKey]InferFunc, len(inferDefs))
	for _, d := range inferDefs {
		k := Key(d.Domain, d.Name)
		MustInfo("ir", k)
		if _, dup := t[k]; dup {
			panic("ir: op registered twice: " + k.String())
		}
		t[k] = d.Infer
	}
	inferDefs, inferBuilt = nil, true
	return t
}

var inferBuilt bool

// Register adds inference functions to the registry. Call it from registerAll
// only: the registry is read (and then fixed) on first use.
func Register(defs ...OpDef) {
	if inferBuilt {
		panic("ir: Register after the registry was read")
	}
	inferDefs = append(inferDefs, defs...)
}

// InferFuncOf returns the inference function registered for k, or nil.
func InferFuncOf(k OpKey) InferFunc { return inferTable()[k] }

// Inferable reports whether inference knows (domain, name): the op has a
// registered inference function. Other ops are opaque to inference.
func Inferable(domain, name string) bool { return inferTable()[Key(domain, name)] != nil }

// Severity grades a diagnostic.
type Severity uint8

const (
	Warning Severity = iota
	Error
)

// Diagnostic is one message from inference or verification, tied to a node
// where there is one.
type Diagnostic struct {
	Severity Severity
	Code     Code  // the kind of problem (diag.go)
	Node     *Node // nil for graph-level messages
	Msg      string
}

func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Severity == Error {
		b.WriteString("error: ")
	} else {
		b.WriteString("warning: ")
	}
	if d.Node != nil {
		fmt.Fprintf(&b, "node %s (%s): ", NodeLabel(d.Node), d.Node.QualifiedOp())
	}
	b.WriteString(d.Msg)
	return b.String()
}

// NodeLabel names a node for messages: its name, or "#id" when unnamed.
func NodeLabel(n *Node) string {
	if n.Name != "" {
		return n.Name
	}
	return fmt.Sprintf("#%d", n.ID)
}

// InferOptions steer inference.
type InferOptions struct {
	// Dims gives values to symbolic dims of graph inputs (--dim N=1).
	Dims map[string]int64
	// Inputs overrides the shapes of main-graph inputs (--input x=1x3x224x224).
	Inputs map[string]Shape
	// MaxKnown caps the element count of integer tensors whose values are
	// propagated (Shape -> Gather -> Concat -> Reshape). Default 1024.
	MaxKnown int64
	// Values gives the values of small integer or bool main-graph inputs
	// (a loop's trip count, a sample rate an If branches on), row-major:
	// they propagate as known values, as constants do. An input whose
	// element count does not match its values is left unknown.
	Values map[string][]int64
	// Batch is the batch a caller set on the batch inputs' dim 0
	// (--batch; 0: none). A Reshape to a fixed target whose leading dim
	// is 1, the rest holding one sample, is read with that dim as the
	// batch (the exporter traced at batch 1): InferResult.BatchReshapes
	// lists each.
	Batch int64
}

// InferResult collects what inference found.
type InferResult struct {
	Diagnostics []Diagnostic
	// Opaque counts nodes with no registered definition, by qualified op.
	Opaque map[string]int
	// BatchReshapes says, one line per node, which fixed Reshape targets
	// were read with InferOptions.Batch as their leading dim.
	BatchReshapes []string
	// BatchRefused lists the Reshape nodes whose fixed target cannot take
	// InferOptions.Batch (the leading dim is not the batch).
	BatchRefused []string
}

// Warnings returns the diagnostics' strings.
//
// One cause gives one line: a repeated message is listed once, and a
// value's message ("value v: inferred rank 4, declared 3") is left out
// when a node's message already says it ("node n (Op): value v: ...").
func (r *InferResult) Warnings() []string {
	out := make([]string, 0, len(r.Diagnostics))
	said := make(map[string]bool, len(r.Diagnostics))
	for _, d := range r.Diagnostics {
		if d.Node != nil && strings.HasPrefix(d.Msg, "value ") {
			said[d.Msg] = true
		}
	}
	seen := make(map[string]bool, len(r.Diagnostics))
	for _, d := range r.Diagnostics {
		s := d.String()
		if seen[s] || (d.Node == nil && said[d.Msg]) {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// inferState is shared by the contexts of one InferModel call.
type inferState struct {
	model  *Model
	opt    InferOptions
	res    *InferResult
	depth  int
	fnBusy map[*Function]bool
}

// inferences counts InferModel calls (Inferences).
var inferences atomic.Uint64

// Inferences returns how many times this process has run InferModel: a
// statistic, as runtime.NumGoroutine is, by which callers check that a
// pipeline infers a model's shapes once.
func Inferences() uint64 { return inferences.Load() }

// InferModel infers the type of every value in m's main graph and, through
// the op functions, its subgraphs. It resets all inferred types first, so it
// can be run again after the graph changed.
func InferModel(m *Model, opt InferOptions) *InferResult {
	inferences.Add(1)
	if opt.MaxKnown <= 0 {
		opt.MaxKnown = 1024
	}
	st := &inferState{model: m, opt: opt, res: &InferResult{Opaque: map[string]int{}}, fnBusy: map[*Function]bool{}}
	g := m.Graph
	for _, in := range g.Inputs {
		if s, ok := opt.Inputs[in.Name]; ok && in.Type.Kind != KindSequence && in.Type.Kind != KindMap {
			in.Type.Kind = KindTensor
			in.Type.Shape = s.Clone()
		}
		in.Type = substituteDims(in.Type, opt.Dims)
		in.SetKnown(nil)
		if vals, ok := opt.Values[in.Name]; ok && in.Type.Kind == KindTensor && (in.Type.DType.IsInt() || in.Type.DType == Bool) {
			if n, ok := in.Type.Shape.NumElements(); ok && n == int64(len(vals)) && n <= opt.MaxKnown {
				in.SetKnown(make([]Dim, len(vals)))
				for i, v := range vals {
					in.Known()[i] = D(v)
				}
			}
		}
	}
	for name := range opt.Inputs {
		found := false
		for _, in := range g.Inputs {
			found = found || in.Name == name
		}
		if !found {
			st.res.Diagnostics = append(st.res.Diagnostics, Diagnostic{Severity: Warning, Code: CodeInput, Msg: fmt.Sprintf("a shape is given for input %s: the graph has no input of that name", name)})
		}
	}
	st.inferGraph(g, nil)
	return st.res
}

func substituteDims(t Type, dims map[string]int64) Type {
	if len(dims) == 0 {
		return t
	}
	t = t.Clone()
	for i, d := range t.Shape.Dims {
		if v, ok := dims[d.Sym]; ok && d.Sym != "" {
			t.Shape.Dims[i] = D(v)
		}
	}
	if t.Elem != nil {
		e := substituteDims(*t.Elem, dims)
		t.Elem = &e
	}
	return t
}

// maxSubgraphDepth bounds recursion through nested subgraphs and functions.
const maxSubgraphDepth = 64

// inferGraph infers every node of g in topological order. Input types
// given in inTypes (non-zero entries) replace the graph inputs' types.
func (st *inferState) inferGraph(g *Graph, inTypes []Type) {
	st.depth++
	defer func() { st.depth-- }()
	if st.depth > maxSubgraphDepth {
		st.res.Diagnostics = append(st.res.Diagnostics, Diagnostic{Severity: Error, Code: CodeDepth, Msg: fmt.Sprintf("graph %q: subgraphs nested deeper than %d", g.Name, maxSubgraphDepth)})
		return
	}
	for i, t := range inTypes {
		if i < len(g.Inputs) && t.Kind != KindUnknown {
			g.Inputs[i].Type = mergeInputType(g.Inputs[i].Type, t)
		}
	}
	for _, v := range g.Initializers {
		if v.Const != nil {
			v.Type = v.Const.Type()
			v.SetKnown(knownFromConst(v.Const, st.opt.MaxKnown))
		}
	}
	// a graph in order (an imported one is sorted, and so is every body
	// of a control-flow model's thousands) is its own topological order:
	// Topo is stable (SortNodes relies on the same)
	order := g.Nodes
	if !inOrder(g) {
		var err error
		if order, err = Topo(g); err != nil {
			st.res.Diagnostics = append(st.res.Diagnostics, Diagnostic{Severity: Error, Code: CodeCycle, Msg: err.Error()})
			order = g.Nodes
		}
	}
	for _, n := range order {
		st.inferNode(n)
	}
	for _, o := range g.Outputs {
		st.checkDeclared(o, nil)
	}
}

// mergeInputType keeps a declared subgraph-input type's details where the
// outer scope knows less.
func mergeInputType(decl, outer Type) Type {
	if outer.Kind == KindTensor && decl.Kind == KindTensor {
		t := outer.Clone()
		if t.DType == Undefined {
			t.DType = decl.DType
		}
		if !t.Shape.Known {
			t.Shape = decl.Shape.Clone()
		}
		return t
	}
	return outer
}

func (st *inferState) inferNode(n *Node) {
	for _, o := range n.Outputs {
		if o != nil {
			o.Type, o.known = Type{}, nil
			if o.Producer == n && !n.Is(OpConstant) {
				o.Const = nil
			}
		}
	}
	c := &InferContext{Node: n, st: st}
	infer := inferTable()[n.Key()]
	var err error
	switch {
	case infer != nil:
		c.Opset = st.model.opsetFor(n)
		err = c.safeInfer(infer)
	case IsFused(n):
		err = c.safeInfer(func(c *InferContext) error { return c.inferFused(FusedBody(n)) })
	case st.model.Function(n.Domain, n.Op) != nil:
		err = c.safeInfer(func(c *InferContext) error { return c.inferFunctionCall(st.model.Function(n.Domain, n.Op)) })
	default:
		st.res.Opaque[n.QualifiedOp()]++
		st.res.Diagnostics = append(st.res.Diagnostics, Diagnostic{Severity: Warning, Code: CodeOpaque, Node: n,
			Msg: "unknown operator: treated as opaque; outputs take their declared types"})
		for _, o := range n.Outputs {
			if o != nil && o.Declared != nil {
				o.Type = o.Declared.Clone()
			}
		}
	}
	if err != nil {
		st.res.Diagnostics = append(st.res.Diagnostics, Diagnostic{Severity: Warning, Code: CodeOf(err), Node: n, Msg: err.Error()})
	}
	for _, o := range n.Outputs {
		if o != nil {
			st.checkDeclared(o, n)
		}
	}
}

// checkDeclared warns when an inferred type contradicts the declared one.
func (st *inferState) checkDeclared(v *Value, n *Node) {
	if v == nil || v.Declared == nil || v.Type.Kind != KindTensor || v.Declared.Kind != KindTensor {
		return
	}
	d, t := v.Declared, v.Type
	var why string
	switch {
	case d.DType != Undefined && t.DType != Undefined && d.DType != t.DType:
		why = fmt.Sprintf("dtype %s, declared %s", t.DType, d.DType)
	case d.Shape.Known && t.Shape.Known && len(d.Shape.Dims) != len(t.Shape.Dims):
		why = fmt.Sprintf("rank %d, declared %d", len(t.Shape.Dims), len(d.Shape.Dims))
	case d.Shape.Known && t.Shape.Known:
		for i := range d.Shape.Dims {
			a, b := t.Shape.Dims[i], d.Shape.Dims[i]
			if a.IsConcrete() && b.IsConcrete() && a.Val != b.Val {
				why = fmt.Sprintf("shape %s, declared %s", t.Shape, d.Shape)
				break
			}
		}
	}
	if why != "" {
		st.res.Diagnostics = append(st.res.Diagnostics, Diagnostic{Severity: Warning, Code: CodeConflict, Node: n,
			Msg: fmt.Sprintf("value %q: inferred %s", v.Name, why)})
	}
}

// opsetFor returns the opset version in force for n's domain.
func (m *Model) opsetFor(n *Node) int64 {
	v := m.Opset(n.Domain)
	if v == 0 && n.Domain == "" {
		v = 1
	}
	return v
}

func knownFromConst(t *Tensor, max int64) []Dim {
	if t == nil || !(t.DType.IsInt() || t.DType == Bool) {
		return nil
	}
	vals, err := t.Int64Values(max)
	if err != nil {
		return nil
	}
	out := make([]Dim, len(vals))
	for i, x := range vals {
		out[i] = Dim{Val: x}
	}
	return out
}

// InferContext is what an op's InferFunc sees of its node.
type InferContext struct {
	Node  *Node
	Opset int64 // the model's opset for the node's domain
	st    *inferState
}

func (c *InferContext) safeInfer(f InferFunc) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errorf(CodePanic, "inference failed: %v", r)
		}
	}()
	return f(c)
}

// Errorf returns an error of kind code for the current node.
func (c *InferContext) Errorf(code Code, format string, args ...any) error {
	return errorf(code, format, args...)
}

// Warnf records a warning of kind code on the current node and carries on.
func (c *InferContext) Warnf(code Code, format string, args ...any) {
	c.st.res.Diagnostics = append(c.st.res.Diagnostics, Diagnostic{Severity: Warning, Code: code, Node: c.Node, Msg: fmt.Sprintf(format, args...)})
}

// Model returns the model being inferred.
func (c *InferContext) Model() *Model { return c.st.model }

// MaxKnown is the element cap for propagated integer values.
func (c *InferContext) MaxKnown() int64 { return c.st.opt.MaxKnown }

// NumInputs is the number of input slots (including omitted ones).
func (c *InferContext) NumInputs() int { return len(c.Node.Inputs) }

// NumOutputs is the number of output slots (including omitted ones).
func (c *InferContext) NumOutputs() int { return len(c.Node.Outputs) }

// HasInput reports whether input i is present (not omitted).
func (c *InferContext) HasInput(i int) bool { return c.Node.Input(i) != nil }

// HasOutput reports whether output i is present (not omitted).
func (c *InferContext) HasOutput(i int) bool { return c.Node.Output(i) != nil }

// Input returns input value i, or nil.
func (c *InferContext) Input(i int) *Value { return c.Node.Input(i) }

// InType returns the type of input i (the zero Type if absent).
func (c *InferContext) InType(i int) Type {
	if v := c.Node.Input(i); v != nil {
		return v.Type
	}
	return Type{}
}

// InShape returns the shape of input i (unknown rank if absent).
func (c *InferContext) InShape(i int) Shape { return c.InType(i).Shape }

// InDType returns the element type of input i.
func (c *InferContext) InDType(i int) DType { return c.InType(i).DType }

// Const returns the constant data of input i, or nil.
func (c *InferContext) Const(i int) *Tensor {
	if v := c.Node.Input(i); v != nil {
		return v.Const
	}
	return nil
}

// Known returns the propagated element values of integer input i.
func (c *InferContext) Known(i int) ([]Dim, bool) {
	v := c.Node.Input(i)
	if v == nil || v.Known() == nil {
		return nil, false
	}
	return v.Known(), true
}

// KnownInts returns input i's element values when all are concrete.
func (c *InferContext) KnownInts(i int) ([]int64, bool) {
	k, ok := c.Known(i)
	if !ok {
		return nil, false
	}
	out := make([]int64, len(k))
	for j, d := range k {
		if !d.IsConcrete() && !(d.Sym == "" && d.Val < 0) {
			return nil, false
		}
		if d.Sym != "" {
			return nil, false
		}
		out[j] = d.Val
	}
	return out, true
}

// ConstFloats returns a constant input's values as float64 (at most
// MaxKnown elements).
func (c *InferContext) ConstFloats(i int) ([]float64, bool) {
	t := c.Const(i)
	if t == nil {
		return nil, false
	}
	v, err := t.Float64Values(c.st.opt.MaxKnown)
	return v, err == nil
}

// Attribute accessors, forwarding to the node.
func (c *InferContext) Attr(name string) *Attr { return c.Node.Attr(name) }
func (c *InferContext) AttrInt(name string, def int64) int64 {
	return c.Node.AttrInt(name, def)
}
func (c *InferContext) AttrFloat(name string, def float32) float32 {
	return c.Node.AttrFloat(name, def)
}
func (c *InferContext) AttrString(name, def string) string { return c.Node.AttrString(name, def) }
func (c *InferContext) AttrInts(name string) ([]int64, bool) {
	return c.Node.AttrInts(name)
}

// SetOutput sets the type of output i (ignored when the output is omitted).
func (c *InferContext) SetOutput(i int, t Type) {
	if o := c.Node.Output(i); o != nil {
		o.Type = t
	}
}

// SetTensor sets output i to a tensor of dt and shape s.
func (c *InferContext) SetTensor(i int, dt DType, s Shape) { c.SetOutput(i, TensorType(dt, s)) }

// SetKnown records the element values of integer output i (data
// propagation). Values longer than MaxKnown are dropped.
func (c *InferContext) SetKnown(i int, vals []Dim) {
	if o := c.Node.Output(i); o != nil && int64(len(vals)) <= c.st.opt.MaxKnown {
		o.SetKnown(vals)
	}
}

// SetConst marks output i as the constant t (Constant and folded values);
// its type and, for small integer tensors, its Known values follow.
func (c *InferContext) SetConst(i int, t *Tensor) {
	if o := c.Node.Output(i); o != nil {
		o.Const = t
		o.Type = t.Type()
		o.SetKnown(knownFromConst(t, c.st.opt.MaxKnown))
	}
}

// OutType returns the type already set for output i.
func (c *InferContext) OutType(i int) Type {
	if o := c.Node.Output(i); o != nil {
		return o.Type
	}
	return Type{}
}

// InferSubgraph infers g (a subgraph of this node) with the given input
// types (zero entries keep the declared ones) and returns its output types.
// Values captured from outer scopes are already inferred.
func (c *InferContext) InferSubgraph(g *Graph, inTypes []Type) []Type {
	c.st.inferGraph(g, inTypes)
	out := make([]Type, len(g.Outputs))
	for i, o := range g.Outputs {
		if o != nil {
			out[i] = o.Type
		}
	}
	return out
}

// inferFunctionCall infers a call to a model-local function by inferring
// its body with the call's input types. The body is shared between calls,
// so its types reflect the most recent call; outputs are copied out.
func (c *InferContext) inferFunctionCall(f *Function) error {
	if c.st.fnBusy[f] {
		return c.Errorf(CodeFunction, "function %s calls itself", f.Name)
	}
	if f.Body == nil {
		return c.Errorf(CodeFunction, "function %s has no body", f.Name)
	}
	c.st.fnBusy[f] = true
	defer delete(c.st.fnBusy, f)
	in := make([]Type, len(f.Body.Inputs))
	for i, v := range f.Body.Inputs {
		in[i] = c.InType(i)
		if x := c.Input(i); x != nil && v != nil {
			v.SetKnown(x.Known()) // shape constants passed as arguments
		}
	}
	saved := c.st.model.Opsets
	if len(f.Opsets) > 0 {
		c.st.model.Opsets = MergeOpsets(saved, f.Opsets)
	}
	c.st.inferGraphWithAttrs(f.Body, in, c.Node)
	c.st.model.Opsets = saved
	for i, o := range f.Body.Outputs {
		if o != nil && i < len(c.Node.Outputs) && c.Node.Outputs[i] != nil {
			c.Node.Outputs[i].Type = o.Type.Clone()
			c.Node.Outputs[i].SetKnown(o.Known())
		}
	}
	return nil
}

// inferGraphWithAttrs infers a function body whose nodes may refer to the
// calling node's attributes (ref_attr_name): they are bound for the
// duration of the call.
func (st *inferState) inferGraphWithAttrs(g *Graph, in []Type, call *Node) {
	type saved struct {
		n     *Node
		attrs []*Attr
	}
	var restore []saved
	for _, n := range g.Nodes {
		bound := false
		attrs := make([]*Attr, 0, len(n.Attrs))
		for _, a := range n.Attrs {
			if a.RefAttrName == "" {
				attrs = append(attrs, a)
				continue
			}
			bound = true
			if ca := call.Attr(a.RefAttrName); ca != nil {
				b := *ca
				b.Name = a.Name
				attrs = append(attrs, &b)
			}
		}
		if bound {
			restore = append(restore, saved{n, n.Attrs})
			n.Attrs = attrs
		}
	}
	st.inferGraph(g, in)
	for _, s := range restore {
		s.n.Attrs = s.attrs
	}
}
