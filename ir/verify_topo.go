package ir

// This file implements the verifier's check of the IR invariant that a
// graph lists its nodes in topological order (the importer sorts what a
// file lists out of order; the pass driver restores the order after every
// pass; passes rely on it instead of sorting again).

// order checks that g's nodes are in topological order: every node comes
// after the producers, in g, of its inputs and of the values its subgraphs
// capture. A graph out of order because of a cycle reports the cycle.
func (v *verifier) order(g *Graph) {
	if inOrder(g) { // the usual case, checked without a map
		return
	}
	pos := make(map[*Node]int, len(g.Nodes))
	for i, n := range g.Nodes {
		pos[n] = i
	}
	for i, n := range g.Nodes {
		for _, d := range Deps(g, n) {
			if j, ok := pos[d]; ok && j >= i {
				if _, err := Topo(g); err != nil {
					v.problems = append(v.problems, err.Error())
					return
				}
				v.errorf(g, n, "not in topological order: it reads an output of node %s, listed after it", NodeLabel(d))
				return
			}
		}
	}
}
