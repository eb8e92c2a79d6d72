package ir

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortNodesMatchesTopo: SortNodes leaves a graph already in order as
// it is (its fast path) and otherwise sorts it exactly as Topo orders it,
// on random DAGs listed in order, shuffled, and with a node listed twice.
func TestSortNodesMatchesTopo(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		for _, tc := range []struct {
			name string
			edit func(g *Graph, r *rand.Rand)
		}{
			{"in order", func(*Graph, *rand.Rand) {}},
			{"shuffled", func(g *Graph, r *rand.Rand) {
				r.Shuffle(len(g.Nodes), func(i, j int) { g.Nodes[i], g.Nodes[j] = g.Nodes[j], g.Nodes[i] })
			}},
			{"last two swapped", func(g *Graph, _ *rand.Rand) {
				k := len(g.Nodes) - 1
				g.Nodes[k-1], g.Nodes[k] = g.Nodes[k], g.Nodes[k-1]
			}},
		} {
			r := rand.New(rand.NewPCG(seed, 7))
			g := randomDAG(r, 40)
			inOrderBefore := slices.Clone(g.Nodes)
			tc.edit(g, r)
			want, err := Topo(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := SortNodes(g); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(g.Nodes, want) {
				t.Fatalf("seed %d %s: SortNodes order differs from Topo's", seed, tc.name)
			}
			if tc.name == "in order" && !slices.Equal(g.Nodes, inOrderBefore) {
				t.Fatalf("seed %d: a graph in order was reordered", seed)
			}
			if !inOrder(g) {
				t.Fatalf("seed %d %s: not in order after SortNodes", seed, tc.name)
			}
		}
	}
}

// TestInOrderRejects: inOrder says no to what SortNodes must hand to Topo:
// a node before its producer, a node listed twice, a cycle.
func TestInOrderRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m *Model, a, b *Node)
		want bool
	}{
		{"sorted", func(*Model, *Node, *Node) {}, true},
		{"swapped", func(m *Model, a, b *Node) { m.Graph.Nodes[0], m.Graph.Nodes[1] = b, a }, false},
		{"listed twice", func(m *Model, a, _ *Node) { m.Graph.Nodes = append(m.Graph.Nodes, a) }, false},
		{"cycle", func(m *Model, a, b *Node) { a.SetInput(0, b.Outputs[0]) }, false},
	} {
		m, a, b := twoNodeChain()
		tc.edit(m, a, b)
		if got := inOrder(m.Graph); got != tc.want {
			t.Errorf("%s: inOrder = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// randomDAG builds n nodes in topological order, each reading one or two
// earlier values (the input or an earlier node's output).
func randomDAG(r *rand.Rand, n int) *Graph {
	g := NewGraph("rand")
	vals := []*Value{g.AddInput("x", TensorType(Float32, ShapeOf(2)))}
	for i := 0; i < n; i++ {
		ins := []*Value{vals[r.IntN(len(vals))]}
		if r.IntN(2) == 0 {
			ins = append(ins, vals[r.IntN(len(vals))])
		}
		nd := g.AddNode("Add", "", "", ins, []string{"v" + string(rune('a'+i%26)) + string(rune('0'+i/26))})
		vals = append(vals, nd.Outputs[0])
	}
	g.Outputs = []*Value{vals[len(vals)-1]}
	return g
}

// BenchmarkSortNodesInOrder: what the pass driver pays after every pass
// that keeps the order, on a 100k-node graph (the check, no sort).
func BenchmarkSortNodesInOrder(b *testing.B) {
	g := randomDAG(rand.New(rand.NewPCG(1, 7)), 100_000)
	for b.Loop() {
		if err := SortNodes(g); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDepsWide: a node reading hundreds of values, each several times,
// lists each producer once and in first-read order, in Deps and in Topo's
// dependency count (past the short list Deps scans, a set takes over).
func TestDepsWide(t *testing.T) {
	g := NewGraph("g")
	x := g.NewValue("x", Type{})
	g.Inputs = []*Value{x}
	var outs, ins []*Value
	for i := 0; i < 3*depsScan; i++ {
		outs = append(outs, g.AddNode("Relu", "", fmt.Sprintf("r%d", i), []*Value{x}, []string{fmt.Sprintf("v%d", i)}).Outputs[0])
	}
	for r := 0; r < 3; r++ {
		ins = append(ins, outs...)
	}
	cat := g.AddNode("Concat", "", "cat", ins, []string{"y"})
	g.Outputs = cat.Outputs
	deps := Deps(g, cat)
	if len(deps) != len(outs) {
		t.Fatalf("Deps: %d producers, want %d", len(deps), len(outs))
	}
	for i, d := range deps {
		if d != outs[i].Producer {
			t.Fatalf("Deps[%d] = %s, want %s", i, d.Name, outs[i].Producer.Name)
		}
	}
	order, err := Topo(g)
	if err != nil || order[len(order)-1] != cat {
		t.Fatalf("Topo: last %v, err %v", order[len(order)-1].Name, err)
	}
}

// TestTopoMatchesReference: Topo's order is the stable one (of the nodes
// ready, the earliest in g.Nodes first), checked against a plain
// quadratic walk on shuffled random DAGs; on a graph in order it is
// g.Nodes itself (inference skips Topo on such graphs).
func TestTopoMatchesReference(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		g := randomDAG(r, 300)
		sorted := slices.Clone(g.Nodes)
		if got, err := Topo(g); err != nil || !slices.Equal(got, sorted) {
			t.Fatalf("seed %d: Topo of a sorted graph changed its order (err %v)", seed, err)
		}
		r.Shuffle(len(g.Nodes), func(i, j int) { g.Nodes[i], g.Nodes[j] = g.Nodes[j], g.Nodes[i] })
		var want []*Node
		done := map[*Node]bool{}
		for len(want) < len(g.Nodes) {
			for _, n := range g.Nodes {
				if done[n] {
					continue
				}
				ready := true
				for _, d := range Deps(g, n) {
					ready = ready && done[d]
				}
				if ready {
					want, done[n] = append(want, n), true
					break
				}
			}
		}
		got, err := Topo(g)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: Topo's order is not the stable one", seed)
		}
	}
}
