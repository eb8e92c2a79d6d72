package calibrate

// This file implements the joint refinement of a CPU fit: every parameter
// at once against what a user sees (end-to-end runs), with the per-kernel
// measurements as a secondary pull.

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// param is one fitted number of a hardware file, read and written through
// get and set, and searched in a transformed space so it cannot leave its
// range (fractions through the logistic function, the rest through exp).
type param struct {
	name string
	get  func(*hw.Hardware) float64
	set  func(*hw.Hardware, float64)
	frac bool
}

func (p param) encode(h *hw.Hardware) float64 {
	if p.frac {
		return logit(p.get(h))
	}
	return math.Log(math.Max(p.get(h), 1e-3))
}

func (p param) decode(h *hw.Hardware, x float64) {
	if p.frac {
		p.set(h, logistic(x))
		return
	}
	p.set(h, math.Exp(x))
}

func fieldParam(name string, field func(*hw.Hardware) *float64) param {
	return param{name: name,
		get: func(h *hw.Hardware) float64 { return *field(h) },
		set: func(h *hw.Hardware, v float64) { *field(h) = v }}
}

// jointParams lists what the refinement moves: the host times, the two
// bandwidths, and the efficiency triples of the given classes and ops.
func jointParams(classes, ops []string, host bool) []param {
	var ps []param
	for _, hp := range hostParams {
		if host {
			ps = append(ps, fieldParam(hp.name, hp.field))
		}
	}
	ps = append(ps,
		fieldParam("memory_bandwidth_gbs", func(h *hw.Hardware) *float64 { return &h.MemoryBandwidthGBs }),
		fieldParam("cache_bandwidth_gbs", func(h *hw.Hardware) *float64 { return &h.CacheBandwidthGBs }),
	)
	if host {
		ps = append(ps, fieldParam("alloc_min_mb", func(h *hw.Hardware) *float64 { return &h.AllocMinMB }))
	}
	triple := func(name string, get func(*hw.Hardware) hw.ClassEfficiency, put func(*hw.Hardware, hw.ClassEfficiency)) {
		for _, part := range []struct {
			suffix string
			frac   bool
			at     func(*hw.ClassEfficiency) *float64
		}{
			{".compute", true, func(c *hw.ClassEfficiency) *float64 { return &c.Compute }},
			{".memory", true, func(c *hw.ClassEfficiency) *float64 { return &c.Memory }},
			{".overhead_us", false, func(c *hw.ClassEfficiency) *float64 { return &c.OverheadUs }},
		} {
			part := part
			ps = append(ps, param{name: name + part.suffix, frac: part.frac,
				get: func(h *hw.Hardware) float64 { c := get(h); return *part.at(&c) },
				set: func(h *hw.Hardware, v float64) { c := get(h); *part.at(&c) = v; put(h, c) }})
		}
	}
	for _, c := range classes {
		c := c
		triple(c, func(h *hw.Hardware) hw.ClassEfficiency { return h.Efficiency.Class(c) },
			func(h *hw.Hardware, e hw.ClassEfficiency) { setClass(&h.Efficiency, c, e) })
	}
	for _, op := range ops {
		op := op
		triple("ops."+op, func(h *hw.Hardware) hw.ClassEfficiency { return h.Efficiency.Ops[op] },
			func(h *hw.Hardware, e hw.ClassEfficiency) { h.Efficiency.Ops[op] = e })
	}
	return ps
}

// refineJoint moves every parameter of h (classes and ops it fitted, host
// times, bandwidths) at once to minimise the runs' relative end-to-end
// errors, with each kernel's log ratio to its measurement as a light pull
// (weight kernelWeight) and a weak pull toward the staged fit. Only
// parameters that change some residual move; each is set from the runs and
// kernels it touches (a sparse Jacobian).
func refineJoint(h *hw.Hardware, obs []Obs, runs []Run, classes, ops []string, prior float64, host bool) {
	const kernelWeight = 0.1
	ps := jointParams(classes, ops, host)
	n := len(ps)
	x0 := make([]float64, n)
	for i, p := range ps {
		x0[i] = p.encode(h)
	}
	nr, no := len(runs), len(obs)
	set := func(x []float64) {
		for i, p := range ps {
			p.decode(h, x[i])
		}
	}
	rw := runWeights(runs)
	runResid := func(i int) float64 {
		m := math.Max(runs[i].Us, 0.5)
		return math.Sqrt(rw[i]) * (predictRun(h, runs[i]) - m) / m / math.Sqrt(float64(nr))
	}
	obsResid := func(cm *cost.Model, i int) float64 {
		p := cm.Time(obs[i].Cost).DeviceS * 1e6
		d := math.Log(math.Max(p, 0.05)) - math.Log(math.Max(obs[i].Us, 0.5))
		return kernelWeight * d / math.Sqrt(float64(no))
	}
	resid := func(x, r []float64) []float64 {
		set(x)
		r = r[:0]
		for i := range runs {
			r = append(r, runResid(i))
		}
		cm := cost.New(h, nil, cost.Options{})
		for i := range obs {
			r = append(r, obsResid(cm, i))
		}
		for j := range x {
			r = append(r, math.Sqrt(prior)*(x[j]-x0[j]))
		}
		return r
	}
	// Which residuals each parameter moves: found once by perturbing it.
	base := resid(x0, nil)
	deps := make([][]int, n)
	xt := append([]float64(nil), x0...)
	var rt []float64
	for j := 0; j < n; j++ {
		xt[j] = x0[j] + 0.1
		rt = resid(xt, rt)
		xt[j] = x0[j]
		for i := 0; i < nr+no; i++ {
			if rt[i] != base[i] {
				deps[j] = append(deps[j], i)
			}
		}
	}
	jac := func(x, r []float64, J *mat.Dense) {
		const step = 1e-5
		J.Zero()
		xt := append([]float64(nil), x...)
		for j := 0; j < n; j++ {
			xt[j] = x[j] + step
			set(xt)
			cm := cost.New(h, nil, cost.Options{})
			for _, i := range deps[j] {
				var v float64
				if i < nr {
					v = runResid(i)
				} else {
					v = obsResid(cm, i-nr)
				}
				J.Set(i, j, (v-r[i])/step)
			}
			J.Set(nr+no+j, j, math.Sqrt(prior))
			xt[j] = x[j]
		}
		set(x)
	}
	x := levmarJ(resid, jac, x0, 100)
	set(x)
	for _, p := range ps {
		p.set(h, round4(p.get(h)))
	}
}
