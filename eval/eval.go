package eval

// This file implements the evaluator proper: runtime values, scopes, the
// kernel registry and the node-by-node driver, including model-local
// functions and wolong fused ops.

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/wolong-dev/wolong/ir"
)

// DefaultMaxMemory is the default of Options.MaxMemory (4 GiB): the bound
// on the tensors a run holds live at once and on any one allocation.
const DefaultMaxMemory = 4 << 30

// maxDepth bounds nesting of subgraphs and function calls.
const maxDepth = 64

// Options steer evaluation.
type Options struct {
	// MaxMemory bounds, in bytes (0: DefaultMaxMemory), both the live
	// set of a run and every single allocation. The live set is the
	// tensors held in the scopes of the main graph and of the subgraphs
	// and function bodies running inside it; a value leaves its scope
	// after the last node that reads it (graph outputs stay). Storage
	// shared by several values (views, values passed into a subgraph)
	// counts once; initializers and constants do not count, and neither
	// do a kernel's temporaries. A Loop's or Scan's scan outputs count
	// from the iteration that made them until they are stacked, each
	// piece with ScanPieceOverhead bytes besides its elements (so the
	// stacking, which needs as much again, and millions of scalar pieces
	// are both bounded). Bytes are the evaluator's storage: 4 per
	// element for every float type except float64, 8 for float64 and
	// every integer type, 1 for bool, 16 for string. An allocation (an
	// output or a kernel's temporary) that, added to the live set, would
	// exceed the bound fails before it is made; a node whose bound
	// outputs take the live set over it fails naming the node.
	MaxMemory int64
	// OnNode, when set, is called before each node of the main graph
	// with its 1-based position i among the graph's n nodes, for
	// progress display. Nodes of subgraphs and function bodies are not
	// reported. It is called for every node: throttle in the callback.
	OnNode func(i, n int, node *ir.Node)
	// Deadline, when not zero, stops the run with an error once it has
	// passed. It is checked before every node of every graph (subgraph
	// and function body nodes included, so between two Loop or Scan
	// iterations too), not inside a node: one long node runs to its end.
	Deadline time.Time
}

// Value is a runtime value: *Tensor, *Sequence or *Optional.
type Value any

// Sequence is an ONNX sequence of tensors.
type Sequence struct {
	Elem  ir.DType // element type (Undefined when unknown)
	Items []*Tensor
}

// Optional is an ONNX optional: Value is nil when it holds nothing.
type Optional struct {
	Value Value
}

// UnsupportedError reports an op (or an op/type combination) that the
// evaluator does not implement.
type UnsupportedError struct {
	Op  string // qualified op, "Op" or "domain:Op"
	Why string // optional detail
}

// Error implements error.
func (e *UnsupportedError) Error() string {
	if e.Why != "" {
		return "unsupported op " + e.Op + ": " + e.Why
	}
	return "unsupported op " + e.Op
}

// IsUnsupported reports whether err comes from an unsupported op.
func IsUnsupported(err error) bool {
	var u *UnsupportedError
	return errors.As(err, &u)
}

// Kernel computes a node's tensor outputs from its tensor inputs (nil for
// omitted ones). It returns one tensor per output slot; extra slots the
// node omits are ignored.
type Kernel func(c *Ctx, in []*Tensor) ([]*Tensor, error)

// ValueKernel is a kernel over any runtime values (sequences, optionals).
type ValueKernel func(c *Ctx, in []Value) ([]Value, error)

type kernelEntry struct {
	k  Kernel
	vk ValueKernel
}

// kernelRegs are the registrations (registerAll appends); kernels is built
// from them on first use, not at start-up.
var (
	kernelRegs  []kernelReg
	kernelsRead bool
)

type kernelReg struct {
	k ir.OpKey
	e kernelEntry
}

// kernels holds the kernels by op. Building it panics on a duplicate or
// an op ir's op table does not declare (programming errors any test
// catches).
func kernels() map[ir.OpKey]kernelEntry {
	kernelsOnce.Do(func() { kernelsMap = buildKernels() })
	return kernelsMap
}

// kernelsOnce and kernelsMap are a sync.Once and its value, not a
// sync.OnceValue variable: registerAll reaches kernels itself, and a
// variable's initializer may not.
var (
	kernelsOnce sync.Once
	kernelsMap  map[ir.OpKey]kernelEntry
)

func buildKernels() map[ir.OpKey]kernelEntry {
	registerAll()
	t := make(map[ir.OpKey]kernelEntry, len(kernelRegs))
	for _, r := range kernelRegs {
		ir.MustInfo("eval", r.k)
		if _, dup := t[r.k]; dup {
			panic("eval: kernel registered twice: " + r.k.String())
		}
		t[r.k] = r.e
	}
	kernelRegs, kernelsRead = nil, true
	return t
}

// register adds tensor kernels for ops of the default domain.
func register(k Kernel, ops ...string) {
	for _, op := range ops {
		registerDomain("", op, k)
	}
}

func registerDomain(domain, op string, k Kernel) {
	registerEntry(ir.Key(domain, op), kernelEntry{k: k})
}

func registerValue(vk ValueKernel, ops ...string) {
	for _, op := range ops {
		registerEntry(ir.Key("", op), kernelEntry{vk: vk})
	}
}

// registerEntry adds a kernel for op k, which ir's op table must declare
// (checked when the table is built). Call it from a registerAll function only.
func registerEntry(k ir.OpKey, e kernelEntry) {
	if kernelsRead {
		panic("eval: kernel registered after the table was read")
	}
	kernelRegs = append(kernelRegs, kernelReg{k, e})
}

// Supported reports whether the evaluator has a kernel for (domain, op).
// Model-local functions and wolong fused ops are supported through their
// bodies and are not listed here.
func Supported(domain, op string) bool {
	_, ok := kernels()[ir.Key(domain, op)]
	return ok
}

// SupportedOps lists the ops with kernels, "Op" or "domain:Op", sorted.
func SupportedOps() []string {
	var out []string
	for k := range kernels() {
		out = append(out, k.String())
	}
	sort.Strings(out)
	return out
}

// Evaluator runs one model. It caches converted initializers, so reuse it
// for several runs of the same model.
type Evaluator struct {
	model  *ir.Model
	opt    Options
	consts map[*ir.Tensor]*Tensor
	orders map[*ir.Graph][]*ir.Node
	lives  map[*ir.Graph]*liveness
	live   liveSet
	start  time.Time // when Run began (DeadlineError says how long it ran)
	// keepAll disables dropping values after their last use (tests
	// measure the difference).
	keepAll bool
}

// New returns an evaluator for m.
func New(m *ir.Model, opt Options) *Evaluator {
	if opt.MaxMemory <= 0 {
		opt.MaxMemory = DefaultMaxMemory
	}
	return &Evaluator{model: m, opt: opt, consts: map[*ir.Tensor]*Tensor{}, orders: map[*ir.Graph][]*ir.Node{}, lives: map[*ir.Graph]*liveness{}}
}

// Run evaluates m's main graph on inputs (keyed by graph input name) and
// returns its outputs in graph order.
func Run(m *ir.Model, inputs map[string]Value, opt Options) ([]Value, error) {
	return New(m, opt).Run(inputs)
}

// Run evaluates the main graph. Graph inputs that are also initializers
// take their initializer value unless given.
func (e *Evaluator) Run(inputs map[string]Value) ([]Value, error) {
	g := e.model.Graph
	if g == nil {
		return nil, fmt.Errorf("model has no graph")
	}
	for name := range inputs {
		found := false
		for _, in := range g.Inputs {
			found = found || in.Name == name
		}
		if !found {
			return nil, fmt.Errorf("the graph has no input %q", name)
		}
	}
	sc := &scope{vals: map[*ir.Value]Value{}, opsets: e.model.Opsets}
	e.live = liveSet{}
	e.start = time.Now()
	defer e.releaseScope(sc)
	for _, in := range g.Inputs {
		v, ok := inputs[in.Name]
		if !ok || v == nil {
			if in.Const != nil {
				continue
			}
			return nil, fmt.Errorf("missing input %q (%s)", in.Name, in.Type)
		}
		if err := checkInput(in, v); err != nil {
			return nil, err
		}
		e.bind(sc, in, v)
	}
	if e.live.bytes > e.opt.MaxMemory {
		return nil, fmt.Errorf("the inputs hold %d bytes, %w of %d bytes", e.live.bytes, ErrMemoryLimit, e.opt.MaxMemory)
	}
	return e.runGraph(g, sc, 0)
}

// checkInput compares a given input with the graph input's declared type.
func checkInput(in *ir.Value, v Value) error {
	t := in.Type
	if in.Declared != nil && t.Kind == ir.KindUnknown {
		t = *in.Declared
	}
	switch x := v.(type) {
	case *Tensor:
		if t.Kind != ir.KindTensor && t.Kind != ir.KindUnknown {
			return fmt.Errorf("input %q: got a tensor, the graph wants %s", in.Name, t)
		}
		if t.Kind == ir.KindUnknown {
			return nil
		}
		if t.DType != ir.Undefined && x.DType != t.DType {
			return fmt.Errorf("input %q: got %s, the graph wants %s", in.Name, x, t)
		}
		if n := numel(x.Shape); n < 0 || n != x.Len() {
			return fmt.Errorf("input %q: shape %v does not match its %d elements", in.Name, x.Shape, x.Len())
		}
		if t.Shape.Known {
			if len(t.Shape.Dims) != len(x.Shape) {
				return fmt.Errorf("input %q: got rank %d (%s), the graph wants %s", in.Name, len(x.Shape), x, t)
			}
			for i, d := range t.Shape.Dims {
				if d.IsConcrete() && d.Val != int64(x.Shape[i]) {
					return fmt.Errorf("input %q: got %s, the graph wants %s", in.Name, x, t)
				}
			}
		}
	case *Sequence:
		if t.Kind != ir.KindSequence && t.Kind != ir.KindUnknown {
			return fmt.Errorf("input %q: got a sequence, the graph wants %s", in.Name, t)
		}
	case *Optional:
		if t.Kind != ir.KindOptional && t.Kind != ir.KindUnknown {
			return fmt.Errorf("input %q: got an optional, the graph wants %s", in.Name, t)
		}
	default:
		return fmt.Errorf("input %q: unsupported value %T", in.Name, v)
	}
	return nil
}

// scope binds values of one graph activation; lookups fall back to the
// enclosing scope (outer-scope captures).
type scope struct {
	vals   map[*ir.Value]Value
	parent *scope
	opsets []ir.OpsetID
	// call resolves ref_attr_name inside a function body (nil outside).
	call func(name string) *ir.Attr
}

// lookupName finds a computed value by name in sc or its parents.
func (sc *scope) lookupName(name string) (Value, bool) {
	for s := sc; s != nil; s = s.parent {
		for k, v := range s.vals {
			if k.Name == name {
				return v, true
			}
		}
	}
	return nil, false
}

func (e *Evaluator) lookup(sc *scope, v *ir.Value) (Value, error) {
	for s := sc; s != nil; s = s.parent {
		if x, ok := s.vals[v]; ok {
			return x, nil
		}
	}
	if v.Const != nil {
		return e.constant(v.Const)
	}
	return nil, fmt.Errorf("value %q has not been computed", v.Name)
}

func (e *Evaluator) constant(t *ir.Tensor) (*Tensor, error) {
	if c, ok := e.consts[t]; ok {
		return c, nil
	}
	c, err := FromIR(t, e.opt.MaxMemory)
	if err != nil {
		return nil, err
	}
	e.consts[t] = c
	return c, nil
}

func (e *Evaluator) order(g *ir.Graph) ([]*ir.Node, error) {
	if o, ok := e.orders[g]; ok {
		return o, nil
	}
	o, err := ir.Topo(g)
	if err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	e.orders[g] = o
	return o, nil
}

// runGraph evaluates g's nodes in sc (its inputs already bound) and
// returns g's outputs. Each value of sc leaves it after the last node that
// reads it; whatever sc still holds is released when runGraph returns
// (its outputs then belong to the caller).
func (e *Evaluator) runGraph(g *ir.Graph, sc *scope, depth int) ([]Value, error) {
	defer e.releaseScope(sc)
	if depth > maxDepth {
		return nil, fmt.Errorf("graph %q: subgraphs nested deeper than %d", g.Name, maxDepth)
	}
	order, err := e.order(g)
	if err != nil {
		return nil, err
	}
	lv := e.plan(g, order)
	onNode := e.opt.OnNode
	if depth != 0 || g != e.model.Graph {
		onNode = nil
	}
	if !e.keepAll {
		for _, v := range lv.unread {
			e.drop(sc, v)
		}
	}
	for i, n := range order {
		if onNode != nil {
			onNode(i+1, len(order), n)
		}
		if err := e.checkDeadline(n); err != nil {
			return nil, err
		}
		if err := e.runNode(n, sc, depth); err != nil {
			return nil, err
		}
		if err := e.checkLive(n); err != nil {
			return nil, err
		}
		if !e.keepAll {
			for _, v := range lv.after[i] {
				e.drop(sc, v)
			}
		}
	}
	out := make([]Value, len(g.Outputs))
	for i, o := range g.Outputs {
		if o == nil {
			continue
		}
		v, err := e.lookup(sc, o)
		if err != nil {
			return nil, fmt.Errorf("graph %q output %q: %v", g.Name, o.Name, err)
		}
		out[i] = v
	}
	return out, nil
}

func opsetOf(opsets []ir.OpsetID, domain string) int64 {
	for _, o := range opsets {
		if o.Domain == domain {
			return o.Version
		}
	}
	if domain == "" {
		return 1
	}
	return 0
}

// resolveAttrs returns n's attributes with ref_attr_name references bound
// through the calling function's attributes.
func resolveAttrs(n *ir.Node, sc *scope) []*ir.Attr {
	var call func(string) *ir.Attr
	for s := sc; s != nil && call == nil; s = s.parent {
		call = s.call
	}
	if call == nil {
		return n.Attrs
	}
	out := make([]*ir.Attr, 0, len(n.Attrs))
	for _, a := range n.Attrs {
		if a.RefAttrName == "" {
			out = append(out, a)
			continue
		}
		if ca := call(a.RefAttrName); ca != nil {
			b := *ca
			b.Name = a.Name
			b.RefAttrName = ""
			out = append(out, &b)
		}
	}
	return out
}

func nodeErr(n *ir.Node, err error) error {
	if IsUnsupported(err) {
		return err
	}
	var ne *NodeError
	var de *DeadlineError
	if errors.As(err, &ne) || errors.As(err, &de) {
		return err
	}
	return &NodeError{Node: n, Err: err}
}

// NodeError is an evaluation failure of one node.
type NodeError struct {
	Node *ir.Node
	Err  error
}

// Error implements error: "node NAME (Op): cause".
func (e *NodeError) Error() string {
	return fmt.Sprintf("node %s (%s): %s", ir.NodeLabel(e.Node), e.Node.QualifiedOp(), e.Err.Error())
}

// Unwrap returns the cause.
func (e *NodeError) Unwrap() error { return e.Err }

func (e *Evaluator) runNode(n *ir.Node, sc *scope, depth int) (err error) {
	in := make([]Value, len(n.Inputs))
	for i, v := range n.Inputs {
		if v == nil || v.Name == "" {
			continue
		}
		x, err := e.lookup(sc, v)
		if err != nil {
			return nodeErr(n, err)
		}
		in[i] = x
	}
	outs, err := e.call(n, sc, in, depth)
	if err != nil {
		return nodeErr(n, err)
	}
	for i, o := range n.Outputs {
		if o == nil || o.Name == "" {
			continue
		}
		if i >= len(outs) || outs[i] == nil {
			return nodeErr(n, fmt.Errorf("output %d (%q) was not produced", i, o.Name))
		}
		e.bind(sc, o, outs[i])
	}
	return nil
}

// call evaluates node n on inputs in within scope sc.
func (e *Evaluator) call(n *ir.Node, sc *scope, in []Value, depth int) (outs []Value, err error) {
	c := &Ctx{Node: n, e: e, sc: sc, depth: depth, attrs: resolveAttrs(n, sc)}
	c.Opset = opsetOf(sc.opsets, n.Domain)
	defer func() {
		if r := recover(); r != nil {
			if mp, ok := r.(memoryPanic); ok {
				outs, err = nil, mp.err
				return
			}
			outs, err = nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	if ke, ok := kernels()[n.Key()]; ok {
		if err := checkInputs(n, c.Opset, in); err != nil {
			return nil, err
		}
		if ke.vk != nil {
			return ke.vk(c, in)
		}
		tin := make([]*Tensor, len(in))
		for i, x := range in {
			if x == nil {
				continue
			}
			t, ok := x.(*Tensor)
			if !ok {
				return nil, fmt.Errorf("input %d: expected a tensor, got %s", i, valueKind(x))
			}
			tin[i] = t
		}
		touts, err := ke.k(c, tin)
		if err != nil {
			return nil, err
		}
		outs = make([]Value, len(touts))
		for i, t := range touts {
			if t == nil {
				continue
			}
			if numel(t.Shape) != t.Len() {
				return nil, fmt.Errorf("internal error: output %d has shape %v but %d elements", i, t.Shape, t.Len())
			}
			t.normalize()
			outs[i] = t
		}
		return outs, nil
	}
	if body := ir.FusedBody(n); body != nil {
		return c.RunSubgraph(body, in) // a fused kernel runs its members
	}
	if f := e.model.Function(n.Domain, n.Op); f != nil {
		return e.callFunction(c, f, in)
	}
	return nil, &UnsupportedError{Op: n.QualifiedOp()}
}

// checkInputs is every kernel's preamble, checked once from ir's op
// table before the kernel runs: the node has as many input slots as its
// op takes at opset (unknown: the loosest bounds), each slot the op
// requires holds a value, and each tensor given has an element type its
// slot accepts (OpInfo.Types). A kernel reads its required inputs as
// in[i] without checking them again, nor the element types the table
// declares; it still checks optional inputs, the element types it
// supports beyond or short of the table's, and the shapes its arithmetic
// needs.
func checkInputs(n *ir.Node, opset int64, in []Value) error {
	info := ir.InfoOf(n)
	if info == nil {
		return nil
	}
	arity, _ := info.Arity(opset)
	if !arity.Allows(len(in)) {
		return fmt.Errorf("have %d inputs, want %s", len(in), arity)
	}
	for i := 0; i < arity.Min; i++ {
		if in[i] == nil && info.Required(i) {
			return fmt.Errorf("missing input %d, which %s requires", i, n.QualifiedOp())
		}
	}
	for i, v := range in {
		if t, ok := v.(*Tensor); ok && t != nil && !info.InputTypes(i).Has(t.DType) {
			return fmt.Errorf("input %d (%s) is %s; %s takes %s types there", i, inputName(n, i), t.DType, n.QualifiedOp(), info.InputTypes(i))
		}
	}
	return nil
}

// inputName is the name of n's input value i, for messages.
func inputName(n *ir.Node, i int) string {
	if v := n.Input(i); v != nil && v.Name != "" {
		return strconv.Quote(v.Name)
	}
	return "unnamed"
}

func valueKind(v Value) string {
	switch v.(type) {
	case *Tensor:
		return "a tensor"
	case *Sequence:
		return "a sequence"
	case *Optional:
		return "an optional"
	}
	return fmt.Sprintf("%T", v)
}

// callFunction evaluates a model-local function by its body.
func (e *Evaluator) callFunction(c *Ctx, f *ir.Function, in []Value) ([]Value, error) {
	if f.Body == nil {
		return nil, fmt.Errorf("function %s has no body", f.Name)
	}
	if c.depth+1 > maxDepth {
		return nil, fmt.Errorf("function %s: calls nested deeper than %d", f.Name, maxDepth)
	}
	callAttrs := c.attrs
	sc := &scope{vals: map[*ir.Value]Value{}, opsets: ir.MergeOpsets(c.sc.opsets, f.Opsets)}
	sc.call = func(name string) *ir.Attr {
		for _, a := range callAttrs {
			if a.Name == name {
				return a
			}
		}
		for _, a := range f.AttrDefs {
			if a.Name == name {
				return a
			}
		}
		return nil
	}
	for i, p := range f.Body.Inputs {
		if i < len(in) && in[i] != nil {
			e.bind(sc, p, in[i])
		}
	}
	return e.runGraph(f.Body, sc, c.depth+1)
}

// Ctx is what a kernel sees of its node.
type Ctx struct {
	Node  *ir.Node
	Opset int64 // the opset in force for the node's domain
	e     *Evaluator
	sc    *scope
	depth int
	attrs []*ir.Attr
}

// Attr returns the attribute called name (references resolved), or nil.
func (c *Ctx) Attr(name string) *ir.Attr {
	for _, a := range c.attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Int returns an INT attribute or def.
func (c *Ctx) Int(name string, def int64) int64 {
	if a := c.Attr(name); a != nil && a.Type == ir.AttrInt {
		return a.I
	}
	return def
}

// Float returns a FLOAT attribute or def.
func (c *Ctx) Float(name string, def float32) float32 {
	if a := c.Attr(name); a != nil && a.Type == ir.AttrFloat {
		return a.F
	}
	return def
}

// Str returns a STRING attribute or def.
func (c *Ctx) Str(name, def string) string {
	if a := c.Attr(name); a != nil && a.Type == ir.AttrString {
		return string(a.S)
	}
	return def
}

// Ints returns an INTS attribute and whether it is present.
func (c *Ctx) Ints(name string) ([]int64, bool) {
	if a := c.Attr(name); a != nil && a.Type == ir.AttrInts {
		return a.Ints, true
	}
	return nil, false
}

// Floats returns a FLOATS attribute and whether it is present.
func (c *Ctx) Floats(name string) ([]float32, bool) {
	if a := c.Attr(name); a != nil && a.Type == ir.AttrFloats {
		return a.Floats, true
	}
	return nil, false
}

// Strs returns a STRINGS attribute and whether it is present.
func (c *Ctx) Strs(name string) ([]string, bool) {
	a := c.Attr(name)
	if a == nil || a.Type != ir.AttrStrings {
		return nil, false
	}
	out := make([]string, len(a.Strings))
	for i, s := range a.Strings {
		out[i] = string(s)
	}
	return out, true
}

// Graph returns a GRAPH attribute or nil.
func (c *Ctx) Graph(name string) *ir.Graph {
	if a := c.Attr(name); a != nil && a.Type == ir.AttrGraph {
		return a.G
	}
	return nil
}

// Errorf returns a kernel error (the driver adds the node's name).
func (c *Ctx) Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// unsupported returns an UnsupportedError for this node.
func (c *Ctx) unsupported(format string, args ...any) error {
	return &UnsupportedError{Op: c.Node.QualifiedOp(), Why: fmt.Sprintf(format, args...)}
}

// check refuses an allocation of dt[shape] over the memory bound.
func (c *Ctx) check(dt ir.DType, shape []int) error {
	n := numel(shape)
	if n < 0 {
		for _, d := range shape {
			if d < 0 {
				return fmt.Errorf("invalid output shape %v", shape)
			}
		}
		// numel refuses counts past 2^51 elements.
		return fmt.Errorf("output %s%s has more than 2^51 elements, %w of %d bytes", dt, shapeString(shape), ErrMemoryLimit, c.e.opt.MaxMemory)
	}
	b := int64(n) * elemBytes(dt)
	if b > c.e.opt.MaxMemory {
		return fmt.Errorf("output %s needs %d bytes, %w of %d bytes", c.outputText(dt, shape), b, ErrMemoryLimit, c.e.opt.MaxMemory)
	}
	if live := c.e.live.bytes; b > c.e.opt.MaxMemory-live {
		return fmt.Errorf("output %s needs %d bytes with %d bytes of tensors live, %w of %d bytes", c.outputText(dt, shape), b, live, ErrMemoryLimit, c.e.opt.MaxMemory)
	}
	return nil
}

// outputText names an output the evaluator allocates as dt[shape] by the
// dtype the model gives the node's output, and says when the evaluator
// holds it wider ("float32[1,16] (held as float64 by the evaluator)").
func (c *Ctx) outputText(dt ir.DType, shape []int) string {
	s := dt.String() + shapeString(shape)
	if c.Node == nil || len(c.Node.Outputs) == 0 || c.Node.Outputs[0] == nil {
		return s
	}
	if md := c.Node.Outputs[0].Type.DType; md.Valid() && md != dt {
		return fmt.Sprintf("%s%s (held as %s by the evaluator)", md, shapeString(shape), dt)
	}
	return s
}

// alloc returns a zero tensor after the memory check.
func (c *Ctx) alloc(dt ir.DType, shape []int) (*Tensor, error) {
	if err := c.check(dt, shape); err != nil {
		return nil, err
	}
	return newTensor(dt, shape), nil
}

// RunSubgraph evaluates g (a subgraph of the node) with its inputs bound
// positionally to in; values of enclosing scopes are visible.
func (c *Ctx) RunSubgraph(g *ir.Graph, in []Value) ([]Value, error) {
	sc := &scope{vals: map[*ir.Value]Value{}, parent: c.sc, opsets: c.sc.opsets}
	for i, p := range g.Inputs {
		if i < len(in) && in[i] != nil {
			c.e.bind(sc, p, in[i])
		} else if i >= len(in) {
			// Some exporters declare If-branch inputs that shadow outer
			// values of the same name: bind them to those values.
			if v, ok := c.sc.lookupName(p.Name); ok {
				c.e.bind(sc, p, v)
			}
		}
	}
	return c.e.runGraph(g, sc, c.depth+1)
}

// EvalNode evaluates a single node of the model on the given inputs (one
// per input slot, nil for omitted) in the main graph's scope. The
// optimizer's constant folding uses it.
func (e *Evaluator) EvalNode(n *ir.Node, in []Value) ([]Value, error) {
	sc := &scope{vals: map[*ir.Value]Value{}, opsets: e.model.Opsets}
	outs, err := e.call(n, sc, in, 0)
	if err != nil {
		return nil, nodeErr(n, err)
	}
	return outs, nil
}
