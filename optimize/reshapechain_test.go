package optimize

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestReshapeChain runs the reshapechain pass alone on small graphs and
// checks the rewrites (count and text), the ops left, that the graph
// outputs keep their names and that the evaluator gives the same outputs
// before and after. The cases with no rewrite are the ones the pass must
// leave alone. More cases are pass files under testdata/passes/reshapechain
// (TestPassFiles).
func TestReshapeChain(t *testing.T) {
	shape := func(b *modelgen.Builder, name string, dims ...int64) *ir.Value {
		return b.ConstI(name, []int64{int64(len(dims))}, dims...)
	}
	for _, tc := range []struct {
		name  string
		opset int64
		build func(b *modelgen.Builder)
		n     int    // rewrites expected
		want  string // regexp the first rewrite must match ("" if n == 0)
		ops   string // opHistogram after
	}{
		{
			name:  "opset 11 attribute axes",
			opset: 11,
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 4, 6)
				u := b.Op("Unsqueeze", in(x), modelgen.Ints("axes", 0, 3))
				b.Output(b.Op("Exp", in(b.Op("Squeeze", in(u), modelgen.Ints("axes", 0)))))
			},
			n:   1,
			ops: "Reshape Exp",
		},
		{
			name: "identity between graph input and output keeps one reshape",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 3, 4)
				f := b.Op("Flatten", in(x), modelgen.Int("axis", 2))
				b.Output(b.Op("Reshape", in(f, shape(b, "s", 2, 3, 4))))
			},
			n:   1,
			ops: "Reshape",
		},
		{
			name: "intermediate is a graph output",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 3, 4)
				r := b.Op("Reshape", in(x, shape(b, "s0", 6, 4)))
				b.Output(r, b.Op("Reshape", in(r, shape(b, "s1", 24))))
			},
			ops: "Reshape Reshape",
		},
		{
			name: "dynamic batch",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, "N", 12)
				r := b.Op("Reshape", in(b.Op("Reshape", in(x, shape(b, "s0", -1, 3, 4))), shape(b, "s1", -1, 12)))
				b.Output(b.Op("Relu", in(r)))
			},
			ops: "Reshape Reshape Relu",
		},
		{
			name: "allowzero reshape breaks the chain",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 3, 4)
				r := b.Op("Reshape", in(x, shape(b, "s0", 6, 4)), modelgen.Int("allowzero", 1))
				b.Output(b.Op("Relu", in(b.Op("Reshape", in(r, shape(b, "s1", 24))))))
			},
			ops: "Reshape Reshape Relu",
		},
		{
			name: "allowzero in the middle splits the chain",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Float32, 2, 3, 4)
				r := b.Op("Reshape", in(b.Op("Flatten", in(x)), shape(b, "s0", 6, 4)), modelgen.Int("allowzero", 1))
				f := b.Op("Flatten", in(b.Op("Unsqueeze", in(r, b.ConstI("ax", []int64{1}, 0)))))
				b.Output(b.Op("Relu", in(f)))
			},
			n:   1,
			ops: "Flatten Reshape Reshape Relu",
		},
		{
			name: "integer data",
			build: func(b *modelgen.Builder) {
				x := b.Input("x", ir.Int64, 2, 6)
				r := b.Op("Reshape", in(b.Op("Reshape", in(x, shape(b, "s0", 3, 4))), shape(b, "s1", 12, 1)))
				b.Output(b.Op("Neg", in(r)))
			},
			n:   1,
			ops: "Reshape Neg",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opset := tc.opset
			if opset == 0 {
				opset = 17
			}
			mk := func() *ir.Model {
				b := modelgen.New(strings.ReplaceAll(tc.name, " ", "_"), opset)
				tc.build(b)
				m := b.Model()
				ir.InferModel(m, ir.InferOptions{})
				return m
			}
			orig, m := mk(), mk()
			res, err := Run(m, Options{Level: MaxLevel, Only: []string{"reshapechain"}, VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			rw := res.Passes[0].Rewrites
			if res.Passes[0].Name != "reshapechain" || len(rw) != tc.n {
				t.Fatalf("%s: %d rewrites %v, want %d", res.Passes[0].Name, len(rw), rw, tc.n)
			}
			if tc.want != "" && !regexp.MustCompile(tc.want).MatchString(rw[0].String()) {
				t.Errorf("rewrite %q does not match %q", rw[0].String(), tc.want)
			}
			if have := opHistogram(m); have != tc.ops {
				t.Errorf("ops after: have %s, want %s", have, tc.ops)
			}
			for i, o := range m.Graph.Outputs {
				if o.Name != orig.Graph.Outputs[i].Name {
					t.Errorf("output %d renamed %s -> %s", i, orig.Graph.Outputs[i].Name, o.Name)
				}
			}
			if why := compareRuns(t, orig, m, 3, 0, 0); why != "" {
				t.Fatalf("cannot compare: %s", why)
			}
		})
	}
}
