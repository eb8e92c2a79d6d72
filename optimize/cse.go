package optimize

// This file implements common-subexpression elimination.

import (
	"fmt"
	"math"
	"reflect"
	"slices"
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
// A node meets its twin among the readers of its least-read input (see
// twins; linear, never all pairs); a tensor
// attribute enters the key as the first equal tensor seen (tensoreq.go:
// tensors are compared by dtype and shape first, a large one's file
// location next, and read, first bytes before the rest, only when
// another tensor of their dtype and shape exists), so a weight's bytes
// are not read to find that it has no twin. Nodes with subgraphs and
// random ops are left alone.
// CSE only relinks uses; the duplicates it leaves are deleted by dce.
func cse(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	var rw []Rewrite
	// Identical initializers first, so nodes reading them become equal.
	if c.probes == nil {
		c.probes = map[*ir.Tensor]probe{}
	}
	idx := newTensorIndex(c.probes)
	byTensor := make(map[*ir.Tensor]*ir.Value, len(g.Initializers))
	isInput := map[*ir.Value]bool{}
	for _, v := range g.Inputs {
		isInput[v] = true
	}
	for _, v := range g.Initializers {
		if isInput[v] || v.Const == nil || g.IsOutput(v) || len(v.Uses) == 0 {
			continue // dead ones are dce's: comparing them would read them
		}
		c := idx.find(v.Const) // once per initializer: canonical's record would go unread
		if w := byTensor[c]; w != nil && w != v {
			v.ReplaceAllUses(w)
			rw = append(rw, Rewrite{Before: []string{v.Name}, After: []string{w.Name}, Remark: "identical initializer"})
			continue
		}
		byTensor[c] = v
	}
	order := nodesInOrder(g)
	tw := newTwins(g, idx)
	for _, n := range order {
		if hasSubgraph(n) || (isDefault(n) && nondeterministic[n.Op]) || len(n.Outputs) == 0 {
			continue
		}
		m := tw.findOrAdd(n)
		if m == nil {
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

// twins finds, for each node cse visits, the earlier node it duplicates:
// the same op, attributes and inputs. Such a node reads every input n
// reads, so it is among the readers of n's input with the fewest uses;
// those few are compared (op and inputs first, the key only on a match)
// instead of hashing every node's key into a map of them all, which
// missed the cache on every probe at a million nodes. A node whose every
// input has more than maxScan readers (or that has no input) is found by
// key in a map. The choice rests on each input's use count when twins
// first looked at it, which equal nodes share (their inputs are the same
// values), so twins always meet on the same path. A use list can still
// grow past that count (merges move readers onto the value kept); once
// it is longer than maxList, the value's readers are keyed in a map of
// their own and later twins reading it look there, so no node scans more
// than maxList readers.
type twins struct {
	g       *ir.Graph
	idx     *tensorIndex
	fan     []int32                           // 1 + uses of g's values by ID when first seen; 0 not yet
	canon   *nodeSet                          // nodes a later twin merges into
	byKey   map[string]*ir.Node               // the nodes no use list serves, by key
	byValue map[*ir.Value]map[string]*ir.Node // the readers of a long use list, by key
}

// maxScan is the most readers an input may have for twins to go by its
// use list; maxList the longest use list it scans.
const (
	maxScan = 32
	maxList = 4 * maxScan
)

func newTwins(g *ir.Graph, idx *tensorIndex) *twins {
	return &twins{g: g, idx: idx, fan: make([]int32, g.NumValueIDs()), canon: newNodeSet(g)}
}

// fanout is v's use count when twins first asked (substitutions move
// uses to the values merged into; outer values' uses do not change while
// cse rewrites g).
func (tw *twins) fanout(v *ir.Value) int {
	if v.Graph != tw.g || v.ID < 0 || v.ID >= len(tw.fan) {
		return len(v.Uses)
	}
	if tw.fan[v.ID] == 0 {
		tw.fan[v.ID] = int32(min(len(v.Uses), maxScan+1)) + 1
	}
	return int(tw.fan[v.ID]) - 1
}

// narrowest returns n's input with the fewest uses if it has at most
// maxScan, else nil.
func (tw *twins) narrowest(n *ir.Node) *ir.Value {
	var best *ir.Value
	bestFan := maxScan + 1
	for _, v := range n.Inputs {
		if v != nil {
			if f := tw.fanout(v); f < bestFan {
				best, bestFan = v, f
			}
		}
	}
	return best
}

// findOrAdd returns the node n duplicates; when there is none it makes n
// a node later twins merge into and returns nil. n's narrowest input and
// key are found once for both.
func (tw *twins) findOrAdd(n *ir.Node) *ir.Node {
	v := tw.narrowest(n)
	key := "" // n's key, computed when first needed
	keyOf := func() string {
		if key == "" {
			key = nodeKey(n, tw.idx)
		}
		return key
	}
	km := tw.byKey // where n is found by key, if anywhere
	if v != nil {
		km = tw.readers(v)
	} else if km == nil {
		km = map[string]*ir.Node{}
		tw.byKey = km
	}
	if km != nil {
		if m := km[keyOf()]; m != nil {
			return m
		}
		km[key] = n
		tw.canon.add(n)
		return nil
	}
	for _, u := range v.Uses {
		m := u.Node
		if m == nil || m == n || m.Graph != tw.g || !tw.canon.has(m) || !sameCall(m, n) {
			continue
		}
		if nodeKey(m, tw.idx) == keyOf() {
			return m
		}
	}
	tw.canon.add(n)
	return nil
}

// readers returns the map of v's canonical readers by key once v's use
// list is longer than maxList (built then, from the list), else nil.
func (tw *twins) readers(v *ir.Value) map[string]*ir.Node {
	if km := tw.byValue[v]; km != nil || len(v.Uses) <= maxList {
		return km
	}
	km := map[string]*ir.Node{}
	for _, u := range v.Uses {
		if m := u.Node; m != nil && m.Graph == tw.g && tw.canon.has(m) {
			if k := nodeKey(m, tw.idx); km[k] == nil {
				km[k] = m
			}
		}
	}
	if tw.byValue == nil {
		tw.byValue = map[*ir.Value]map[string]*ir.Node{}
	}
	tw.byValue[v] = km
	return km
}

// sameCall reports whether m and n apply the same op to the same inputs
// (the cheap part of their keys).
func sameCall(m, n *ir.Node) bool {
	return m.Op == n.Op && m.Domain == n.Domain && len(m.Outputs) == len(n.Outputs) && slices.Equal(m.Inputs, n.Inputs)
}

// nodeKey is the op, the input value IDs and the attributes (tensors by
// their canonical tensor in idx).
func nodeKey(n *ir.Node, idx *tensorIndex) string {
	var b strings.Builder
	var num [20]byte // numbers are formatted here, not in strings of their own
	b.Grow(len(n.Domain) + len(n.Op) + len(n.Overload()) + 20*len(n.Inputs) + 16*len(n.Attrs) + 8)
	b.WriteString(n.Domain)
	b.WriteByte(':')
	b.WriteString(n.Op)
	b.WriteByte(':')
	b.WriteString(n.Overload())
	b.WriteByte('(')
	for _, in := range n.Inputs {
		if in == nil {
			b.WriteString("_,")
			continue
		}
		// the value's identity, as fmt's %p writes it (without fmt: this
		// runs for every node, twice per -O3 run)
		b.WriteString("0x")
		b.Write(strconv.AppendUint(num[:0], uint64(reflect.ValueOf(in).Pointer()), 16))
		b.WriteByte(',')
	}
	b.WriteString(")#")
	b.Write(strconv.AppendInt(num[:0], int64(len(n.Outputs)), 10))
	for i, o := range n.Outputs {
		if o == nil {
			b.WriteByte('!')
			b.Write(strconv.AppendInt(num[:0], int64(i), 10))
		}
	}
	b.WriteByte('{')
	for _, a := range n.Attrs {
		b.WriteString(a.Name)
		b.WriteByte('=')
		attrKey(&b, a, idx)
		b.WriteByte(';')
	}
	b.WriteByte('}')
	return b.String()
}

// attrKey writes a's part of a node key; tensors as tensorAttrKey does
// (idx may be nil).
func attrKey(b *strings.Builder, a *ir.Attr, idx *tensorIndex) {
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
		tensorAttrKey(b, a.T, idx)
	case ir.AttrTensors:
		for _, t := range a.Tensors {
			tensorAttrKey(b, t, idx)
			b.WriteByte(',')
		}
	default:
		// Graphs, sparse tensors, type protos: make the key unique so the
		// node never merges.
		fmt.Fprintf(b, "%p", a)
	}
}
