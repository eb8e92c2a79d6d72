package calibrate

// This file pairs measured samples with model nodes, and builds one-node
// models for samples measured without a model (table and trace rows).

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// Pair is a model node with its measured sample.
type Pair struct {
	Node   *ir.Node
	Sample *Sample
}

// Match pairs p's samples with m's nodes by node name; samples without a
// name are paired with the first unpaired node of the same op whose input
// shapes agree. It refuses a profile that names nodes m does not have, gives
// a node another op type, or lacks a main-graph node that runs a kernel
// (Constant nodes, which runtimes turn into initializers, may be absent).
// Nodes inside If/Loop/Scan bodies may be absent (a branch not taken) or
// measured.
func Match(m *ir.Model, p *Profile) ([]Pair, error) {
	byName := map[string]*ir.Node{}
	var order []*ir.Node
	var walk func(g *ir.Graph, top bool)
	top := map[*ir.Node]bool{}
	walk = func(g *ir.Graph, isTop bool) {
		for _, n := range g.Nodes {
			name := n.Name
			if name == "" {
				// ONNX Runtime names an unnamed node <op>_<index in the file>
				name = fmt.Sprintf("%s_%d", n.Op, n.ID)
			}
			if _, dup := byName[name]; !dup {
				byName[name] = n
			}
			order = append(order, n)
			if isTop {
				top[n] = true
			}
			for _, sg := range n.Subgraphs() {
				walk(sg, false)
			}
		}
	}
	walk(m.Graph, true)
	paired := map[*ir.Node]bool{}
	var pairs []Pair
	var unknown, wrongOp []string
	var unnamed []*Sample
	inlined := map[string]bool{} // ops whose function body the runtime inlined
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Name == "" {
			unnamed = append(unnamed, s)
			continue
		}
		if runtimeNode(s.Name) {
			if strings.HasPrefix(s.Name, inlinedPrefix) {
				inlined[strings.SplitN(strings.TrimPrefix(s.Name, inlinedPrefix), "_", 2)[0]] = true
			}
			continue
		}
		n, ok := byName[s.Name]
		if ok && n.Name == "" && (n.Op != s.Op || !shapesEqual(n, s)) {
			ok = false // a generated name that points at another node
		}
		if !ok && generatedName(s) {
			unnamed = append(unnamed, s)
			continue
		}
		if !ok {
			unknown = append(unknown, fmt.Sprintf("%s (%s)", s.Name, s.Op))
			continue
		}
		if n.Op != s.Op {
			wrongOp = append(wrongOp, fmt.Sprintf("%s is %s in the model, %s in the profile", s.Name, n.Op, s.Op))
			continue
		}
		if paired[n] {
			continue // the same node measured twice (a loop body): keep the first
		}
		paired[n] = true
		pairs = append(pairs, Pair{n, s})
	}
	taken := map[*ir.Node]bool{}
	for _, s := range unnamed {
		var found *ir.Node
		for _, agree := range []func(*ir.Node, *Sample) bool{shapesEqual, shapesAgree} {
			for _, n := range order {
				if found == nil && !paired[n] && n.Name == "" && n.Op == s.Op && agree(n, s) && !taken[n] {
					found = n
				}
			}
		}
		if found == nil && s.Name != "" {
			unknown = append(unknown, fmt.Sprintf("%s (%s)", s.Name, s.Op))
			continue
		}
		if found == nil {
			unknown = append(unknown, fmt.Sprintf("an unnamed %s with inputs %s", s.Op, FormatInputs(s.Inputs, s.DType)))
			continue
		}
		paired[found] = true
		pairs = append(pairs, Pair{found, s})
	}
	var missing []string
	for _, n := range m.Graph.Nodes {
		if !paired[n] && !n.Is(ir.OpConstant) && top[n] && !inlined[n.Op] && live(n) {
			missing = append(missing, fmt.Sprintf("%s (%s)", ir.NodeLabel(n), n.Op))
		}
	}
	if len(unknown)+len(wrongOp)+len(missing) > 0 {
		var why []string
		if len(wrongOp) > 0 {
			why = append(why, fmt.Sprintf("%d node(s) with another op type: %s", len(wrongOp), firstFew(wrongOp)))
		}
		if len(unknown) > 0 {
			why = append(why, fmt.Sprintf("%d profiled node(s) not in the model: %s", len(unknown), firstFew(unknown)))
		}
		if len(missing) > 0 {
			why = append(why, fmt.Sprintf("%d model node(s) missing from the profile: %s", len(missing), firstFew(missing)))
		}
		return nil, fmt.Errorf("%s does not match the model (%d of %d profiled nodes matched): %s; was it measured on another model, or with graph optimizations on?",
			p.Source, len(pairs), len(p.Samples), strings.Join(why, "; "))
	}
	return pairs, nil
}

// Node names ONNX Runtime gives nodes it adds itself: casts around fp16
// nodes its CPU kernels do not support, and the nodes of function ops it
// inlines. Their time is part of a run but matches no model node.
const (
	insertedCastPrefix = "InsertedPrecisionFreeCast_"
	inlinedPrefix      = "_inlfunc_"
)

// generatedName reports whether s's name is one ONNX Runtime generates for
// an unnamed node: <op>_<digits>.
func generatedName(s *Sample) bool {
	rest, ok := strings.CutPrefix(s.Name, s.Op+"_")
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// runtimeNode reports whether name is a node the runtime added.
func runtimeNode(name string) bool {
	return strings.HasPrefix(name, insertedCastPrefix) || strings.HasPrefix(name, inlinedPrefix)
}

// live reports whether any output of n is used or is a graph output
// (runtimes drop dead nodes when they load a model).
func live(n *ir.Node) bool {
	for _, o := range n.Outputs {
		if o == nil {
			continue
		}
		if len(o.Uses) > 0 {
			return true
		}
		for _, g := range n.Graph.Outputs {
			if g == o {
				return true
			}
		}
	}
	return false
}

func firstFew(list []string) string {
	const k = 5
	if len(list) <= k {
		return strings.Join(list, ", ")
	}
	return strings.Join(list[:k], ", ") + fmt.Sprintf(" and %d more", len(list)-k)
}

// shapesEqual reports whether s's input shapes are n's, position by
// position (inputs whose shape is not static on n's side agree with any).
func shapesEqual(n *ir.Node, s *Sample) bool {
	if len(s.Inputs) != len(n.Inputs) {
		return false
	}
	for i, in := range s.Inputs {
		if !inputEq(n.Inputs[i], in) {
			return false
		}
	}
	return true
}

func inputEq(v *ir.Value, in Input) bool {
	if v == nil || in.Absent {
		return v == nil && in.Absent
	}
	dims, ok := staticDims(v.Type.Shape)
	if !ok {
		return true
	}
	if len(dims) != len(in.Dims) {
		return false
	}
	for j := range dims {
		if dims[j] != in.Dims[j] {
			return false
		}
	}
	return true
}

// shapesAgree reports whether s's input shapes are n's: position by
// position, or, since ONNX Runtime leaves some constant inputs out of its
// input_type_shape, as an in-order subsequence of n's inputs. Inputs whose
// shape is not static on n's side agree with any shape.
func shapesAgree(n *ir.Node, s *Sample) bool {
	eq := inputEq
	if shapesEqual(n, s) {
		return true
	}
	j := 0
	for _, in := range s.Inputs {
		for j < len(n.Inputs) && !eq(n.Inputs[j], in) {
			j++
		}
		if j == len(n.Inputs) {
			return false
		}
		j++
	}
	return true
}

func staticDims(s ir.Shape) ([]int64, bool) {
	if !s.Known {
		return nil, false
	}
	d := make([]int64, len(s.Dims))
	for i, x := range s.Dims {
		if x.Sym != "" || x.Val < 0 {
			return nil, false
		}
		d[i] = x.Val
	}
	return d, true
}

// DefaultOpset is the ai.onnx opset of the one-node models built for
// samples measured without a model.
const DefaultOpset = 21

// NodeModel builds a one-node model running s: its inputs are graph inputs
// of the sample's shapes (constant inputs, those with values, are
// initializers), shapes inferred. It returns the model and the node.
func NodeModel(s *Sample) (*ir.Model, *ir.Node, error) {
	g := ir.NewGraph("sample")
	ins := make([]*ir.Value, len(s.Inputs))
	for i, in := range s.Inputs {
		if in.Absent {
			continue
		}
		name := fmt.Sprintf("in%d", i)
		if in.HasValues {
			t, err := constTensor(name, in)
			if err != nil {
				return nil, nil, fmt.Errorf("%s input %d: %v", s.Op, i, err)
			}
			ins[i] = g.AddInitializer(t)
			continue
		}
		ins[i] = g.AddInput(name, ir.TensorType(in.DType, ir.ShapeOf(in.Dims...)))
	}
	outs := 1
	if info := ir.Info(ir.Key(s.Domain, s.Op)); info != nil && info.Out.Min > 1 {
		outs = info.Out.Min
	}
	names := make([]string, outs)
	for i := range names {
		names[i] = fmt.Sprintf("out%d", i)
	}
	n := g.AddNode(s.Op, s.Domain, s.Name, ins, names, s.Attrs...)
	for _, o := range n.Outputs {
		g.Outputs = append(g.Outputs, o)
	}
	opsets := []ir.OpsetID{{Domain: "", Version: DefaultOpset}}
	if s.Domain != "" {
		opsets = append(opsets, ir.OpsetID{Domain: s.Domain, Version: 1})
	}
	m := &ir.Model{Opsets: opsets, Graph: g}
	ir.InferModel(m, ir.InferOptions{})
	return m, n, nil
}

func constTensor(name string, in Input) (*ir.Tensor, error) {
	t := &ir.Tensor{Name: name, DType: in.DType, Dims: append([]int64(nil), in.Dims...)}
	switch in.DType {
	case ir.Int64:
		for _, v := range in.Values {
			t.SetInt64s(append(t.Int64s(), int64(v)))
		}
	case ir.Int32, ir.Int8, ir.Uint8, ir.Int16, ir.Uint16, ir.Bool:
		for _, v := range in.Values {
			t.SetInt32s(append(t.Int32s(), int32(v)))
		}
	case ir.Float32:
		for _, v := range in.Values {
			t.SetFloats(append(t.Floats(), float32(v)))
		}
	case ir.Float64:
		t.SetFloat64s(append(t.Float64s(), in.Values...))
	default:
		return nil, fmt.Errorf("constant values of type %s are not supported", in.DType)
	}
	return t, nil
}
