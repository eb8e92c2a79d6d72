package ir

// idTable counts per key like a map[K]int, but keeps the keys of one
// graph, whose IDs are dense, in slices indexed by ID: no hashing, and a
// fraction of a map's memory (the verifier's tables, run on every graph
// at load time, are the users: a map per table made Verify ~0.1 s on a
// 100k-node model). Other keys (values of an enclosing graph, or a key of
// a malformed graph whose ID another key holds already) go to a map, so
// the table answers for any key exactly as the map would.
type idTable[K comparable] struct {
	own   func(K) (id int, ok bool) // the key's ID when it is the graph's own
	keys  []K                       // by ID: the key that holds the slot
	count []int32
	other map[K]int
}

// newIDTable is a table for n IDs; own says which keys may use them.
func newIDTable[K comparable](n int, own func(K) (int, bool)) *idTable[K] {
	return &idTable[K]{own: own, keys: make([]K, n), count: make([]int32, n)}
}

// slot is k's index in the slices (taking a free one), -1 for the map.
func (t *idTable[K]) slot(k K) int {
	id, ok := t.own(k)
	if !ok || id < 0 || id >= len(t.keys) {
		return -1
	}
	var zero K
	if t.keys[id] == zero {
		t.keys[id] = k
	}
	if t.keys[id] != k {
		return -1
	}
	return id
}

func (t *idTable[K]) get(k K) int {
	if i := t.slot(k); i >= 0 {
		return int(t.count[i])
	}
	return t.other[k]
}

func (t *idTable[K]) add(k K, d int) {
	if i := t.slot(k); i >= 0 {
		t.count[i] += int32(d)
		return
	}
	if t.other == nil {
		t.other = map[K]int{}
	}
	t.other[k] += d
}

// valueTable is an idTable of g's values.
func valueTable(g *Graph) *idTable[*Value] {
	return newIDTable(g.nextValue, func(x *Value) (int, bool) {
		if x == nil || x.Graph != g {
			return 0, false
		}
		return x.ID, true
	})
}

// nodeTable is an idTable of g's nodes.
func nodeTable(g *Graph) *idTable[*Node] {
	return newIDTable(g.nextNode, func(n *Node) (int, bool) {
		if n == nil || n.Graph != g {
			return 0, false
		}
		return n.ID, true
	})
}
