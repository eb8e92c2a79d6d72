package cost

import (
	"math"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestORTFusedEfficiency: on a hardware file with a fitted efficiency for
// Conv (and none for FusedConv), a com.microsoft FusedConv and a wolong
// fused kernel whose dominant member is a Conv take Conv's efficiency: a
// FusedConv costs what the Conv costs; the fused kernel gets slower when
// the fitted Conv efficiency drops. A FusedConv with an efficiency of its
// own keeps it. The cost is keyed by the node's own op either way.
func TestORTFusedEfficiency(t *testing.T) {
	build := func(op, domain string) (*ir.Model, *ir.Node) {
		g := ir.NewGraph("g")
		x := in(g, "x", ir.Float32, 1, 16, 32, 32)
		w := in(g, "w", ir.Float32, 16, 16, 3, 3)
		n := g.AddNode(op, domain, "c", []*ir.Value{x, w}, []string{"y"}, iattrs("pads", 1, 1, 1, 1))
		m := model(t, g, 17)
		m.Opsets = append(m.Opsets, ir.OpsetID{Domain: "com.microsoft", Version: 1})
		ir.InferModel(m, ir.InferOptions{})
		return m, n
	}
	slow := func(ops map[string]hw.ClassEfficiency) *hw.Hardware {
		h := preset(t, "cpu-1t")
		h.Efficiency.Ops = ops
		return h
	}
	convEff := hw.ClassEfficiency{Compute: 0.1, Memory: 0.1, OverheadUs: 5}
	h := slow(map[string]hw.ClassEfficiency{"Conv": convEff})
	cm, conv := build("Conv", "")
	fm, fused := build("FusedConv", "com.microsoft")
	ce, fe := New(h, cm, Options{}).Node(conv), New(h, fm, Options{}).Node(fused)
	// the cost keeps its own op key (a fit sees FusedConv as itself); the
	// time is the Conv kernel's
	if math.Abs(ce.DeviceS-fe.DeviceS) > 1e-12 || ce.Op != "Conv" || fe.Op != "com.microsoft:FusedConv" {
		t.Errorf("FusedConv %g s (op %s), Conv %g s (%s): want the same kernel under its own key", fe.DeviceS, fe.Op, ce.DeviceS, ce.Op)
	}
	own := slow(map[string]hw.ClassEfficiency{"Conv": convEff, "com.microsoft:FusedConv": {Compute: 0.9, Memory: 0.9}})
	if e := New(own, fm, Options{}).Node(fused); e.Op != "com.microsoft:FusedConv" || e.DeviceS >= fe.DeviceS {
		t.Errorf("FusedConv with its own efficiency: %s, %g s (Conv's: %g s)", e.Op, e.DeviceS, fe.DeviceS)
	}
	// A wolong fused Conv+Relu kernel on the default and the slow file.
	body := ir.NewGraph("body")
	bx, bw := in(body, "x", ir.Float32, 1, 16, 32, 32), in(body, "w", ir.Float32, 16, 16, 3, 3)
	bc := one(body, "Conv", "conv", []*ir.Value{bx, bw}, iattrs("pads", 1, 1, 1, 1))
	br := one(body, "Relu", "relu", []*ir.Value{bc.Outputs[0]})
	bm := model(t, body, 17)
	g := ir.NewGraph("main")
	k := g.AddNode("FusedConvRelu", "wolong", "f", []*ir.Value{in(g, "x", ir.Float32, 1, 16, 32, 32), in(g, "w", ir.Float32, 16, 16, 3, 3)}, []string{"y"},
		&ir.Attr{Name: "body", Type: ir.AttrGraph, G: body})
	body.Inputs, body.Outputs = []*ir.Value{bx, bw}, []*ir.Value{br.Outputs[0]}
	k.Outputs[0].Type = br.Outputs[0].Type
	km := &ir.Model{Opsets: bm.Opsets, Graph: g}
	base, slowed := New(preset(t, "cpu-1t"), km, Options{}).Node(k), New(h, km, Options{}).Node(k)
	if slowed.DeviceS <= base.DeviceS {
		t.Errorf("fused Conv+Relu: %g s with a slow fitted Conv, %g s without: want the Conv's efficiency", slowed.DeviceS, base.DeviceS)
	}
}
