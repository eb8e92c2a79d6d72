package cost

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestWinograd: on hardware with conv_winograd, an fp32 3x3 stride-1
// ungrouped conv takes the time of 2.25x fewer multiplies while its FLOPs
// stay the direct algorithm's; strided, grouped, fp16 (tensor cores) and
// TF32 convs are unchanged.
func TestWinograd(t *testing.T) {
	cases := []struct {
		name   string
		dt     ir.DType
		k      int64
		stride int64
		group  int64
		tf32   bool
		want   bool
	}{
		{"fp32 3x3", ir.Float32, 3, 1, 1, false, true},
		{"fp32 3x3 stride 2", ir.Float32, 3, 2, 1, false, false},
		{"fp32 5x5", ir.Float32, 5, 1, 1, false, false},
		{"fp32 3x3 grouped", ir.Float32, 3, 1, 2, false, false},
		{"fp16 3x3 (tensor cores)", ir.Float16, 3, 1, 1, false, false},
		{"fp32 3x3 on TF32", ir.Float32, 3, 1, 1, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := ir.NewGraph("conv")
			x := in(g, "x", c.dt, 64, 256, 56, 56)
			w := in(g, "w", c.dt, 256, 256/c.group, c.k, c.k)
			p := (c.k - 1) / 2
			n := one(g, "Conv", "conv", []*ir.Value{x, w}, iattr("group", c.group), iattrs("pads", p, p, p, p), iattrs("strides", c.stride, c.stride))
			m := model(t, g, 17)
			h := preset(t, "v100")
			if !h.ConvWinograd {
				t.Fatal("the v100 preset should run fp32 3x3 convs as Winograd")
			}
			wino := New(h, m, Options{TF32: c.tf32}).Node(n)
			off := h.Clone()
			off.ConvWinograd = false
			direct := New(off, m, Options{TF32: c.tf32}).Node(n)
			if wino.FLOPs != direct.FLOPs {
				t.Errorf("FLOPs %g with Winograd, %g direct: want the direct count", wino.FLOPs, direct.FLOPs)
			}
			got := direct.ComputeS / wino.ComputeS
			if c.want && !within(got, winogradGain, 1e-9) {
				t.Errorf("compute time ratio direct/Winograd %.3f, want %.2f", got, winogradGain)
			}
			if !c.want && got != 1 {
				t.Errorf("compute time ratio %.3f, want 1 (no Winograd)", got)
			}
		})
	}
}
