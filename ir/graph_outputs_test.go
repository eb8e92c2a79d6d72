package ir

import (
	"fmt"
	"strings"
	"testing"
)

// TestIsOutputIndex: IsOutput agrees with a scan of Outputs on short and
// long lists, through appends, new slices, SetOutput, ReplaceAllUses and
// a value that is an output twice; Verify reports an in-place write that
// bypassed SetOutput.
func TestIsOutputIndex(t *testing.T) {
	for _, n := range []int{3, outScan + 1, 100} {
		g := NewGraph("g")
		x := g.NewValue("x", Type{})
		g.Inputs = []*Value{x}
		var vals []*Value
		for i := 0; i < n+4; i++ {
			vals = append(vals, g.AddNode("Relu", "", fmt.Sprintf("r%d", i), []*Value{x}, []string{fmt.Sprintf("y%d", i)}).Outputs[0])
		}
		check := func(step string) {
			t.Helper()
			for _, v := range append(vals, x) {
				want := false
				for _, o := range g.Outputs {
					want = want || o == v
				}
				if got := g.IsOutput(v); got != want {
					t.Fatalf("n=%d %s: IsOutput(%s) = %v, want %v", n, step, v.Name, got, want)
				}
			}
			if err := VerifyGraph(g); err != nil {
				t.Fatalf("n=%d %s: %v", n, step, err)
			}
		}
		g.Outputs = append(g.Outputs, vals[:n]...)
		check("built")
		g.Outputs = append(g.Outputs, vals[n])
		check("appended")
		g.SetOutput(1, vals[n+1])
		check("SetOutput")
		vals[n+1].ReplaceAllUses(vals[n+2])
		check("ReplaceAllUses")
		g.SetOutput(2, vals[0]) // vals[0] twice now
		check("duplicate")
		vals[0].ReplaceAllUses(vals[n+3])
		check("ReplaceAllUses of a duplicate")
		g.Outputs = append([]*Value(nil), g.Outputs[:n/2+1]...)
		check("new slice")
		if len(g.Outputs) > outScan {
			g.IsOutput(x) // build the index
			g.Outputs[0] = vals[n+1]
			err := VerifyGraph(g)
			if err == nil || !strings.Contains(err.Error(), "SetOutput") {
				t.Errorf("n=%d: an in-place write: Verify says %v", n, err)
			}
		}
	}
}
