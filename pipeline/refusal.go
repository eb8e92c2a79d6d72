package pipeline

import (
	"math"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate/cost"
)

// GainMs prices what a refused rewrite would have saved on the
// predictor's hardware: the saved traffic moved by the saved kernels at
// the elementwise class's bandwidth, plus their fixed device time and
// their host launch and dispatch (an estimate: the fused kernel's own
// time is not simulated).
func (p *predictor) GainMs(s optimize.Saving) float64 {
	if s.Kernels <= 0 && s.Bytes <= 0 {
		return 0
	}
	k := s.Kernels
	if k <= 0 {
		k = 1
	}
	e := cost.New(p.h, nil, p.opt.Cost).Time(cost.Cost{Class: cost.Elementwise, Bytes: s.Bytes, Kernels: k, DType: ir.Float32})
	// Time counts one node's dispatch; traffic only saves no launch
	t := e.DeviceS + e.HostS + float64(k-1)*p.h.DispatchUs*1e-6
	if s.Kernels <= 0 {
		t = e.MemoryS
	}
	return math.Max(0, t) * 1e3
}
