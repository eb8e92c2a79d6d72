package optimize

// This file prepares an optimized model for export as standard ONNX.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
)

// ToONNX rewrites m in place so that it is a valid ONNX model any runtime
// can load: every fused node (domain "wolong" with a "body" graph) becomes
// a call of a model-local ONNX function of domain "wolong" whose body is
// the group's subgraph, and the model imports the "wolong" domain. The
// standard rewrites (folding, BatchNorm in Conv weights, batching with
// Concat'd weights + Split) are already standard ops. The graph's inputs
// and outputs are untouched. It returns the number of functions added.
func ToONNX(m *ir.Model) (int, error) {
	if m == nil || m.Graph == nil {
		return 0, fmt.Errorf("optimize: no model")
	}
	taken := map[string]bool{}
	for _, f := range m.Functions {
		taken[f.Domain+":"+f.Name] = true
	}
	added := 0
	var err error
	m.Graph.Walk(func(g *ir.Graph) bool {
		for _, n := range g.Nodes {
			if n.Domain != FusedDomain {
				continue
			}
			body := n.AttrGraph("body")
			if body == nil {
				continue
			}
			if len(n.Attrs) != 1 {
				err = fmt.Errorf("optimize: fused node %s has attributes besides body", ir.NodeLabel(n))
				return false
			}
			name := n.Op
			for k := 0; taken[FusedDomain+":"+name]; k++ {
				name = fmt.Sprintf("%s_%d", n.Op, k)
			}
			taken[FusedDomain+":"+name] = true
			body.Parent, body.ParentNode = nil, nil
			body.Name = name
			f := &ir.Function{Name: name, Domain: FusedDomain, Body: body,
				Doc:    "wolong fused kernel " + ir.NodeLabel(n) + " (" + n.Op + ")",
				Opsets: functionOpsets(m)}
			m.Functions = append(m.Functions, f)
			n.Op, n.Attrs = name, nil
			added++
		}
		return true
	})
	if err != nil {
		return added, err
	}
	if added > 0 {
		if m.Opset(FusedDomain) == 0 {
			m.Opsets = append(m.Opsets, ir.OpsetID{Domain: FusedDomain, Version: 1})
		}
		if m.IRVersion < 8 {
			m.IRVersion = 8 // model-local functions need IR version 8
		}
	}
	return added, nil
}

// functionOpsets is the ai.onnx opset the function bodies use.
func functionOpsets(m *ir.Model) []ir.OpsetID {
	var out []ir.OpsetID
	for _, o := range m.Opsets {
		if o.Domain == "" || o.Domain == "ai.onnx" {
			out = append(out, o)
		}
	}
	return out
}
