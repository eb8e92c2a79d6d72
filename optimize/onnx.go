package optimize

// This file prepares an optimized model for export as standard ONNX.

import (
	"fmt"
	"strconv"

	"github.com/wolong-dev/wolong/ir"
)

// ToONNX rewrites m in place so that it is a valid ONNX model any runtime
// can load. A fused kernel whose match the standard has an operator for
// becomes that operator, from what the matcher recorded on the node (not
// by re-recognizing its body): a LayerNorm becomes LayerNormalization
// (opset 17+), a GELU whose constants the matcher checked becomes Gelu
// (opset 20+, approximate="tanh" for the tanh form). Every other fused
// kernel (domain "wolong" with a "body" graph) becomes a call of a
// model-local function of domain "wolong" whose body is the group's
// subgraph; the function's metadata_props record the kernel's op and match
// attributes (ir.FusedOpKey), so wolong reads the file back as the fused
// kernels it holds. Every domain a node uses is imported, and the model is
// re-inferred so the types export writes are the final graph's. The
// standard rewrites (folding, BatchNorm in Conv weights, batching with
// Concat'd weights + Split) are already standard ops. The graph's inputs
// and outputs are untouched. It returns the number of functions added.
func ToONNX(m *ir.Model) (int, error) {
	if m == nil || m.Graph == nil {
		return 0, fmt.Errorf("no model")
	}
	taken := map[string]bool{}
	for _, f := range m.Functions {
		taken[f.Domain+":"+f.Name] = true
	}
	added := 0
	next := map[string]int{} // per op, the k its names' search resumes at
	// A worklist of graphs: the main graph and its If/Loop/Scan bodies
	// (Walk), and the body of every converted group, since a group may hold
	// a nested pattern kernel (a GELU inside a GEMM epilogue).
	work := []*ir.Graph{m.Graph}
	for len(work) > 0 {
		root := work[0]
		work = work[1:]
		root.Walk(func(g *ir.Graph) bool {
			for _, n := range g.Nodes {
				body := ir.FusedBody(n)
				if body == nil || toStandard(m, n) {
					continue
				}
				// the first free of Op, Op_0, Op_1, ...: taken only grows,
				// so the search resumes where the last one of Op stopped
				name := n.Op
				for k := next[n.Op]; taken[ir.FusedDomain+":"+name]; k++ {
					name = n.Op + "_" + strconv.Itoa(k)
					next[n.Op] = k + 1
				}
				taken[ir.FusedDomain+":"+name] = true
				body.Parent, body.ParentNode = nil, nil
				body.Name = name
				md := append([]ir.StringPair{{Key: ir.FusedOpKey, Value: n.Op}}, ir.EncodeFusedMatch(ir.FusedMatch(n))...)
				f := &ir.Function{Name: name, Domain: ir.FusedDomain, Body: body,
					Doc:    "wolong fused kernel " + ir.NodeLabel(n) + " (" + n.Op + ")",
					Opsets: functionOpsets(m), Metadata: md}
				m.Functions = append(m.Functions, f)
				n.Op, n.Attrs = name, nil
				added++
				work = append(work, body)
			}
			return true
		})
	}
	if added > 0 && m.IRVersion < 8 {
		m.IRVersion = 8 // model-local functions need IR version 8
	}
	importUsedDomains(m)
	// The types export writes are the final graph's: passes may have
	// retyped values since they were last inferred.
	ir.InferModel(m, ir.InferOptions{})
	return added, nil
}

// toStandard rewrites fused node n as the standard operator its match is,
// when the model's opset has it; it reports whether it did.
func toStandard(m *ir.Model, n *ir.Node) bool {
	switch n.Op {
	case ir.FusedLayerNorm.Name:
		return m.Opset("") >= 17 && toLayerNormalization(n, "")
	case ir.FusedGelu.Name:
		return m.Opset("") >= 20 && toGelu(n, "", "Gelu")
	}
	return false
}

// functionOpsets is the ai.onnx opset the function bodies use.
func functionOpsets(m *ir.Model) []ir.OpsetID {
	var out []ir.OpsetID
	for _, o := range m.Opsets {
		if o.Domain == "" {
			out = append(out, o)
		}
	}
	return append(out, ir.OpsetID{Domain: ir.FusedDomain, Version: 1})
}

// rewire turns n into op (domain) reading ins, with attrs, in place.
func rewire(n *ir.Node, op, domain string, ins []*ir.Value, attrs []*ir.Attr) {
	for i := range n.Inputs {
		setInput(n, i, nil)
	}
	n.Inputs = make([]*ir.Value, len(ins))
	for i, v := range ins {
		setInput(n, i, v)
	}
	n.Op, n.Domain, n.Attrs = op, domain, attrs
}

// toLayerNormalization turns a fused LayerNorm into
// LayerNormalization(X, Scale, B) {axis, epsilon} of domain, from its
// match: epsilon and axis recorded, a Scale (and B, if any) with one
// element per normalized element of X, one output.
func toLayerNormalization(n *ir.Node, domain string) bool {
	x, scale, bias := ir.FusedInput(n, "X"), ir.FusedInput(n, "Scale"), ir.FusedInput(n, "B")
	eps, axis := n.Attr(ir.FusedEpsilon), n.Attr(ir.FusedAxis)
	if x == nil || scale == nil || eps == nil || axis == nil || len(n.Outputs) != 1 {
		return false
	}
	dims, ok := staticDims(x)
	if !ok || axis.I < 0 || axis.I >= int64(len(dims)) {
		return false
	}
	per := int64(1)
	for _, d := range dims[axis.I:] {
		per *= d
	}
	ins := []*ir.Value{x, scale}
	if bias != nil {
		ins = append(ins, bias)
	}
	for _, v := range ins[1:] {
		k, ok := v.Type.Shape.NumElements()
		if !ok || k != per || v.Type.Shape.Rank() > len(dims)-int(axis.I) || v.Type.DType != x.Type.DType {
			return false
		}
	}
	rewire(n, "LayerNormalization", domain, ins, []*ir.Attr{{Name: "axis", Type: ir.AttrInt, I: axis.I}, {Name: "epsilon", Type: ir.AttrFloat, F: eps.F}})
	return true
}

// toGelu turns a fused GELU whose form the matcher checked into op(X)
// of domain: approximate="tanh" on the tanh form when op is the standard
// Gelu; the erf form only for com.microsoft's Gelu and the tanh form only
// for its FastGelu.
func toGelu(n *ir.Node, domain, op string) bool {
	x := ir.FusedInput(n, "X")
	form := n.AttrString(ir.FusedApproximate, "")
	if x == nil || form == "" || len(n.Outputs) != 1 {
		return false
	}
	var attrs []*ir.Attr
	switch {
	case op == "Gelu" && domain == "":
		if form == "tanh" {
			attrs = []*ir.Attr{{Name: "approximate", Type: ir.AttrString, S: []byte("tanh")}}
		}
	case op == "Gelu" && form != "none", op == "FastGelu" && form != "tanh":
		return false
	}
	rewire(n, op, domain, []*ir.Value{x}, attrs)
	return true
}

// importUsedDomains adds an opset_import entry (version 1, as ONNX Runtime
// assumes for a custom domain) for every domain a node or function uses
// that the model does not import: some files rely on the runtime adding
// com.microsoft by itself, and the fused functions need "wolong".
func importUsedDomains(m *ir.Model) {
	need := func(d string) {
		if m.Opset(d) == 0 {
			m.Opsets = append(m.Opsets, ir.OpsetID{Domain: d, Version: 1})
		}
	}
	visit := func(g *ir.Graph) {
		g.Walk(func(sg *ir.Graph) bool {
			for _, n := range sg.Nodes {
				need(n.Domain)
			}
			return true
		})
	}
	visit(m.Graph)
	for _, f := range m.Functions {
		need(f.Domain)
		if f.Body != nil {
			visit(f.Body)
		}
	}
}
