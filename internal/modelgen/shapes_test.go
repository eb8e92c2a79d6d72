package modelgen

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestShapes: every benchmark shape builds a valid model of at least the
// nodes asked for and not much more (one block), at several sizes, with
// the same node count each time (deterministic), and every shape but the
// chains (one shared weight) gets more weights as it grows (distinct
// weights per block).
func TestShapes(t *testing.T) {
	for _, s := range Shapes() {
		prevInits := 0
		for _, n := range []int{1, 2000, 5000} {
			m := s.Build(n)
			if err := ir.Verify(m); err != nil {
				t.Fatalf("%s(%d): %v", s.Name, n, err)
			}
			got := CountNodes(m)
			if got < n || got > n+n/4+1000 {
				t.Errorf("%s(%d): %d nodes", s.Name, n, got)
			}
			if again := CountNodes(s.Build(n)); again != got {
				t.Errorf("%s(%d): %d nodes, then %d", s.Name, n, got, again)
			}
			inits := len(m.Graph.Initializers)
			if s.Name != "matmul" && s.Name != "elementwise" && n > 1 && inits <= prevInits {
				t.Errorf("%s(%d): %d initializers, no more than at the smaller size (%d)", s.Name, n, inits, prevInits)
			}
			prevInits = inits
		}
	}
	if _, err := ShapeByName("nope"); err == nil {
		t.Error("ShapeByName(nope): no error")
	}
}
