package optimize

import (
	"fmt"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestBatchSignatureAsFmt: batchSignature writes a MatMul's signature
// without fmt, as fmt's "%s|%p|%s|%v" wrote it.
func TestBatchSignatureAsFmt(t *testing.T) {
	for _, dims := range [][]any{{2, 3, 8}, {4, 8}, {2, 5, 7, 8}} {
		b := modelgen.New("sig", 17)
		x := b.Input("x", ir.Float32, dims...)
		w := b.Weight("w", 8, 8)
		b.Output(b.Op("MatMul", in(x, w)))
		ir.InferModel(b.Model(), ir.InferOptions{})
		n := b.G.Nodes[len(b.G.Nodes)-1]
		got, ok := batchSignature(n)
		if !ok {
			t.Fatalf("%v: no signature", dims)
		}
		ds, _ := staticDims(x)
		if want := fmt.Sprintf("%s|%p|%s|%v", n.Op, w, x.Type.DType, ds[1:]); got != want {
			t.Errorf("%v: got %q, want %q", dims, got, want)
		}
	}
}
