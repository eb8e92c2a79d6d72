package optimize

import (
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// findFused returns the first node of key in g or in a fused body of g
// (a pattern kernel may sit in a GEMM group's epilogue).
func findFused(g *ir.Graph, key ir.OpKey) *ir.Node {
	for _, n := range g.Nodes {
		if n.Is(key) {
			return n
		}
		if body := ir.FusedBody(n); body != nil {
			if m := findFused(body, key); m != nil {
				return m
			}
		}
	}
	return nil
}

// setAttr replaces (or adds) n's attribute a.
func setAttr(n *ir.Node, a *ir.Attr) {
	for i, b := range n.Attrs {
		if b.Name == a.Name {
			n.Attrs[i] = a
			return
		}
	}
	n.Attrs = append(n.Attrs, a)
}

// TestFusedOpCarriesItsMatch checks, for each pattern kernel the
// optimizer creates, that its matcher records what it matched on the
// fused node, and that the lowering to ONNX Runtime's operator reads that
// record rather than the body: a recorded value changed on the node is the
// value the operator gets, and a node whose record is gone is not lowered
// (no lowering re-recognizes the body).
func TestFusedOpCarriesItsMatch(t *testing.T) {
	tests := []struct {
		pattern string // a model of modelgen.ORTPatterns
		key     ir.OpKey
		match   map[string]any // attribute -> recorded value (float32, int64, string)
		// The lowering: the attribute changed to edit, and the operator
		// and attribute value it must then write ("" op: no lowering).
		edit   *ir.Attr
		op     string
		opAttr string
		opWant any
	}{
		{"layernorm opset 13", ir.FusedLayerNorm, map[string]any{ir.FusedEpsilon: float32(1e-5), ir.FusedAxis: int64(2)},
			&ir.Attr{Name: ir.FusedEpsilon, Type: ir.AttrFloat, F: 0.25}, "LayerNormalization", "epsilon", float32(0.25)},
		{"rmsnorm", ir.FusedRMSNorm, map[string]any{ir.FusedEpsilon: float32(1e-6), ir.FusedAxis: int64(2)},
			&ir.Attr{Name: ir.FusedEpsilon, Type: ir.AttrFloat, F: 0.25}, "SimplifiedLayerNormalization", "epsilon", float32(0.25)},
		{"matmul bias gelu erf opset 13", ir.FusedGelu, map[string]any{ir.FusedApproximate: "none"},
			&ir.Attr{Name: ir.FusedApproximate, Type: ir.AttrString, S: []byte("tanh")}, "com.microsoft:FastGelu", "", nil},
		{"matmul bias gelu tanh opset 13", ir.FusedGelu, map[string]any{ir.FusedApproximate: "tanh"},
			&ir.Attr{Name: ir.FusedApproximate, Type: ir.AttrString, S: []byte("none")}, "com.microsoft:Gelu", "", nil},
		{"silu", ir.FusedSiLU, map[string]any{ir.FusedAlpha: float32(1)},
			&ir.Attr{Name: ir.FusedAlpha, Type: ir.AttrFloat, F: 1.702}, "", "", nil},
		{"attention", ir.FusedAttention, map[string]any{ir.FusedAlpha: float32(0.35)}, nil, "", "", nil},
	}
	models := map[string]*ir.Model{}
	for _, p := range modelgen.ORTPatterns() {
		models[p.Name] = p.Model
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			m := models[tc.pattern]
			if m == nil {
				t.Fatalf("no pattern %q in modelgen.ORTPatterns", tc.pattern)
			}
			ir.InferModel(m, ir.InferOptions{})
			if _, err := Run(m, Options{Level: MaxLevel, VerifyEach: true}); err != nil {
				t.Fatal(err)
			}
			n := findFused(m.Graph, tc.key)
			if n == nil {
				t.Fatalf("no %s after -O%d (ops %s)", tc.key, MaxLevel, opHistogram(m))
			}
			for name, want := range tc.match {
				if got := attrValue(n.Attr(name)); got != want {
					t.Errorf("%s records %s = %v, want %v", tc.key, name, got, want)
				}
			}
			if tc.edit == nil {
				return
			}
			setAttr(n, tc.edit)
			if got := ortPattern(m, n); got != tc.op {
				t.Fatalf("with %s = %v the lowering wrote %q, want %q", tc.edit.Name, attrValue(tc.edit), got, tc.op)
			}
			if tc.opAttr != "" {
				if got := attrValue(n.Attr(tc.opAttr)); got != tc.opWant {
					t.Errorf("%s has %s = %v, want the recorded %v", tc.op, tc.opAttr, got, tc.opWant)
				}
			}
		})
	}
}

// TestLoweringNeedsTheRecord checks that a pattern kernel whose match
// record is gone is left as it is: the lowering does not fall back to
// recognizing its body.
func TestLoweringNeedsTheRecord(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		key     ir.OpKey
		drop    string
	}{
		{"layernorm opset 13", ir.FusedLayerNorm, ir.FusedEpsilon},
		{"rmsnorm", ir.FusedRMSNorm, ir.FusedAxis},
		{"matmul bias gelu erf opset 13", ir.FusedGelu, ir.FusedApproximate},
		{"silu", ir.FusedSiLU, ir.FusedAlpha},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			var m *ir.Model
			for _, p := range modelgen.ORTPatterns() {
				if p.Name == tc.pattern {
					m = p.Model
				}
			}
			ir.InferModel(m, ir.InferOptions{})
			if _, err := Run(m, Options{Level: MaxLevel}); err != nil {
				t.Fatal(err)
			}
			n := findFused(m.Graph, tc.key)
			if n == nil {
				t.Fatalf("no %s after -O%d", tc.key, MaxLevel)
			}
			var kept []*ir.Attr
			for _, a := range n.Attrs {
				if a.Name != tc.drop {
					kept = append(kept, a)
				}
			}
			n.Attrs = kept
			if got := ortPattern(m, n); got != "" {
				t.Errorf("without its %s record the %s was lowered to %s", tc.drop, tc.key, got)
			}
			if !n.Is(tc.key) {
				t.Errorf("the node became %s", n.QualifiedOp())
			}
		})
	}
}

// attrValue is a for-comparison form of an attribute's value (nil when a
// is nil).
func attrValue(a *ir.Attr) any {
	if a == nil {
		return nil
	}
	switch a.Type {
	case ir.AttrFloat:
		return a.F
	case ir.AttrInt:
		return a.I
	case ir.AttrString:
		return string(a.S)
	}
	return a.Type
}
