package optimize

import (
	"path/filepath"
	"testing"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// TestToONNXRoundTrip exports optimized generated models as ONNX,
// re-imports them and checks structure and outputs: LayerNorm becomes
// the standard LayerNormalization at opset 17, other groups become
// model-local functions of domain wolong, which read back as the fused
// kernels they were.
func TestToONNXRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name      string
		gen       func() *ir.Model
		layerNorm int // LayerNormalization nodes expected after export
	}{
		{"transformer", func() *ir.Model { return modelgen.Transformer(2, 2, 8, 32, 4, 64) }, 4},
		{"lstm", func() *ir.Model { return modelgen.LSTM(4, 2, 16, 16) }, 0},
		{"inception", func() *ir.Model { return modelgen.Inception(1, 8) }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, m := tc.gen(), tc.gen()
			dims := ir.InferOptions{Dims: map[string]int64{"N": 2}}
			ir.InferModel(orig, dims)
			ir.InferModel(m, ir.InferOptions{})
			if _, err := Run(m, Options{Level: 3, VerifyEach: true, OnChipBytes: 1 << 20}); err != nil {
				t.Fatal(err)
			}
			nf, err := ToONNX(m)
			if err != nil {
				t.Fatal(err)
			}
			if nf == 0 {
				t.Error("no function emitted")
			}
			p := filepath.Join(t.TempDir(), "m.onnx")
			if err := importer.WriteFile(m, p); err != nil {
				t.Fatal(err)
			}
			back, err := importer.Load(p, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer back.Close()
			if err := ir.Verify(back); err != nil {
				t.Fatal(err)
			}
			ir.InferModel(back, dims)
			// As written: every wolong node calls a function of the file.
			file, err := importer.Load(p, importer.Options{KeepFunctions: true})
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			ln, wl := 0, 0
			for _, n := range file.Graph.Nodes {
				switch {
				case n.Op == "LayerNormalization":
					ln++
				case n.Domain == ir.FusedDomain:
					wl++
					if file.Function(n.Domain, n.Op) == nil {
						t.Errorf("node %s calls a missing function %s", n.Name, n.Op)
					}
				}
			}
			if ln != tc.layerNorm || wl == 0 {
				t.Errorf("%d LayerNormalization (want %d), %d wolong calls", ln, tc.layerNorm, wl)
			}
			// As read: each call is the fused kernel it was, and the fused
			// functions are gone.
			fused := 0
			for _, n := range back.Graph.Nodes {
				if n.Domain == ir.FusedDomain {
					if !ir.IsFused(n) || back.Function(n.Domain, n.Op) != nil {
						t.Errorf("node %s (%s) was not read back as a fused kernel", n.Name, n.Op)
					}
					fused++
				}
			}
			if fused != wl || len(back.Functions) != 0 {
				t.Errorf("read back %d fused kernels of %d calls, %d functions left", fused, wl, len(back.Functions))
			}
			if why := compareRuns(t, orig, back, 5, 1e-4, 1e-5); why != "" {
				t.Fatal(why)
			}
		})
	}
}
