package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
)

// TestWriteDOT draws a fused group as a cluster and wires edges through
// the group's boundary to its member nodes.
func TestWriteDOT(t *testing.T) {
	b := modelgen.New("d", 17)
	x := b.Input("x", ir.Float32, 1, 4, 8, 8)
	y := b.Op("Relu", []*ir.Value{b.Op("Conv", []*ir.Value{x, b.Weight("w", 4, 4, 1, 1)})})
	y = b.Op("Sigmoid", []*ir.Value{b.Op("MaxPool", []*ir.Value{y}, modelgen.Ints("kernel_shape", 2, 2))})
	y.Name = "y"
	b.Output(y)
	m := b.Model()
	ir.InferModel(m, ir.InferOptions{})
	if _, err := optimize.Run(m, optimize.Options{Level: 2, VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteDOT(&buf, m, "after fuse"); err != nil {
		t.Fatal(err)
	}
	dot := buf.String()
	for _, want := range []string{
		"digraph \"after fuse\" {",
		"subgraph cluster_0 {\n    label=\"fused_conv_0 (wolong:FusedConvRelu)\";",
		"n0_0 [label=\"Conv_0\\nConv\"];",
		"n0_1 [label=\"Relu_0\\nRelu\"];",
		"in0 -> n0_0;",
		"n0_0 -> n0_1;",
		"n0_1 -> n1_0;",
		"-> out0;",
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
	if n := strings.Count(dot, "subgraph cluster_"); n != 2 {
		t.Errorf("%d clusters, want 2 (conv+relu, maxpool+sigmoid)", n)
	}
}
