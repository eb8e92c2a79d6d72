package cost

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestStatsNormPasses: a normalization whose slice does not fit in the
// last-level cache reads its input again for the statistics (InstanceNorm:
// mean and variance, two more passes; LayerNorm: one); slices that fit
// cost their inputs and outputs only.
func TestStatsNormPasses(t *testing.T) {
	cases := []struct {
		name   string
		op     string
		dims   []int64
		passes float64 // extra input reads
	}{
		{"instance norm, 2.56 MB slices", "InstanceNormalization", []int64{1, 4, 800, 800}, 2},
		{"instance norm, 16 KB slices", "InstanceNormalization", []int64{1, 64, 64, 64}, 0},
		{"layer norm, 4 KB rows", "LayerNormalization", []int64{8, 128, 1024}, 0},
		{"layer norm, 4 MB rows", "LayerNormalization", []int64{2, 1 << 20}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := ir.NewGraph("norm")
			x := in(g, "x", ir.Float32, c.dims...)
			var ins []*ir.Value
			if c.op == "InstanceNormalization" {
				ins = []*ir.Value{x, in(g, "s", ir.Float32, c.dims[1]), in(g, "b", ir.Float32, c.dims[1])}
			} else {
				last := c.dims[len(c.dims)-1]
				ins = []*ir.Value{x, in(g, "s", ir.Float32, last), in(g, "b", ir.Float32, last)}
			}
			n := one(g, c.op, "norm", ins)
			m := model(t, g, 17)
			h := preset(t, "cpu-1t") // 1 MB last-level cache
			e := New(h, m, Options{}).Node(n)
			if e.Unknown {
				t.Fatal(e.Why)
			}
			io := 0.0
			for _, v := range append(append([]*ir.Value{}, n.Inputs...), n.Outputs...) {
				b, _ := New(h, m, Options{}).valueBytes(v)
				io += b
			}
			xb := 4 * prod(c.dims)
			if want := io + c.passes*xb; e.Bytes != want {
				t.Errorf("bytes %g, want %g (inputs and outputs %g + %g extra passes of %g)", e.Bytes, want, io, c.passes, xb)
			}
		})
	}
}
