package optimize

// This file classifies nodes in the TVM manner: an ordered lattice of
// fusion patterns (ir.Pattern, declared per op in ir's op table), so
// rules read "kind <= injective".

import (
	"github.com/wolong-dev/wolong/ir"
)

// Kind is an op's fusion pattern: the lattice of ir.Pattern, whose rows
// in ir's op table give each op's (the pattern kernels wolong creates
// included).
type Kind = ir.Pattern

// kindOf returns n's fusion pattern: the op table's, refined. Nodes
// outside ai.onnx (but for the pattern kernels the table declares), nodes
// with subgraphs, nodes whose output is not a tensor of
// known dtype, and nodes with secondary outputs in use (MaxPool indices,
// BatchNormalization training stats) are opaque. A broadcast op whose
// inputs all have the output's shape is elementwise.
func kindOf(n *ir.Node) Kind {
	if len(n.Outputs) == 0 || n.Domain != ir.FusedDomain && (!isDefault(n) || hasSubgraph(n)) {
		return ir.Opaque
	}
	k := ir.PatternOf(n)
	if k == ir.Opaque {
		return k
	}
	for i, o := range n.Outputs {
		if o == nil {
			continue
		}
		if !o.Type.IsTensor() || o.Type.DType == ir.Undefined || o.Type.DType == ir.String {
			return ir.Opaque
		}
		if i > 0 && !n.Is(ir.OpSplit) && (len(o.Uses) > 0 || o.Graph.IsOutput(o)) {
			return ir.Opaque
		}
	}
	if n.Is(ir.OpBatchNormalization) && n.AttrInt("training_mode", 0) != 0 {
		return ir.Opaque
	}
	if k == ir.Broadcast {
		out := n.Outputs[0]
		same := true
		for _, in := range n.Inputs {
			if in != nil && !in.Type.Shape.Identical(out.Type.Shape) {
				same = false
			}
		}
		if same && out.Type.Shape.Known {
			return ir.ElemWise
		}
	}
	return k
}
