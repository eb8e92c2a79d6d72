package ir

// This file holds the fused-op contract: how a kernel wolong's optimizer
// fused is represented in the IR, in an exported ONNX file, and how the
// IR infers it.
//
// In the IR a fused kernel is a node of domain FusedDomain whose GRAPH
// attribute FusedBodyAttr holds its members; the body's inputs bind
// positionally to the node's inputs and its outputs to the node's outputs.
// A pattern kernel's other attributes record what its matcher recognized
// (FusedEpsilon, FusedAxis, FusedApproximate, FusedAlpha), so that a
// lowering reads them instead of re-recognizing the pattern. A generic
// group (a GEMM or Conv with its elementwise epilogue, an elementwise
// chain) records nothing more: its members are its match, and the ort
// target rewrites them as they are.
//
// In an exported file a fused kernel is a call of a model-local function
// of domain FusedDomain whose body is the members; the function's
// metadata_props record the kernel's op (FusedOpKey) and the match
// attributes (FusedAttrPrefix + name). InlineFusedFunctions turns such
// calls back into fused nodes, so a model wolong wrote is read as the
// fused kernels it holds.

import (
	"fmt"
	"strconv"
	"strings"
)

// FusedDomain is the domain of the fused kernels wolong's optimizer
// creates (and of the functions they are exported as).
const FusedDomain = "wolong"

// FusedBodyAttr is the GRAPH attribute that holds a fused kernel's members.
const FusedBodyAttr = "body"

// Keys of the pattern kernels the optimizer's matchers create. Other
// fused kernels (a fused GEMM with its epilogue, an elementwise chain)
// are named by their members and have no row in the op table: they are
// opaque to further fusion.
var (
	FusedGelu      = OpKey{FusedDomain, "Gelu"}
	FusedSiLU      = OpKey{FusedDomain, "SiLU"}
	FusedLayerNorm = OpKey{FusedDomain, "LayerNorm"}
	FusedRMSNorm   = OpKey{FusedDomain, "RMSNorm"}
	FusedAttention = OpKey{FusedDomain, "Attention"}
)

// fusedOps are the op-table rows of the pattern kernels. A pattern
// kernel keeps its members' semantics for the fuser: a GELU or SiLU is
// still elementwise (it may join a GEMM epilogue), a LayerNorm or
// RMSNorm still a row reduction (it may take its residual Add). Each
// infers, runs and is costed through its body.
var fusedOps = [...]OpInfo{
	{Key: FusedGelu, In: ar(0, -1), Out: ar(0, -1), Pattern: ElemWise, Cost: CostFused},
	{Key: FusedSiLU, In: ar(0, -1), Out: ar(0, -1), Pattern: ElemWise, Cost: CostFused},
	{Key: FusedLayerNorm, In: ar(0, -1), Out: ar(0, -1), Pattern: CommReduce, Cost: CostFused},
	{Key: FusedRMSNorm, In: ar(0, -1), Out: ar(0, -1), Pattern: CommReduce, Cost: CostFused},
	{Key: FusedAttention, In: ar(0, -1), Out: ar(0, -1), Cost: CostFused},
}

// Names of the match attributes a fused node may carry.
const (
	FusedEpsilon     = "epsilon"     // FLOAT: LayerNorm / RMSNorm epsilon
	FusedAxis        = "axis"        // INT: first normalized axis (LayerNorm / RMSNorm)
	FusedApproximate = "approximate" // STRING: GELU form, "none" (erf) or "tanh"
	FusedAlpha       = "alpha"       // FLOAT: SiLU's x*sigmoid(alpha*x) slope; attention scale
	// FusedRoles is a STRINGS attribute parallel to the node's inputs: the
	// role of each ("X", "Scale", "B", "Q", ...; "" for a constant the
	// body reads, such as an epsilon).
	FusedRoles = "roles"
)

// FusedInput returns the input of fused node n with role, or nil.
func FusedInput(n *Node, role string) *Value {
	rs, ok := n.AttrStrings(FusedRoles)
	if !ok {
		return nil
	}
	for i, r := range rs {
		if r == role {
			return n.Input(i)
		}
	}
	return nil
}

// FusedOpKey and FusedAttrPrefix are the metadata_props keys of a
// function that holds a fused kernel.
const (
	FusedOpKey      = "wolong.fused_op"
	FusedAttrPrefix = "wolong.attr."
)

// FusedBody returns the members of a fused kernel, or nil when n is not one.
func FusedBody(n *Node) *Graph {
	if n == nil || n.Domain != FusedDomain {
		return nil
	}
	return n.AttrGraph(FusedBodyAttr)
}

// IsFused reports whether n is a fused kernel.
func IsFused(n *Node) bool { return FusedBody(n) != nil }

// FusedMatch returns n's match attributes (all but the body).
func FusedMatch(n *Node) []*Attr {
	var out []*Attr
	for _, a := range n.Attrs {
		if a.Name != FusedBodyAttr {
			out = append(out, a)
		}
	}
	return out
}

// EncodeFusedMatch writes match attributes (INT, FLOAT, STRING, INTS,
// FLOATS, STRINGS without commas) as metadata_props entries; other
// attribute types are left out.
func EncodeFusedMatch(attrs []*Attr) []StringPair {
	var out []StringPair
	for _, a := range attrs {
		var v string
		switch a.Type {
		case AttrInt:
			v = "i:" + strconv.FormatInt(a.I, 10)
		case AttrFloat:
			v = "f:" + strconv.FormatFloat(float64(a.F), 'g', -1, 32)
		case AttrString:
			v = "s:" + string(a.S)
		case AttrInts:
			parts := make([]string, len(a.Ints))
			for i, x := range a.Ints {
				parts[i] = strconv.FormatInt(x, 10)
			}
			v = "is:" + strings.Join(parts, ",")
		case AttrStrings:
			parts := make([]string, len(a.Strings))
			for i, x := range a.Strings {
				parts[i] = string(x)
			}
			if len(parts) == 0 || strings.Contains(strings.Join(parts, ""), ",") {
				continue
			}
			v = "ss:" + strings.Join(parts, ",")
		case AttrFloats:
			parts := make([]string, len(a.Floats))
			for i, x := range a.Floats {
				parts[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
			}
			v = "fs:" + strings.Join(parts, ",")
		default:
			continue
		}
		out = append(out, StringPair{Key: FusedAttrPrefix + a.Name, Value: v})
	}
	return out
}

// decodeFusedMatch reads the attributes EncodeFusedMatch wrote; entries it
// cannot read are skipped.
func decodeFusedMatch(md []StringPair) []*Attr {
	var out []*Attr
	for _, kv := range md {
		name, ok := strings.CutPrefix(kv.Key, FusedAttrPrefix)
		if !ok || name == "" || name == FusedBodyAttr {
			continue
		}
		kind, val, _ := strings.Cut(kv.Value, ":")
		a := &Attr{Name: name}
		var err error
		switch kind {
		case "i":
			a.Type = AttrInt
			a.I, err = strconv.ParseInt(val, 10, 64)
		case "f":
			a.Type = AttrFloat
			var f float64
			f, err = strconv.ParseFloat(val, 32)
			a.F = float32(f)
		case "s":
			a.Type, a.S = AttrString, []byte(val)
		case "is":
			a.Type = AttrInts
			for _, p := range splitList(val) {
				x, e := strconv.ParseInt(p, 10, 64)
				err = firstErr(err, e)
				a.Ints = append(a.Ints, x)
			}
		case "ss":
			a.Type = AttrStrings
			a.Strings = [][]byte{}
			for _, p := range strings.Split(val, ",") {
				a.Strings = append(a.Strings, []byte(p))
			}
		case "fs":
			a.Type = AttrFloats
			for _, p := range splitList(val) {
				x, e := strconv.ParseFloat(p, 32)
				err = firstErr(err, e)
				a.Floats = append(a.Floats, float32(x))
			}
		default:
			continue
		}
		if err == nil {
			out = append(out, a)
		}
	}
	return out
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// FusedFunctionOp returns the fused kernel op a function holds (its
// FusedOpKey entry), or "" when f is not a wolong fused kernel.
func FusedFunctionOp(f *Function) string {
	if f == nil || f.Domain != FusedDomain || f.Body == nil || len(f.AttrNames) > 0 || len(f.AttrDefs) > 0 {
		return ""
	}
	for _, kv := range f.Metadata {
		if kv.Key == FusedOpKey {
			return kv.Value
		}
	}
	return ""
}

// maxInlinedNodes bounds the nodes InlineFusedFunctions copies, so a
// file whose functions call each other many times over cannot make it
// build an unbounded graph.
var maxInlinedNodes = 1 << 22

// InlineFusedFunctions turns every call of a wolong fused-kernel function
// (FusedFunctionOp) in m, at any depth, back into a fused node: op the
// kernel's, its match attributes restored, and a copy of the function's
// body of its own (so each call's body has its own types). Functions left
// without calls are dropped; it returns the number of calls turned. A
// function that calls itself, or calls that would copy more than
// maxInlinedNodes nodes, are an error.
func InlineFusedFunctions(m *Model) (int, error) {
	if m == nil || m.Graph == nil || len(m.Functions) == 0 {
		return 0, nil
	}
	fused := map[*Function]string{}
	for _, f := range m.Functions {
		if op := FusedFunctionOp(f); op != "" {
			fused[f] = op
		}
	}
	if len(fused) == 0 {
		return 0, nil
	}
	count, cloned := 0, 0
	busy := map[*Function]bool{}
	var err error
	var visit func(g *Graph, depth int)
	visit = func(g *Graph, depth int) {
		if depth > maxSubgraphDepth {
			err = fmt.Errorf("fused kernels nested deeper than %d", maxSubgraphDepth)
			return
		}
		for _, n := range g.Nodes {
			f := m.Function(n.Domain, n.Op)
			op, ok := fused[f]
			if ok && len(n.Attrs) == 0 { // a call with attributes is not one wolong wrote
				if busy[f] {
					err = fmt.Errorf("function %s calls itself", f.Name)
					return
				}
				if cloned += len(f.Body.Nodes); cloned > maxInlinedNodes {
					err = fmt.Errorf("fused kernels expand to more than %d nodes", maxInlinedNodes)
					return
				}
				body, e := CloneGraph(f.Body, g, n)
				if e != nil {
					err = fmt.Errorf("function %s: %v", f.Name, e)
					return
				}
				n.Op = op
				n.Attrs = append([]*Attr{{Name: FusedBodyAttr, Type: AttrGraph, G: body}}, decodeFusedMatch(f.Metadata)...)
				count++
				busy[f] = true
				visit(body, depth+1)
				busy[f] = false
				if err != nil {
					return
				}
				continue
			}
			for _, sg := range n.Subgraphs() {
				visit(sg, depth+1)
				if err != nil {
					return
				}
			}
		}
	}
	visit(m.Graph, 0)
	if err != nil {
		return count, err
	}
	called := map[*Function]bool{}
	mark := func(g *Graph) bool {
		for _, n := range g.Nodes {
			if f := m.Function(n.Domain, n.Op); f != nil && !IsFused(n) {
				called[f] = true
			}
		}
		return true
	}
	m.Graph.Walk(mark)
	for _, f := range m.Functions {
		if _, isFused := fused[f]; !isFused && f.Body != nil {
			f.Body.Walk(mark) // other functions keep their calls
		}
	}
	kept := m.Functions[:0]
	for _, f := range m.Functions {
		if _, isFused := fused[f]; !isFused || called[f] {
			kept = append(kept, f)
		}
	}
	m.Functions = kept
	return count, nil
}

// inferFused infers a fused kernel through its body, as a function call:
// the body's inputs take the node's input types and known values. An
// output the body leaves less known than the type recorded when the group
// was fused (Declared) takes that type.
func (c *InferContext) inferFused(body *Graph) error {
	in := make([]Type, len(body.Inputs))
	for i, v := range body.Inputs {
		in[i] = c.InType(i)
		if x := c.Input(i); x != nil && v != nil {
			v.SetKnown(x.Known())
		}
	}
	c.st.inferGraph(body, in)
	for i, o := range body.Outputs {
		out := c.Node.Output(i)
		if o == nil || out == nil {
			continue
		}
		t := o.Type.Clone()
		if d := out.Declared; d != nil && lessKnown(t, *d) {
			t = d.Clone()
		}
		out.Type, out.known = t, o.known
	}
	return nil
}

// lessKnown reports whether t says less than d about a value: unknown
// kind, dtype or rank where d has them.
func lessKnown(t, d Type) bool {
	switch {
	case t.Kind == KindUnknown:
		return d.Kind != KindUnknown
	case t.Kind != d.Kind:
		return false
	case t.DType == Undefined && d.DType != Undefined:
		return true
	case !t.Shape.Known && d.Shape.Known:
		return true
	}
	if !t.Shape.Known || !d.Shape.Known || len(t.Shape.Dims) != len(d.Shape.Dims) {
		return false
	}
	for i, x := range t.Shape.Dims {
		if !x.IsConcrete() && !x.IsSymbolic() && (d.Shape.Dims[i].IsConcrete() || d.Shape.Dims[i].IsSymbolic()) {
			return true
		}
	}
	return false
}
