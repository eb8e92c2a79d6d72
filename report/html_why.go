package report

// This file gathers the explain page's "why" panels: the roofline of the
// optimized model's kernels (each a point at its arithmetic intensity and
// achieved FLOP/s, coloured by op class; at most maxRooflinePoints, the
// rest merged into one point per class), the stacked bars of the causes
// of the baseline and optimized predictions (OptHeader), and the missed
// opportunities (OptHeader.Missed).

import (
	"sort"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// maxRooflinePoints caps the roofline's points: the kernels with the
// most device time are drawn one by one, the others one point per class.
const maxRooflinePoints = 2000

// HTMLRoofline is the roofline chart's data.
type HTMLRoofline struct {
	PeakTFLOPS   float64 `json:"peak_tflops"`   // the peak of the dtype most FLOPs run in
	PeakMath     string  `json:"peak_math"`     // its name
	BandwidthGBs float64 `json:"bandwidth_gbs"` // device memory
	// Points: name, class, intensity (FLOP/B), achieved TFLOP/s, time
	// (ms), kernels merged into the point.
	Points [][]any `json:"points"`
	Merged int     `json:"merged"` // kernels merged into per-class points
}

func newRoofline(sim *simulate.Result) *HTMLRoofline {
	h := sim.Hardware
	r := &HTMLRoofline{BandwidthGBs: h.MemoryBandwidthGBs, Points: [][]any{}}
	flopsBy := map[ir.DType]float64{}
	var idx []int
	for i := range sim.Tasks {
		e := sim.Tasks[i].Est
		if sim.Tasks[i].Stream < 0 || e.DeviceS <= 0 || e.FLOPs <= 0 || e.Bytes <= 0 {
			continue
		}
		flopsBy[e.DType] += e.FLOPs
		idx = append(idx, i)
	}
	dt, best := ir.Float32, -1.0
	for d, f := range flopsBy {
		if f > best || f == best && d < dt {
			dt, best = d, f
		}
	}
	peak, used, _ := h.PeakFLOPS(dt, hw.Tensor, sim.Options.Cost.TF32)
	r.PeakTFLOPS, r.PeakMath = peak/1e12, used
	sort.SliceStable(idx, func(a, b int) bool { return sim.Tasks[idx[a]].Est.DeviceS > sim.Tasks[idx[b]].Est.DeviceS })
	type agg struct{ flops, bytes, s float64 }
	rest := map[string]*agg{}
	var classes []string
	for k, i := range idx {
		t := &sim.Tasks[i]
		e := t.Est
		if k < maxRooflinePoints {
			r.Points = append(r.Points, []any{t.Name(), string(e.Class), round6(e.FLOPs / e.Bytes), round6(e.FLOPs / e.DeviceS / 1e12), round6(e.DeviceS * 1e3), 1})
			continue
		}
		a := rest[string(e.Class)]
		if a == nil {
			a = &agg{}
			rest[string(e.Class)] = a
			classes = append(classes, string(e.Class))
		}
		a.flops, a.bytes, a.s = a.flops+e.FLOPs, a.bytes+e.Bytes, a.s+e.DeviceS
		r.Merged++
	}
	for _, c := range classes {
		a := rest[c]
		r.Points = append(r.Points, []any{"other " + c + " kernels", c, round6(a.flops / a.bytes), round6(a.flops / a.s / 1e12), round6(a.s * 1e3), 0})
	}
	return r
}
