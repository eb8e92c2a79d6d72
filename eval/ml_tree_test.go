package eval

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestTreeEnsembleModes runs a one-split TreeEnsembleRegressor (x <op> 2
// goes to the leaf of weight 10, else 20) at x = 1 for each node mode,
// and checks that an unknown mode is an error rather than a branch.
func TestTreeEnsembleModes(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want float64 // 0: an error
	}{
		{"BRANCH_LEQ", 10}, {"BRANCH_LT", 10}, {"BRANCH_GTE", 20},
		{"BRANCH_GT", 20}, {"BRANCH_EQ", 20}, {"BRANCH_NEQ", 10},
		{"BRANCH_BOGUS", 0},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			ints := func(name string, v ...int64) *ir.Attr { return &ir.Attr{Name: name, Type: ir.AttrInts, Ints: v} }
			floats := func(name string, v ...float32) *ir.Attr {
				return &ir.Attr{Name: name, Type: ir.AttrFloats, Floats: v}
			}
			g := ir.NewGraph("tree")
			x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(1, 1)))
			n := g.AddNode("TreeEnsembleRegressor", "ai.onnx.ml", "tree", []*ir.Value{x}, []string{"y"},
				ints("nodes_treeids", 0, 0, 0), ints("nodes_nodeids", 0, 1, 2), ints("nodes_featureids", 0, 0, 0),
				floats("nodes_values", 2, 0, 0),
				&ir.Attr{Name: "nodes_modes", Type: ir.AttrStrings, Strings: [][]byte{[]byte(tc.mode), []byte("LEAF"), []byte("LEAF")}},
				ints("nodes_truenodeids", 1, 0, 0), ints("nodes_falsenodeids", 2, 0, 0),
				ints("target_treeids", 0, 0), ints("target_nodeids", 1, 2), ints("target_ids", 0, 0),
				floats("target_weights", 10, 20), &ir.Attr{Name: "n_targets", Type: ir.AttrInt, I: 1})
			g.Outputs = n.Outputs
			m := &ir.Model{Opsets: []ir.OpsetID{{Domain: "", Version: 17}, {Domain: "ai.onnx.ml", Version: 3}}, Graph: g}
			out, err := Run(m, map[string]Value{"x": NewFloat32([]int{1, 1}, []float32{1})}, Options{})
			if tc.want == 0 {
				if err == nil || !strings.Contains(err.Error(), "unknown node mode") {
					t.Fatalf("err = %v, want unknown node mode", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := out[0].(*Tensor).f64()[0]; got != tc.want {
				t.Errorf("y = %v, want %v", got, tc.want)
			}
		})
	}
}
