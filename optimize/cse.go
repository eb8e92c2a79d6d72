package optimize

// This file implements common-subexpression elimination.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// nondeterministic ops are never merged: two draws are two values.
var nondeterministic = map[string]bool{
	"RandomNormal": true, "RandomUniform": true, "RandomNormalLike": true,
	"RandomUniformLike": true, "Multinomial": true, "Bernoulli": true,
}

// cse merges main-graph nodes that apply the same op, with equal
// attributes, to the same inputs, and initializers with identical data.
// Keys are strings hashed in a map (linear, never all pairs); tensor
// attributes enter the key by a hash and are compared byte for byte on a
// match. Nodes with subgraphs and random ops are left alone. CSE only
// relinks uses; the duplicates it leaves are deleted by dce.
func cse(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	var rw []Rewrite
	// Identical initializers first, so nodes reading them become equal.
	seenInit := map[string]*ir.Value{}
	isInput := map[*ir.Value]bool{}
	for _, v := range g.Inputs {
		isInput[v] = true
	}
	for _, v := range g.Initializers {
		if isInput[v] || v.Const == nil || g.IsOutput(v) {
			continue
		}
		k := tensorKey(v.Const)
		if k == "" {
			continue
		}
		if w := seenInit[k]; w != nil && tensorDataEqual(w.Const, v.Const) {
			v.ReplaceAllUses(w)
			rw = append(rw, Rewrite{Before: []string{v.Name}, After: []string{w.Name}, Remark: "identical initializer"})
			continue
		}
		seenInit[k] = v
	}
	order, err := ir.Topo(g)
	if err != nil {
		return nil, err
	}
	seen := map[string]*ir.Node{}
	for _, n := range order {
		if hasSubgraph(n) || (isDefault(n) && nondeterministic[n.Op]) || len(n.Outputs) == 0 {
			continue
		}
		k := nodeKey(n)
		m := seen[k]
		if m == nil || !attrsDataEqual(m, n) {
			if m == nil {
				seen[k] = n
			}
			continue
		}
		ok := true
		for i, o := range n.Outputs {
			if o == nil {
				continue
			}
			if c.pinned(o) {
				ok = false
			}
			if i >= len(m.Outputs) || m.Outputs[i] == nil || (g.IsOutput(o) && (g.IsOutput(m.Outputs[i]) || !canRename(g, m.Outputs[i]))) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for i, o := range n.Outputs {
			if o != nil {
				c.substitute(o, m.Outputs[i])
			}
		}
		rw = append(rw, Rewrite{Before: []string{ir.NodeLabel(n)}, After: []string{ir.NodeLabel(m)}, Remark: "same " + n.QualifiedOp() + " of the same inputs"})
	}
	return rw, nil
}

// canRename reports whether substitute may give v a graph output's name.
func canRename(g *ir.Graph, v *ir.Value) bool {
	return v.Producer != nil && v.Graph == g && !g.IsOutput(v)
}

// nodeKey is the op, the input value IDs and the attributes.
func nodeKey(n *ir.Node) string {
	var b strings.Builder
	b.WriteString(n.Domain)
	b.WriteByte(':')
	b.WriteString(n.Op)
	b.WriteByte(':')
	b.WriteString(n.Overload)
	b.WriteByte('(')
	for _, in := range n.Inputs {
		if in == nil {
			b.WriteString("_,")
			continue
		}
		fmt.Fprintf(&b, "%p,", in)
	}
	b.WriteString(")#")
	b.WriteString(strconv.Itoa(len(n.Outputs)))
	for i, o := range n.Outputs {
		if o == nil {
			fmt.Fprintf(&b, "!%d", i)
		}
	}
	b.WriteByte('{')
	for _, a := range n.Attrs {
		b.WriteString(a.Name)
		b.WriteByte('=')
		attrKey(&b, a)
		b.WriteByte(';')
	}
	b.WriteByte('}')
	return b.String()
}

func attrKey(b *strings.Builder, a *ir.Attr) {
	fmt.Fprintf(b, "%d@%s:", a.Type, a.RefAttrName)
	switch a.Type {
	case ir.AttrFloat:
		b.WriteString(strconv.FormatUint(uint64(math.Float32bits(a.F)), 16))
	case ir.AttrInt:
		b.WriteString(strconv.FormatInt(a.I, 10))
	case ir.AttrString:
		b.WriteString(strconv.Quote(string(a.S)))
	case ir.AttrFloats:
		for _, f := range a.Floats {
			b.WriteString(strconv.FormatUint(uint64(math.Float32bits(f)), 16))
			b.WriteByte(',')
		}
	case ir.AttrInts:
		for _, v := range a.Ints {
			b.WriteString(strconv.FormatInt(v, 10))
			b.WriteByte(',')
		}
	case ir.AttrStrings:
		for _, s := range a.Strings {
			b.WriteString(strconv.Quote(string(s)))
			b.WriteByte(',')
		}
	case ir.AttrTensor:
		b.WriteString(tensorKey(a.T))
	case ir.AttrTensors:
		for _, t := range a.Tensors {
			b.WriteString(tensorKey(t))
			b.WriteByte(',')
		}
	default:
		// Graphs, sparse tensors, type protos: make the key unique so the
		// node never merges.
		fmt.Fprintf(b, "%p", a)
	}
}

// tensorKey is the dtype, dims and a hash of the data ("" when the data
// cannot be read).
func tensorKey(t *ir.Tensor) string {
	if t == nil {
		return "nil"
	}
	data, ok := tensorBytes(t)
	if !ok {
		return ""
	}
	h := fnv.New64a()
	h.Write(data)
	return fmt.Sprintf("%d%v#%x/%d", t.DType, t.Dims, h.Sum64(), len(data))
}

// tensorBytes returns a byte image of t's data.
func tensorBytes(t *ir.Tensor) ([]byte, bool) {
	if t.Raw != nil {
		return t.Raw, true
	}
	if t.Loc.External {
		return nil, false
	}
	var buf bytes.Buffer
	switch {
	case len(t.Floats) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Floats)
	case len(t.Int32s) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Int32s)
	case len(t.Int64s) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Int64s)
	case len(t.Float64s) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Float64s)
	case len(t.Uint64s) > 0:
		binary.Write(&buf, binary.LittleEndian, t.Uint64s)
	case len(t.Strings) > 0:
		for _, s := range t.Strings {
			fmt.Fprintf(&buf, "%d:", len(s))
			buf.Write(s)
		}
	}
	return buf.Bytes(), true
}

func tensorDataEqual(a, b *ir.Tensor) bool {
	if a.DType != b.DType || len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] {
			return false
		}
	}
	x, ok1 := tensorBytes(a)
	y, ok2 := tensorBytes(b)
	return ok1 && ok2 && bytes.Equal(x, y)
}

// attrsDataEqual confirms a key match on tensor attributes byte for byte.
func attrsDataEqual(m, n *ir.Node) bool {
	for _, a := range n.Attrs {
		switch a.Type {
		case ir.AttrTensor:
			b := m.Attr(a.Name)
			if b == nil || b.T == nil || a.T == nil || !tensorDataEqual(a.T, b.T) {
				return false
			}
		case ir.AttrTensors:
			b := m.Attr(a.Name)
			if b == nil || len(b.Tensors) != len(a.Tensors) {
				return false
			}
			for i := range a.Tensors {
				if !tensorDataEqual(a.Tensors[i], b.Tensors[i]) {
					return false
				}
			}
		}
	}
	return true
}
