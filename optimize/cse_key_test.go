package optimize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestNodeKeyNamesInputs: a node's CSE key names each input by identity
// as fmt's %p does, and an omitted input or output by its slot, so two
// nodes read the same values exactly when their keys' input parts match.
func TestNodeKeyNamesInputs(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(2)))
	y := g.AddInput("y", ir.TensorType(ir.Float32, ir.ShapeOf(2)))
	for _, tc := range []struct {
		ins  []*ir.Value
		outs []string
		want string
	}{
		{[]*ir.Value{x, y}, []string{"a"}, fmt.Sprintf(":Add:(%p,%p,)#1{", x, y)},
		{[]*ir.Value{y, x}, []string{"b"}, fmt.Sprintf(":Add:(%p,%p,)#1{", y, x)},
		{[]*ir.Value{nil, x}, []string{"c", ""}, fmt.Sprintf(":Add:(_,%p,)#2!1{", x)},
	} {
		n := g.AddNode("Add", "", "", tc.ins, tc.outs)
		if got := nodeKey(n, nil); !strings.HasPrefix(got, tc.want) {
			t.Errorf("nodeKey = %q, want prefix %q", got, tc.want)
		}
	}
}
