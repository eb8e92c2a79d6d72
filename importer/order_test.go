package importer

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestImportSortsNodes: a file that lists a node before the producer of
// its input (ONNX requires the order, some exporters break it) imports
// with its nodes in topological order, which ir.Verify checks; a file in
// order keeps its order.
func TestImportSortsNodes(t *testing.T) {
	relu := nodeMsg("Relu", []string{"x"}, []string{"a"})
	neg := nodeMsg("Neg", []string{"a"}, []string{"b"})
	abs := nodeMsg("Abs", []string{"x"}, []string{"c"})
	outs := []*msg{viMsg("b", ir.Float32, 2), viMsg("c", ir.Float32, 2)}
	for _, tc := range []struct {
		name  string
		nodes []*msg
		want  []string
	}{
		{"in order", []*msg{relu, neg, abs}, []string{"Relu", "Neg", "Abs"}},
		{"consumer first", []*msg{neg, abs, relu}, []string{"Abs", "Relu", "Neg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := modelBytes(graphMsg("g", tc.nodes, nil, []*msg{viMsg("x", ir.Float32, 2)}, outs), 17)
			m, err := Decode(b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range m.Graph.Nodes {
				got = append(got, n.Op)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("nodes %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("nodes %v, want %v", got, tc.want)
				}
			}
			if err := ir.Verify(m); err != nil {
				t.Fatal(err)
			}
		})
	}
}
