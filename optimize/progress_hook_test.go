package optimize

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestOnPassStart checks that Options.OnPassStart is called once before
// each pass that runs (not for passes skipped for want of a placer), with
// positions 1..n, n the number of passes that run, the pass's name, and
// the model as the previous pass left it; and that a dump of every pass
// (KeepUnchanged) still follows each pass.
func TestOnPassStart(t *testing.T) {
	tests := []struct {
		name    string
		level   int
		only    []string
		disable []string
	}{
		{"O0", 0, nil, nil},
		{"O1", 1, nil, nil},
		{"O2", 2, nil, nil},
		{"O3", 3, nil, nil},
		{"only fuse", 3, []string{"fuse"}, nil},
		{"O3 without fuse", 3, nil, []string{"fuse"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := modelgen.New("hook", 17)
			x := b.Input("x", ir.Float32, 2, 8)
			y := b.Op("MatMul", in(x, b.Weight("w", 8, 8)))
			y = b.Op("Add", in(y, b.Weight("bias", 8)))
			y = b.Op("Identity", in(b.Op("Relu", in(y))))
			b.Output(b.Op("Sigmoid", in(y)))
			m := b.Model()
			ir.InferModel(m, ir.InferOptions{})

			// The passes that should run, from Select, independently of Run.
			sel, err := Select(tc.level, tc.only, tc.disable)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, p := range sel {
				if !p.NeedsPlacer && !p.ControlFlow { // the model has no If/Loop/Scan
					want = append(want, p.Name)
				}
			}

			var events []string
			var nodesAtStart []int
			opt := Options{Level: tc.level, Only: tc.only, Disable: tc.disable, VerifyEach: true,
				OnPassStart: func(i, n int, pass string, mm *ir.Model) {
					if i != len(nodesAtStart)+1 {
						t.Errorf("pass %q: position %d, want %d", pass, i, len(nodesAtStart)+1)
					}
					if n != len(want) {
						t.Errorf("pass %q: total %d, want %d", pass, n, len(want))
					}
					if mm != m {
						t.Errorf("pass %q: called with another model", pass)
					}
					nodesAtStart = append(nodesAtStart, len(mm.Graph.Nodes))
					events = append(events, "start "+pass)
				},
				Dumps: []Dump{{KeepUnchanged: true, To: dumpFunc(func(s Stage, _ *ir.Model) error {
					events = append(events, "end "+s.Pass)
					return nil
				})}}}
			res, err := Run(m, opt)
			if err != nil {
				t.Fatal(err)
			}
			wantEvents := []string{"end input"}
			for _, p := range want {
				wantEvents = append(wantEvents, "start "+p, "end "+p)
			}
			if have, w := strings.Join(events, ", "), strings.Join(wantEvents, ", "); have != w {
				t.Fatalf("events:\n have %s\n want %s", have, w)
			}
			if len(res.Passes) != len(want) {
				t.Fatalf("%d pass results, %d passes started", len(res.Passes), len(want))
			}
			prev := res.Baseline.Nodes
			for k, p := range res.Passes {
				if nodesAtStart[k] != prev {
					t.Errorf("pass %d (%s) started with %d nodes, the previous one left %d", k+1, p.Name, nodesAtStart[k], prev)
				}
				prev = p.After.Nodes
			}
			if tc.name == "O3" && len(sel) == len(want) {
				t.Errorf("-O3 selects no pass that needs a placer: the skip is not exercised")
			}
			if tc.level >= 1 && len(tc.only) == 0 && nodesAtStart[0] == prev {
				t.Errorf("the passes left the node count at %d: the model is not rewritten", prev)
			}
		})
	}
}

// dumpFunc is a Dumper made of a function.
type dumpFunc func(s Stage, m *ir.Model) error

func (f dumpFunc) Dump(s Stage, m *ir.Model) error { return f(s, m) }
