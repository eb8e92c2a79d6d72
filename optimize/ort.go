package optimize

// This file implements the ort pass (--target ort): fused groups become
// the operators ONNX Runtime 1.30's CPU execution provider has for them.
//
// ORT runs a model-local function by inlining it into its members, so a
// wolong fused group only pays off in ORT when ORT has a kernel for it.
// The pass therefore rewrites each fused node into what ORT will run:
//
//   - a pattern kernel ORT has an operator for becomes it, from what its
//     matcher recorded: LayerNorm -> LayerNormalization (ORT registers it
//     in the default domain at every opset), RMSNorm -> RMSNormalization
//     (opset 23+) or SimplifiedLayerNormalization, GELU -> Gelu (opset
//     20+) or com.microsoft Gelu / FastGelu, SiLU -> com.microsoft
//     QuickGelu (alpha 1);
//   - any other group is inlined into its members, and within them the
//     chains ORT fuses become one operator (ortchain.go): Conv [+ bias]
//     [+ residual] + activation -> FusedConv, MatMul/Gemm [+ bias] [+
//     activation] -> Gemm / FusedGemm, MatMul * scalar -> FusedMatMul,
//     bias + GELU -> BiasGelu / FastGelu, Add + LayerNormalization ->
//     SkipLayerNormalization; the other members stay single nodes, as ORT
//     runs them.
//
// Each operator was checked against ORT 1.30 by loading and running it
// (TestORTTarget); com.microsoft BiasAdd has no CPU kernel, LayerNormal-
// ization and SimplifiedLayerNormalization none in com.microsoft.

import (
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// msDomain is ONNX Runtime's contrib operator domain.
const msDomain = "com.microsoft"

// Keys of the ONNX Runtime operators the ort target writes or reads.
var (
	msFastGelu          = ir.OpKey{Domain: msDomain, Name: "FastGelu"}
	msGelu              = ir.OpKey{Domain: msDomain, Name: "Gelu"}
	simplifiedLayerNorm = ir.OpKey{Name: "SimplifiedLayerNormalization"} // ORT's, in the default domain
)

// ortLower is the ort pass.
func ortLower(c *Context) ([]Rewrite, error) {
	g := c.Graph()
	var rw []Rewrite
	var norms []*ir.Node
	for _, n := range append([]*ir.Node(nil), g.Nodes...) {
		if !ir.IsFused(n) {
			continue
		}
		name, kind := n.Name, n.Op
		if op := ortPattern(c.Model, n); op != "" {
			rw = append(rw, Rewrite{Before: []string{name}, After: []string{name}, Remark: fmt.Sprintf("wolong:%s -> %s, one ONNX Runtime kernel", kind, op)})
			if op == "LayerNormalization" {
				norms = append(norms, n)
			}
			continue
		}
		nodes := ortInline(c, g, n)
		for _, m := range nodes {
			if m.Is(ir.OpLayerNormalization) {
				norms = append(norms, m)
			}
		}
		var ops, after []string
		for _, m := range nodes {
			after = append(after, m.Name)
			if m.Domain == msDomain || m.IsAny(ir.OpLayerNormalization, simplifiedLayerNorm, ir.OpGemm) {
				ops = append(ops, m.QualifiedOp())
			}
		}
		remark := fmt.Sprintf("wolong:%s inlined: ONNX Runtime has no kernel for the group, it runs its %d node(s)", kind, len(nodes))
		if len(ops) > 0 {
			remark = fmt.Sprintf("wolong:%s -> %s: %d ONNX Runtime kernel(s)", kind, strings.Join(ops, " + "), len(nodes))
		}
		rw = append(rw, Rewrite{Before: []string{name}, After: after, Remark: remark})
	}
	// Residual sums feeding a LayerNorm, once every group is inlined.
	for _, ln := range norms {
		if add := fuseSkipNorm(g, ln); add != nil {
			rw = append(rw, Rewrite{Before: []string{add.Name, ln.Name}, After: []string{ln.Name}, Sep: "+",
				Remark: "Add + LayerNormalization -> com.microsoft:SkipLayerNormalization, one ONNX Runtime kernel"})
		}
	}
	sweepNodes(g) // the nodes inlining and the chains removed
	return rw, nil
}

// ortInline inlines fused node n into g, lowers the pattern kernels among
// its members (inlining, in turn, those ORT has no operator for) and
// rewrites the chains ORT fuses; it returns the nodes that replace n.
func ortInline(c *Context, g *ir.Graph, n *ir.Node) []*ir.Node {
	var members []*ir.Node
	for _, m := range inline(g, n) {
		switch {
		case !ir.IsFused(m):
			members = append(members, m)
		case ortPattern(c.Model, m) != "":
			members = append(members, m)
		default:
			members = append(members, ortInline(c, g, m)...)
		}
	}
	return ortChains(c, g, members)
}

// ortPattern rewrites pattern kernel n in place as the ONNX Runtime
// operator its match is, when its match says enough; it returns the
// operator written, or "".
func ortPattern(m *ir.Model, n *ir.Node) string {
	opset := m.Opset("")
	ok := false
	switch n.Op {
	case ir.FusedLayerNorm.Name:
		ok = toLayerNormalization(n, "")
	case ir.FusedRMSNorm.Name:
		op := "SimplifiedLayerNormalization"
		if opset >= 23 {
			op = "RMSNormalization"
		}
		ok = toNorm(n, op)
	case ir.FusedGelu.Name:
		switch {
		case opset >= 20:
			ok = toGelu(n, "", "Gelu")
		case n.AttrString(ir.FusedApproximate, "") == "tanh":
			ok = toGelu(n, msDomain, "FastGelu")
		default:
			ok = toGelu(n, msDomain, "Gelu")
		}
	case ir.FusedSiLU.Name:
		if x := ir.FusedInput(n, "X"); x != nil && n.AttrFloat(ir.FusedAlpha, 0) == 1 && len(n.Outputs) == 1 && x.Type.DType == ir.Float32 {
			rewire(n, "QuickGelu", msDomain, []*ir.Value{x}, []*ir.Attr{{Name: "alpha", Type: ir.AttrFloat, F: 1}})
			ok = true
		}
	}
	if !ok {
		return ""
	}
	return n.QualifiedOp()
}

// toNorm turns a fused RMSNorm into op(X, Scale) {axis, epsilon} of the
// default domain, as toLayerNormalization does for LayerNorm.
func toNorm(n *ir.Node, op string) bool {
	if ir.FusedInput(n, "Scale") == nil {
		return false
	}
	if !toLayerNormalization(n, "") {
		return false
	}
	n.Op = op
	return true
}
