package calibrate

// This file finds copies of validation models in a fitting suite: a fit
// that measured a validation model's own kernels (same op, dtype, shapes,
// constant inputs and attributes) predicts that model from its own
// measurement, and its error then says nothing about models it never saw.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
)

// Copied is a node of a suite graph that copies a node of a validation
// model: Exact when the two run the same kernel (same op, dtype, input
// shapes and dtypes, shape-like constant inputs, and the attributes both
// set equal), else near (see near). Edge is set when the node's producer
// is copied too (the suite holds a copied chain, not one node).
type Copied struct {
	Node, Of string // the suite node and the validation node it copies (labels)
	Key      string // the suite node's signature
	Exact    bool
	Edge     bool
}

func (c Copied) String() string {
	kind := "near copy"
	if c.Exact {
		kind = "copy"
	}
	if c.Edge {
		kind += " (with its producer)"
	}
	return fmt.Sprintf("%s is a %s of %s: %s", c.Node, kind, c.Of, c.Key)
}

// NearFactor is how far apart two dimensions of a run-time input may be
// for a near copy; NearWeightFactor, the element counts of two constant
// inputs (weights, scales: their layout follows attributes such as a block
// size).
const (
	NearFactor       = 2.0
	NearWeightFactor = 4.0
)

// copyExempt says n is left out of the copy check: nodes that launch no
// kernel of their own (constants, views, shape arithmetic, control flow)
// and generic elementwise kernels, whose cost is their size alone and
// which every model runs at some size; ConstantOfShape, whose signature
// (a shape vector) does not carry the size it fills.
func copyExempt(n *ir.Node) bool {
	switch cost.ClassOf(n.Domain, n.Op) {
	case cost.Free, cost.Control:
		return true
	}
	if n.Is(ir.OpConstant) {
		return true
	}
	switch n.Op {
	case "ConstantOfShape", "Relu", "Add", "Sub", "Mul", "Div", "Sigmoid", "Tanh", "Clip", "Identity", "Cast", "Squeeze", "Unsqueeze", "Reshape", "Flatten", "Shape", "Gather", "Concat", "Transpose", "Sum":
		return n.Domain == ""
	}
	return false
}

// nearChecked says near copies of n count: the ops a suite measures at few
// shapes (recurrent layers, attention, contrib-domain and quantized ops),
// where a shape near a validation model's is that model's kernel; a conv,
// GEMM or pooling op is measured across a grid of shapes, and only an
// exact copy counts.
func nearChecked(n *ir.Node) bool {
	switch cost.ClassOf(n.Domain, n.Op) {
	case cost.RNN, cost.Attention, cost.Fused:
		return true
	}
	return n.Domain != "" || strings.HasPrefix(n.Op, "QLinear") || strings.HasPrefix(n.Op, "Dynamic") || strings.HasSuffix(n.Op, "Integer")
}

// copyNode is a node of the check with its signature.
type copyNode struct {
	n      *ir.Node
	s      Sample
	key    string
	parent *ir.Node // producer of its first input, nil if none
	consts []bool   // which inputs are constants (initializers, Constant outputs)
}

// signatures lists the checked nodes of g and of every subgraph in it.
func signatures(g *ir.Graph) []copyNode {
	var out []copyNode
	prod := map[*ir.Value]*ir.Node{}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			prod[o] = n
		}
	}
	for _, n := range g.Nodes {
		for _, a := range n.Attrs {
			if a.G != nil {
				out = append(out, signatures(a.G)...)
			}
			for _, sg := range a.Graphs {
				out = append(out, signatures(sg)...)
			}
		}
		if copyExempt(n) {
			continue
		}
		s, ok := NodeSample(n)
		if !ok && !staticInputs(n) {
			continue
		}
		for i := range s.Inputs {
			// the values of weights and zero points do not make a kernel
			// another: only shape-like int64 constants are compared by value
			if in := &s.Inputs[i]; in.HasValues && in.DType != ir.Int64 {
				in.HasValues, in.Values = false, nil
			}
		}
		c := copyNode{n: n, s: s, key: inputsKey(&s)}
		for _, v := range n.Inputs {
			c.consts = append(c.consts, v != nil && (v.Const != nil || (v.Producer != nil && v.Producer.Is(ir.OpConstant))))
		}
		if len(n.Inputs) > 0 && n.Inputs[0] != nil {
			c.parent = prod[n.Inputs[0]]
		}
		out = append(out, c)
	}
	return out
}

// Copies lists the nodes of suite (and its subgraphs) that copy a node of
// model (or of its subgraphs), exactly or nearly. Both graphs must have
// their shapes inferred; nodes whose shapes are not static are not
// compared.
func Copies(suite, model *ir.Graph) []Copied {
	ms := signatures(model)
	byOp := map[string][]copyNode{}
	for _, m := range ms {
		byOp[m.s.Domain+":"+m.s.Op] = append(byOp[m.s.Domain+":"+m.s.Op], m)
	}
	var out []Copied
	ss := signatures(suite)
	suiteKey := map[*ir.Node]string{}
	for _, s := range ss {
		suiteKey[s.n] = s.key
	}
	for _, s := range ss {
		var of *copyNode
		exact := false
		cands := byOp[s.s.Domain+":"+s.s.Op]
		for i, m := range cands {
			if m.key == s.key && sameAttrs(s.n.Attrs, m.n.Attrs) {
				of, exact = &cands[i], true
				break
			}
		}
		if of == nil && nearChecked(s.n) {
			for i, m := range cands {
				if near(&s, &m) && sameAttrNames(s.n.Attrs, m.n.Attrs) {
					of = &cands[i]
					break
				}
			}
		}
		if of == nil {
			continue
		}
		c := Copied{Node: ir.NodeLabel(s.n), Of: ir.NodeLabel(of.n), Key: s.key, Exact: exact}
		if s.parent != nil && of.parent != nil {
			c.Edge = suiteKey[s.parent] != "" && suiteKey[s.parent] == keyOf(ms, of.parent)
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out
}

func keyOf(ns []copyNode, n *ir.Node) string {
	for _, c := range ns {
		if c.n == n {
			return c.key
		}
	}
	return ""
}

// staticInputs says every input of n has a static shape.
func staticInputs(n *ir.Node) bool {
	for _, v := range n.Inputs {
		if v == nil {
			continue
		}
		if _, ok := staticDims(v.Type.Shape); !ok || v.Type.Kind != ir.KindTensor {
			return false
		}
	}
	return true
}

// inputsKey is s's op, dtype and inputs (shapes, dtypes, shape-like
// constants) without its attributes, trailing omitted inputs dropped.
func inputsKey(s *Sample) string {
	in := s.Inputs
	for len(in) > 0 && in[len(in)-1].Absent {
		in = in[:len(in)-1]
	}
	op := s.Op
	if s.Domain != "" {
		op = s.Domain + ":" + op
	}
	return strings.Join([]string{op, s.DType.String(), FormatInputs(in, s.DType)}, "|")
}

// attrValue is a's value as text (graphs and tensors as their kind only).
func attrValue(a *ir.Attr) string {
	switch a.Type {
	case ir.AttrString:
		return string(a.S)
	case ir.AttrInt:
		return fmt.Sprint(a.I)
	case ir.AttrFloat:
		return fmt.Sprint(a.F)
	case ir.AttrInts:
		return fmt.Sprint(a.Ints)
	case ir.AttrFloats:
		return fmt.Sprint(a.Floats)
	case ir.AttrStrings:
		return fmt.Sprintf("%q", a.Strings)
	}
	return fmt.Sprint(a.Type)
}

// sameAttrs says the attributes a and b both set are equal (one that only
// one of them sets is taken at its default in the other).
func sameAttrs(a, b []*ir.Attr) bool {
	bm := map[string]*ir.Attr{}
	for _, x := range b {
		bm[x.Name] = x
	}
	for _, x := range a {
		if y := bm[x.Name]; y != nil && attrValue(x) != attrValue(y) {
			return false
		}
	}
	return true
}

// near says a and b are the same op and dtype, and at every input position
// both give: the same rank and dtype; for a run-time input each dimension
// within NearFactor of the other's (equal where either is at most 2: a
// direction count, a batch of one); for a constant input element counts
// within NearWeightFactor (and its leading dimension equal where either is
// at most 2: a direction count).
func near(an, bn *copyNode) bool {
	a, b := &an.s, &bn.s
	if a.Op != b.Op || a.Domain != b.Domain || a.DType != b.DType {
		return false
	}
	for i := range min(len(a.Inputs), len(b.Inputs)) {
		x, y := a.Inputs[i], b.Inputs[i]
		if x.Absent || y.Absent {
			continue
		}
		if len(x.Dims) != len(y.Dims) || x.DType != y.DType {
			return false
		}
		weight := an.consts[i] || bn.consts[i]
		if weight {
			p, q := float64(elems(x.Dims)), float64(elems(y.Dims))
			if math.Max(p, q)/math.Min(p, q) > NearWeightFactor {
				return false
			}
		}
		for j := range x.Dims {
			p, q := float64(x.Dims[j]), float64(y.Dims[j])
			if weight && j > 0 {
				continue // a weight's inner layout follows attributes (a block size)
			}
			if p <= 2 || q <= 2 {
				if p != q {
					return false
				}
				continue
			}
			if !weight && math.Max(p, q)/math.Min(p, q) > NearFactor {
				return false
			}
		}
	}
	return true
}

func elems(d []int64) int64 {
	n := int64(1)
	for _, x := range d {
		n *= max(x, 1)
	}
	return n
}

// sameAttrNames says the string attributes a and b both set are equal
// (an activation, a direction): integer attributes are sizes, compared
// through the shapes.
func sameAttrNames(a, b []*ir.Attr) bool {
	bm := map[string]*ir.Attr{}
	for _, x := range b {
		bm[x.Name] = x
	}
	for _, x := range a {
		if y := bm[x.Name]; y != nil && (x.Type == ir.AttrString || x.Type == ir.AttrStrings) && attrValue(x) != attrValue(y) {
			return false
		}
	}
	return true
}
