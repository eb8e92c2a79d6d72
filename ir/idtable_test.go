package ir

import "testing"

// TestIDTableLikeMap: the verifier's ID-indexed table counts as a map
// would, for the graph's values, an outer value, and a stray value whose
// ID another value holds already.
func TestIDTableLikeMap(t *testing.T) {
	g := NewGraph("g")
	a := g.NewValue("a", Type{})
	b := g.NewValue("b", Type{})
	outer := NewGraph("outer").NewValue("o", Type{})
	stray := &Value{ID: a.ID, Name: "stray", Graph: g} // a clashing ID
	far := &Value{ID: 1 << 20, Name: "far", Graph: g}  // an ID out of range
	tab := valueTable(g)
	want := map[*Value]int{}
	for i, x := range []*Value{a, b, a, outer, stray, stray, far, nil, a} {
		tab.add(x, i+1)
		want[x] += i + 1
	}
	for _, x := range []*Value{a, b, outer, stray, far, nil, g.NewValue("c", Type{})} {
		if got := tab.get(x); got != want[x] {
			t.Errorf("%v: got %d, want %d", x, got, want[x])
		}
	}
}
