package calibrate

// This file turns model nodes into op signatures: what microbench lists and
// what a table row measures.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
)

// maxConstValues bounds the constant inputs a signature carries by value
// (shape tensors, axes, scales); larger constants (weights) carry shapes.
const maxConstValues = 64

// NodeSample describes n as a sample without a time: op, dtype, static input
// shapes, small integer constant inputs by value, attributes. ok is false
// when an input's shape is not static or an attribute cannot be written in
// the table format (graphs, tensors).
func NodeSample(n *ir.Node) (s Sample, ok bool) {
	s = Sample{Name: n.Name, Op: n.Op, Domain: n.Domain, Attrs: n.Attrs, Runs: 1}
	for _, v := range n.Inputs {
		if v == nil {
			s.Inputs = append(s.Inputs, Input{Absent: true})
			continue
		}
		dims, static := staticDims(v.Type.Shape)
		if !static || v.Type.Kind != ir.KindTensor {
			return s, false
		}
		in := Input{DType: v.Type.DType, Dims: dims}
		if v.Const != nil && !v.Type.DType.IsFloat() {
			if vals, err := v.Const.Int64Values(maxConstValues); err == nil {
				in.HasValues = true
				for _, x := range vals {
					in.Values = append(in.Values, float64(x))
				}
			}
		}
		if s.DType == ir.Undefined && in.DType.IsFloat() {
			s.DType = in.DType
		}
		s.Inputs = append(s.Inputs, in)
	}
	if s.DType == ir.Undefined && len(s.Inputs) > 0 {
		for _, in := range s.Inputs {
			if !in.Absent {
				s.DType = in.DType
				break
			}
		}
	}
	if _, ok := FormatAttrs(n.Attrs); !ok {
		return s, false
	}
	return s, true
}

// Key is a sample's signature: op, dtype, inputs and attributes in the
// table's syntax. Two samples with equal keys run the same kernel.
func Key(s *Sample) string {
	attrs, _ := FormatAttrs(s.Attrs)
	op := s.Op
	if s.Domain != "" {
		op = s.Domain + ":" + op
	}
	return strings.Join([]string{op, s.DType.String(), FormatInputs(s.Inputs, s.DType), attrs}, "|")
}

// Op is one distinct op of a model, for microbenchmarks.
type Op struct {
	Op         string   `json:"op"`
	Domain     string   `json:"domain,omitempty"`
	DType      string   `json:"dtype"`
	Inputs     string   `json:"input_shapes"` // the table's input_shapes syntax
	Attributes string   `json:"attributes"`   // the table's attribute syntax
	Class      string   `json:"class"`
	Count      int      `json:"count"` // nodes with this signature
	Nodes      []string `json:"nodes"` // their names (at most 8)
}

// DistinctOps lists the distinct (op, dtype, shapes, attributes) of g's
// nodes that launch a kernel, most frequent first (ties by signature), and
// the nodes it could not describe (dynamic shapes, graph attributes).
func DistinctOps(g *ir.Graph) (ops []Op, skipped []string) {
	idx := map[string]int{}
	for _, n := range g.Nodes {
		class := cost.ClassOf(n.Domain, n.Op)
		if n.Is(ir.OpConstant) || class == cost.Free || class == cost.Control {
			continue
		}
		s, ok := NodeSample(n)
		if !ok {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", ir.NodeLabel(n), n.Op))
			continue
		}
		k := Key(&s)
		i, seen := idx[k]
		if !seen {
			attrs, _ := FormatAttrs(s.Attrs)
			i = len(ops)
			idx[k] = i
			ops = append(ops, Op{Op: s.Op, Domain: s.Domain, DType: s.DType.String(), Inputs: FormatInputs(s.Inputs, s.DType), Attributes: attrs, Class: string(class)})
		}
		ops[i].Count++
		if len(ops[i].Nodes) < 8 {
			ops[i].Nodes = append(ops[i].Nodes, ir.NodeLabel(n))
		}
	}
	sort.SliceStable(ops, func(i, j int) bool {
		if ops[i].Count != ops[j].Count {
			return ops[i].Count > ops[j].Count
		}
		return ops[i].Op+ops[i].Inputs+ops[i].Attributes < ops[j].Op+ops[j].Inputs+ops[j].Attributes
	})
	return ops, skipped
}
