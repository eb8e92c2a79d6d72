package optimize

// This file holds the small graph edits the passes share.

import (
	"slices"

	"github.com/wolong-dev/wolong/ir"
)

// nodesInOrder returns a copy of g's nodes, which are in topological order
// when a pass starts (the pass contract, see PassFunc), so that the pass
// may add and remove nodes while it walks them.
func nodesInOrder(g *ir.Graph) []*ir.Node { return slices.Clone(g.Nodes) }

// substitute makes every user of old read nv instead. When old is a graph
// output its name must survive (the optimized model keeps the original
// graph IO), so nv takes old's name; that is only possible when nv is a
// plain node output. It reports false, changing nothing, when the
// substitution would rename a graph input, an initializer or another
// graph output.
func (c *Context) substitute(old, nv *ir.Value) bool {
	g := c.Graph()
	if old == nv {
		return true
	}
	if c.pinned(old) {
		return false
	}
	if g.IsOutput(old) {
		if nv.Producer == nil || nv.Graph != g || g.IsOutput(nv) {
			return false
		}
		nv.Name = old.Name
		if old.Declared != nil {
			d := old.Declared.Clone()
			nv.Declared = &d
		}
		nv.SetInfo(nv.Doc(), old.Metadata())
	}
	old.ReplaceAllUses(nv)
	return true
}

// implicitNames returns the names that If branches (at any depth) list
// as their own inputs. ONNX If branches have no formal inputs; exporters
// that write some rely on the name resolving in an enclosing scope, so
// values of those names must keep their name and producer.
func implicitNames(g *ir.Graph) map[string]bool {
	out := map[string]bool{}
	g.Walk(func(sg *ir.Graph) bool {
		if sg.ParentNode.Is(ir.OpIf) {
			for _, v := range sg.Inputs {
				out[v.Name] = true
			}
		}
		return true
	})
	return out
}

// pinned reports whether v is referenced by name from a subgraph, or is
// an outer-scope value a control-flow body captures while a pass runs on
// that body, and so must be neither renamed, replaced nor moved into a
// fused body.
func (c *Context) pinned(v *ir.Value) bool {
	return v != nil && (c.implicit[v.Name] || c.graph != nil && v.Graph != c.graph)
}

// usedOutside reports whether v is read by a node not in members, or is a
// graph output.
func usedOutside(g *ir.Graph, v *ir.Value, members map[*ir.Node]bool) bool {
	if g.IsOutput(v) {
		return true
	}
	for _, u := range v.Uses {
		if !members[u.Node] {
			return true
		}
	}
	return false
}

// singleUse reports whether v has exactly one use, by a node of g, and is
// not a graph output.
func singleUse(g *ir.Graph, v *ir.Value) bool {
	return v != nil && len(v.Uses) == 1 && v.Uses[0].Node.Graph == g && !g.IsOutput(v)
}

// onlyConsumer returns v's single consumer node in g, or nil.
func onlyConsumer(g *ir.Graph, v *ir.Value) *ir.Node {
	if !singleUse(g, v) {
		return nil
	}
	return v.Uses[0].Node
}

// isDefault reports whether n is in the ai.onnx domain.
func isDefault(n *ir.Node) bool { return n.Domain == "" }

// constOf returns v's constant data, or nil.
func constOf(v *ir.Value) *ir.Tensor {
	if v == nil {
		return nil
	}
	return v.Const
}

// scalarOf returns the single value of a constant with one element.
func scalarOf(v *ir.Value) (float64, bool) {
	t := constOf(v)
	if t == nil {
		return 0, false
	}
	if n, ok := t.NumElements(); !ok || n != 1 {
		return 0, false
	}
	f, err := t.Float64Values(1)
	if err != nil || len(f) != 1 {
		return 0, false
	}
	return f[0], true
}

// staticDims returns v's static dims.
func staticDims(v *ir.Value) ([]int64, bool) {
	if v == nil || !v.Type.IsTensor() {
		return nil, false
	}
	return v.Type.Shape.Ints()
}

// names returns the node names.
func names(ns []*ir.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = ir.NodeLabel(n)
	}
	return out
}

// hasSubgraph reports whether n holds a subgraph (If/Loop/Scan, fused).
func hasSubgraph(n *ir.Node) bool { return n.HasSubgraphs() }

// idSet is a set of the nodes or values of one graph, kept by ID (a
// slice, not a map keyed by pointer: dce marks every node of the graph,
// twice a run, and fuse every value its groups read). An element whose
// ID a member holds already (another graph's, or a graph built with
// clashing IDs) goes to a map, so the set answers as a map would.
type idSet[T comparable] struct {
	id    func(T) int
	byID  []T
	other map[T]bool
}

type nodeSet = idSet[*ir.Node]

func newNodeSet(g *ir.Graph) *nodeSet {
	return &nodeSet{id: func(n *ir.Node) int { return n.ID }, byID: make([]*ir.Node, g.NumNodeIDs())}
}

func newValueSet(g *ir.Graph) *idSet[*ir.Value] {
	return &idSet[*ir.Value]{id: func(v *ir.Value) int { return v.ID }, byID: make([]*ir.Value, g.NumValueIDs())}
}

// add puts x in the set and reports whether it was not there.
func (s *idSet[T]) add(x T) bool {
	var zero T
	if i := s.id(x); i >= 0 && i < len(s.byID) && (s.byID[i] == zero || s.byID[i] == x) {
		was := s.byID[i] == x
		s.byID[i] = x
		return !was
	}
	if s.other[x] {
		return false
	}
	if s.other == nil {
		s.other = map[T]bool{}
	}
	s.other[x] = true
	return true
}

func (s *idSet[T]) has(x T) bool {
	if i := s.id(x); i >= 0 && i < len(s.byID) && s.byID[i] == x {
		return true
	}
	return s.other[x]
}

// resetMapMax is the most entries a map resetMap clears in place.
const resetMapMax = 64

// resetMap returns m emptied, for a caller that reuses one map per item
// (group, node) and only adds to it between resets: m itself, cleared,
// when it holds at most resetMapMax entries, else a new map. Clearing
// costs the map's capacity, which never shrinks, so once one large item
// had grown m every later clear would pay for it; the contract keeps a
// map that is cleared small.
func resetMap[K comparable, V any](m map[K]V) map[K]V {
	if len(m) > resetMapMax {
		return make(map[K]V)
	}
	clear(m)
	return m
}
