package ir

// This file implements node attributes.

// AttrType is an attribute's kind, numbered as onnx.AttributeProto.AttributeType.
type AttrType int32

// Attribute kinds.
const (
	AttrUndefined     AttrType = 0
	AttrFloat         AttrType = 1
	AttrInt           AttrType = 2
	AttrString        AttrType = 3
	AttrTensor        AttrType = 4
	AttrGraph         AttrType = 5
	AttrFloats        AttrType = 6
	AttrInts          AttrType = 7
	AttrStrings       AttrType = 8
	AttrTensors       AttrType = 9
	AttrGraphs        AttrType = 10
	AttrSparseTensor  AttrType = 11
	AttrSparseTensors AttrType = 12
	AttrTypeProto     AttrType = 13
	AttrTypeProtos    AttrType = 14
)

var attrTypeNames = [...]string{"undefined", "float", "int", "string", "tensor", "graph", "floats", "ints", "strings", "tensors", "graphs", "sparse_tensor", "sparse_tensors", "type_proto", "type_protos"}

func (a AttrType) String() string {
	if a >= 0 && int(a) < len(attrTypeNames) {
		return attrTypeNames[a]
	}
	return "attr?"
}

// SparseTensor is onnx.SparseTensorProto: values at indices of a dense shape.
type SparseTensor struct {
	Values  *Tensor
	Indices *Tensor
	Dims    []int64
}

// Attr is a node attribute. Only the field(s) for Type are meaningful.
// RefAttrName, when set (inside a function body), names the attribute of
// the calling node that supplies the value.
type Attr struct {
	Name        string
	Type        AttrType
	Doc         string
	RefAttrName string

	F  float32
	I  int64
	S  []byte
	T  *Tensor
	G  *Graph
	ST *SparseTensor
	TP *Type

	Floats        []float32
	Ints          []int64
	Strings       [][]byte
	Tensors       []*Tensor
	Graphs        []*Graph
	SparseTensors []*SparseTensor
	TypeProtos    []*Type
}

// Attr returns the node's attribute called name, or nil.
func (n *Node) Attr(name string) *Attr {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// AttrInt returns an INT attribute, or def when absent or of another type.
func (n *Node) AttrInt(name string, def int64) int64 {
	if a := n.Attr(name); a != nil && a.Type == AttrInt {
		return a.I
	}
	return def
}

// AttrFloat returns a FLOAT attribute, or def.
func (n *Node) AttrFloat(name string, def float32) float32 {
	if a := n.Attr(name); a != nil && a.Type == AttrFloat {
		return a.F
	}
	return def
}

// AttrString returns a STRING attribute, or def.
func (n *Node) AttrString(name string, def string) string {
	if a := n.Attr(name); a != nil && a.Type == AttrString {
		return string(a.S)
	}
	return def
}

// AttrInts returns an INTS attribute and whether it is present.
func (n *Node) AttrInts(name string) ([]int64, bool) {
	if a := n.Attr(name); a != nil && a.Type == AttrInts {
		return a.Ints, true
	}
	return nil, false
}

// AttrFloats returns a FLOATS attribute and whether it is present.
func (n *Node) AttrFloats(name string) ([]float32, bool) {
	if a := n.Attr(name); a != nil && a.Type == AttrFloats {
		return a.Floats, true
	}
	return nil, false
}

// AttrStrings returns a STRINGS attribute as Go strings, and whether it is present.
func (n *Node) AttrStrings(name string) ([]string, bool) {
	a := n.Attr(name)
	if a == nil || a.Type != AttrStrings {
		return nil, false
	}
	out := make([]string, len(a.Strings))
	for i, s := range a.Strings {
		out[i] = string(s)
	}
	return out, true
}

// AttrTensor returns a TENSOR attribute, or nil.
func (n *Node) AttrTensor(name string) *Tensor {
	if a := n.Attr(name); a != nil && a.Type == AttrTensor {
		return a.T
	}
	return nil
}

// AttrGraph returns a GRAPH attribute, or nil.
func (n *Node) AttrGraph(name string) *Graph {
	if a := n.Attr(name); a != nil && a.Type == AttrGraph {
		return a.G
	}
	return nil
}

// SetAttr adds or replaces an attribute.
func (n *Node) SetAttr(a *Attr) {
	for i, b := range n.Attrs {
		if b.Name == a.Name {
			n.Attrs[i] = a
			return
		}
	}
	n.Attrs = append(n.Attrs, a)
}

// HasSubgraphs reports whether Subgraphs would return any graph, without
// building the list.
func (n *Node) HasSubgraphs() bool {
	for _, a := range n.Attrs {
		switch a.Type {
		case AttrGraph:
			if a.G != nil {
				return true
			}
		case AttrGraphs:
			for _, g := range a.Graphs {
				if g != nil {
					return true
				}
			}
		}
	}
	return false
}

// Subgraphs returns the node's GRAPH and GRAPHS attribute values in
// attribute order.
func (n *Node) Subgraphs() []*Graph {
	var gs []*Graph
	for _, a := range n.Attrs {
		switch a.Type {
		case AttrGraph:
			if a.G != nil {
				gs = append(gs, a.G)
			}
		case AttrGraphs:
			for _, g := range a.Graphs {
				if g != nil {
					gs = append(gs, g)
				}
			}
		}
	}
	return gs
}
