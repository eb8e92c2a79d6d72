package optimize

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestGeluExport optimizes small GELU models, exports them with ToONNX,
// re-imports the bytes with importer.Decode and checks that a fused GELU
// became the standard Gelu op (with the right approximate attribute) at
// opset 20+, stayed a wolong function below it or when its constants are
// not GELU's, and that the evaluator gives the same outputs as the
// original model.
func TestGeluExport(t *testing.T) {
	erf := func(div float32) func(b *modelgen.Builder, x *ir.Value) *ir.Value {
		return func(b *modelgen.Builder, x *ir.Value) *ir.Value {
			e := b.Op("Add", in(b.Op("Erf", in(b.Op("Div", in(x, b.ConstF("d", nil, div))))), b.ConstF("one", nil, 1)))
			return b.Op("Mul", in(b.Op("Mul", in(x, e)), b.ConstF("half", nil, 0.5)))
		}
	}
	tanh := func(b *modelgen.Builder, x *ir.Value) *ir.Value {
		c := b.Op("Mul", in(b.Op("Pow", in(x, b.ConstF("three", nil, 3))), b.ConstF("k", nil, 0.044715)))
		u := b.Op("Mul", in(b.Op("Add", in(x, c)), b.ConstF("s", nil, float32(math.Sqrt(2/math.Pi)))))
		th := b.Op("Add", in(b.Op("Tanh", in(u)), b.ConstF("one", nil, 1)))
		return b.Op("Mul", in(b.Op("Mul", in(x, b.ConstF("half", nil, 0.5))), th))
	}
	for _, tc := range []struct {
		name   string
		opset  int64
		gelu   func(b *modelgen.Builder, x *ir.Value) *ir.Value
		matmul bool     // a MatMul + bias before the GELU (the fuser nests it)
		passes []string // nil: the whole -O2 pipeline
		native string   // want one native Gelu with this approximate ("-": none)
	}{
		{"erf opset 20", 20, erf(float32(math.Sqrt2)), false, []string{"gelu"}, ""},
		{"tanh opset 20", 20, tanh, false, []string{"gelu"}, "tanh"},
		{"erf opset 21", 21, erf(float32(math.Sqrt2)), false, []string{"gelu"}, ""},
		{"erf opset 18 stays a function", 18, erf(float32(math.Sqrt2)), false, []string{"gelu"}, "-"},
		{"tanh opset 19 stays a function", 19, tanh, false, []string{"gelu"}, "-"},
		{"wrong divisor stays a function", 20, erf(3), false, []string{"gelu"}, "-"},
		{"erf in a GEMM epilogue", 20, erf(float32(math.Sqrt2)), true, nil, ""},
		{"tanh in a GEMM epilogue", 20, tanh, true, nil, "tanh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mk := func() *ir.Model {
				b := modelgen.New(strings.ReplaceAll(tc.name, " ", "_"), tc.opset)
				x := b.Input("x", ir.Float32, 2, 8)
				if tc.matmul {
					x = b.Op("Add", in(b.Op("MatMul", in(x, b.Weight("w", 8, 8))), b.Weight("bias", 8)))
				}
				b.Output(b.Op("Relu", in(tc.gelu(b, x))))
				m := b.Model()
				ir.InferModel(m, ir.InferOptions{})
				return m
			}
			orig, m := mk(), mk()
			res, err := Run(m, Options{Level: 2, Only: tc.passes, VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			fused := false
			for _, p := range res.Passes {
				for _, r := range p.Rewrites {
					fused = fused || p.Name == "gelu" && strings.Contains(r.Remark, "wolong:Gelu")
				}
			}
			if !fused {
				t.Fatalf("the gelu pass did not fuse the pattern: %+v", res.Passes)
			}
			if _, err := ToONNX(m); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := importer.Export(m, &buf); err != nil {
				t.Fatal(err)
			}
			back, err := importer.Decode(buf.Bytes(), importer.Options{KeepFunctions: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := ir.Verify(back); err != nil {
				t.Fatal(err)
			}
			ir.InferModel(back, ir.InferOptions{})
			// Native Gelu nodes anywhere: the main graph, its subgraphs and
			// the model-local function bodies.
			var gelus []*ir.Node
			geluFuncs := 0
			graphs := []*ir.Graph{back.Graph}
			for _, f := range back.Functions {
				graphs = append(graphs, f.Body)
				if strings.HasPrefix(f.Name, "Gelu") {
					geluFuncs++
				}
			}
			for _, g := range graphs {
				g.Walk(func(sg *ir.Graph) bool {
					for _, n := range sg.Nodes {
						if n.Is(ir.OpGelu) {
							gelus = append(gelus, n)
						}
					}
					return true
				})
			}
			if tc.native == "-" {
				if len(gelus) != 0 || geluFuncs != 1 {
					t.Errorf("%d native Gelu, %d Gelu functions; want 0 and 1", len(gelus), geluFuncs)
				}
			} else {
				if len(gelus) != 1 || geluFuncs != 0 {
					t.Fatalf("%d native Gelu, %d Gelu functions; want 1 and 0", len(gelus), geluFuncs)
				}
				if a := gelus[0].AttrString("approximate", ""); a != tc.native {
					t.Errorf("approximate = %q, want %q", a, tc.native)
				}
				if len(gelus[0].Inputs) != 1 {
					t.Errorf("native Gelu has %d inputs, want 1", len(gelus[0].Inputs))
				}
			}
			if why := compareRuns(t, orig, back, 9, 1e-5, 1e-6); why != "" {
				t.Fatalf("cannot compare: %s", why)
			}
		})
	}
}
