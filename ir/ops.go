package ir

// This file implements the op table: what wolong knows about each
// operator apart from how to infer, run or cost it, declared once with
// the op, as TVM registers an op's pattern with the op and Go's SSA
// backend keeps one opcodeTable.
//
// The rows live in ops_*.go, one file per op family; ops that share
// every fact but their name are declared together (like). Each package that
// does something per op registers its own functions against the op's
// key (inference here with Register, kernels in eval, cost functions in
// simulate/cost) and reads the facts from this table: the verifier its
// arity, the fuser its fusion pattern, the cost model its class, the
// evaluator the inputs a kernel may count on. Registering a function for
// an op the table does not declare panics, so the table is the universe
// of ops; ops_coverage_test.go prints which stages cover which op.
//
// The table says nothing about an op's semantics (that is each stage's
// function) and nothing about attributes.

import (
	"sort"
	"strings"
	"sync"
)

// Domains of the ops the table declares besides ai.onnx ("").
const (
	msDomain       = "com.microsoft"
	msExperimental = "com.microsoft.experimental"
	contribDomain  = "ai.onnx.contrib"
	previewDomain  = "ai.onnx.preview"
	trainingDomain = "ai.onnx.preview.training"
)

// Arity bounds the number of input or output slots of a node (omitted
// optional slots count: they are there, empty).
type Arity struct {
	Min int
	Max int // -1: variadic
}

func ar(min, max int) Arity { return Arity{min, max} }

// Allows reports whether n slots are within the bounds.
func (a Arity) Allows(n int) bool { return n >= a.Min && (a.Max < 0 || n <= a.Max) }

// String writes the bounds as the verifier's messages say them: "2",
// "1 to 3", "at least 1".
func (a Arity) String() string { return arity(a.Min, a.Max) }

// union returns the loosest bounds that allow what a or b allows.
func (a Arity) union(b Arity) Arity {
	out := Arity{min(a.Min, b.Min), max(a.Max, b.Max)}
	if a.Max < 0 || b.Max < 0 {
		out.Max = -1
	}
	return out
}

// Revision is an op's arity in the opsets before Before: ONNX moved
// several attributes to inputs (axes of the reductions, Squeeze and
// Unsqueeze; Slice's starts and ends; Pad's pads; TopK's k; Clip's
// bounds), and a runtime refuses the new inputs at an older opset.
type Revision struct {
	Before  int64
	In, Out Arity
}

// Pattern is an op's fusion pattern, TVM's OpPatternKind: an ordered
// lattice, so a rule that accepts a pattern accepts every smaller one
// and reads "p <= Injective".
type Pattern uint8

// Fusion patterns, from most to least fusable. The zero Pattern is not
// one: a row that gives none is Opaque.
const (
	ElemWise        Pattern = iota + 1 // y[i] = f(x[i])
	Broadcast                          // y[i] = f(x[bcast(i)], ...)
	Injective                          // y[i] = x[g(i)]: reshapes, transposes, slices, concats
	CommReduce                         // reductions (and softmax-like normalizations)
	OutEWiseFusable                    // GEMM-like anchors whose output takes an elementwise epilogue
	Opaque                             // never fused
)

var patternNames = [...]string{"", "elemwise", "broadcast", "injective", "reduce", "out-elemwise-fusable", "opaque"}

func (p Pattern) String() string {
	if int(p) < len(patternNames) && p != 0 {
		return patternNames[p]
	}
	return "pattern?"
}

// Exec says how a runtime executes an op.
type Exec uint8

const (
	ExecKernel  Exec = iota // launches kernels
	ExecView                // its output is its input seen otherwise (Reshape, Squeeze, Identity, ...): no kernel
	ExecMeta                // bookkeeping without a kernel (Shape, Size, Constant, sequences, optionals)
	ExecControl             // runs subgraphs (If, Loop, Scan, SequenceMap)
)

// CostClass is an op's class in the cost model; each has its own
// efficiency in a hardware preset (the names are the JSON keys there).
type CostClass string

// Cost classes. Free and Control are not declared by rows: they are the
// class of every view or bookkeeping op and of every control-flow op.
const (
	CostMatMul        CostClass = "matmul"
	CostConv          CostClass = "conv"
	CostDepthwise     CostClass = "depthwise" // convs with one input channel per group: vector units
	CostAttention     CostClass = "attention"
	CostRNN           CostClass = "rnn"
	CostElementwise   CostClass = "elementwise"
	CostReduction     CostClass = "reduction"
	CostNormalization CostClass = "normalization"
	CostDataMovement  CostClass = "data_movement"
	CostOther         CostClass = "other"
	CostFree          CostClass = "free"    // views and bookkeeping: no kernel, no time
	CostControl       CostClass = "control" // Loop / Scan / If / function call: the sum of a body
	CostFused         CostClass = "fused"   // a wolong fused kernel
)

// Matrix reports whether the class runs on tensor cores.
func (c CostClass) Matrix() bool {
	return c == CostMatMul || c == CostConv || c == CostAttention || c == CostRNN
}

// TypeSet is the element types an input slot accepts, as an ONNX type
// constraint says them ("T in tensor(float16), tensor(float),
// tensor(double)"), by the kinds wolong's stages tell apart; the zero
// TypeSet accepts every type. It constrains kinds, not widths: a slot
// that takes float32 and float64 only is FloatTypes.
type TypeSet uint8

// Kinds of element types a TypeSet holds.
const (
	FloatTypes TypeSet = 1 << iota // real floating point of any width
	IntTypes                       // signed and unsigned integers
	BoolType
	StringType
)

var typeSetNames = [...]string{"float", "integer", "bool", "string"}

// Has reports whether s accepts d.
func (s TypeSet) Has(d DType) bool {
	return s == 0 || s&FloatTypes != 0 && d.IsFloat() || s&IntTypes != 0 && d.IsInt() ||
		s&BoolType != 0 && d == Bool || s&StringType != 0 && d == String
}

// String names the kinds s accepts: "float", "integer", "float or
// integer", "any".
func (s TypeSet) String() string {
	var names []string
	for i, name := range typeSetNames {
		if s&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "any"
	}
	return strings.Join(names, " or ")
}

// Type constraints of the rows: input 0 (X, Q, the signal; Where's
// condition) of the ops whose spec takes one kind only there, and both
// operands of the bitwise, logical and string binary ops.
var (
	floatX     = []TypeSet{FloatTypes}
	intX       = []TypeSet{IntTypes}
	boolX      = []TypeSet{BoolType}
	stringX    = []TypeSet{StringType}
	intOps     = []TypeSet{IntTypes, IntTypes}
	boolOps    = []TypeSet{BoolType, BoolType}
	stringOps  = []TypeSet{StringType, StringType}
	secondBool = []TypeSet{0, BoolType} // Compress's condition
)

// OpInfo is one row of the op table.
type OpInfo struct {
	Key OpKey
	// In and Out bound the op's input and output slots at its latest
	// opset; Older gives them for earlier opsets, in increasing Before.
	In, Out Arity
	Older   []Revision
	// Optional lists the input slots below the minimum that may be
	// empty (a required input follows them: Loop's M and cond, Scan-8's
	// sequence_lens, the zero points of com.microsoft's QLinearAdd).
	// Every other slot below the minimum must hold a value (Required).
	Optional []int
	// Pattern is the op's fusion pattern (Opaque when the row gives none).
	Pattern Pattern
	// Exec says whether the op launches kernels, is a view or
	// bookkeeping, or runs subgraphs.
	Exec Exec
	// Cost is the class of a kernel op in the cost model ("" when the
	// row declares none); Class gives every op's.
	Cost CostClass
	// Types constrains the element type of input slot i to Types[i]
	// (slots past its end, and zero entries, take any type). A row
	// declares only what the op's spec says at every opset; a kernel
	// that supports less than the spec still checks the rest itself.
	Types []TypeSet
}

// InputTypes returns the element types input slot i accepts.
func (o *OpInfo) InputTypes(i int) TypeSet {
	if i < len(o.Types) {
		return o.Types[i]
	}
	return 0
}

// Arity returns the op's input and output bounds at opset version v of
// its domain; v <= 0 (unknown) gives the loosest bounds of any version.
func (o *OpInfo) Arity(v int64) (in, out Arity) {
	in, out = o.In, o.Out
	for i := len(o.Older) - 1; i >= 0; i-- {
		r := o.Older[i]
		switch {
		case v <= 0:
			in, out = in.union(r.In), out.union(r.Out)
		case v < r.Before:
			in, out = r.In, r.Out
		}
	}
	return in, out
}

// Required reports whether input slot i must hold a value at every
// opset: it is below the op's smallest minimum input count and not
// listed Optional. (A slot required only at some opsets is left to the
// function that reads it: exporters leave Resize-11's roi empty, which
// ONNX Runtime accepts.)
func (o *OpInfo) Required(i int) bool {
	in, _ := o.Arity(0)
	if i >= in.Min {
		return false
	}
	for _, j := range o.Optional {
		if j == i {
			return false
		}
	}
	return true
}

// Class returns the op's cost class: Free for views and bookkeeping,
// Control for control flow, else the row's.
func (o *OpInfo) Class() CostClass {
	switch o.Exec {
	case ExecView, ExecMeta:
		return CostFree
	case ExecControl:
		return CostControl
	}
	return o.Cost
}

// opTable indexes every row by key, built on first use (not at init: a
// command that reads no model, --help, never builds it). The registries
// that check their keys against it (inference here, eval's kernels,
// simulate/cost's cost functions) build theirs on first use too.
var opTable = sync.OnceValue(func() map[OpKey]*OpInfo {
	return indexOps(elementwiseOps(), reduceOps(), nnOps[:], tensorOps(), controlOps(), mlOps(), contribOps(), fusedOps[:])
})

func indexOps(families ...[]OpInfo) map[OpKey]*OpInfo {
	t := map[OpKey]*OpInfo{}
	for _, f := range families {
		for i := range f {
			o := &f[i]
			if _, dup := t[o.Key]; dup {
				panic("ir: op declared twice: " + o.Key.String())
			}
			if o.Pattern == 0 {
				o.Pattern = Opaque
			}
			t[o.Key] = o
		}
	}
	return t
}

// like returns the rows of the ops of domain called names that share
// every fact of proto: a family's regular ops are declared this way, each
// fact once, and an op with a fact of its own keeps a row of its own.
func like(domain string, proto OpInfo, names ...string) []OpInfo {
	out := make([]OpInfo, len(names))
	for i, name := range names {
		out[i] = proto
		out[i].Key = opIn(domain, name)
	}
	return out
}

// rows concatenates groups of rows into one family.
func rows(groups ...[]OpInfo) []OpInfo {
	var out []OpInfo
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func op(name string) OpKey           { return OpKey{Name: name} }
func opIn(domain, name string) OpKey { return OpKey{domain, name} }

// Info returns the table's row for k, or nil when the op is not declared.
func Info(k OpKey) *OpInfo { return opTable()[k] }

// MustInfo returns the row for k; it panics when there is none. The
// registries of other packages call it when they build their tables (on
// first use), so an op registered without a row is a programming error
// that any test run catches.
func MustInfo(pkg string, k OpKey) *OpInfo {
	o := opTable()[k]
	if o == nil {
		panic(pkg + ": " + k.String() + " is not in ir's op table (declare it in ir/ops_*.go)")
	}
	return o
}

// InfoOf returns the row of n's op, or nil.
func InfoOf(n *Node) *OpInfo { return opTable()[n.Key()] }

// PatternOf returns n's declared fusion pattern (Opaque for an op the
// table does not declare). It does not look at n's types or uses; the
// fuser refines it (optimize.kindOf).
func PatternOf(n *Node) Pattern {
	if o := InfoOf(n); o != nil {
		return o.Pattern
	}
	return Opaque
}

// Ops returns every row, sorted by key.
func Ops() []*OpInfo {
	out := make([]*OpInfo, 0, len(opTable()))
	for _, o := range opTable() {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Key, out[j].Key
		if a.Domain != b.Domain {
			return a.Domain < b.Domain
		}
		return a.Name < b.Name
	})
	return out
}
