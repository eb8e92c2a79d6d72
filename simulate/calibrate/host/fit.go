package host

// This file fits a hardware file to a measured suite folder.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/calibrate"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// FitOptions steer Fit.
type FitOptions struct {
	Base    *hw.Hardware // preset to start from (a CPU preset)
	Threads int          // the thread count to fit (default 1)
	Name    string       // name of the fitted hardware
	// HoldEvery: every HoldEvery-th model of the suite (by position) is
	// held back from the fit and only predicted (default 4; 0 keeps the
	// default, a negative value holds none back).
	HoldEvery int
	// FixHost keeps the base's host times (per node, per run, per MB):
	// for a suite part without the models that set them.
	FixHost bool
	// GroupWeight weighs the end-to-end runs of a suite group in the fit
	// (default 1; the complete models, DefaultGroupWeight).
	GroupWeight map[string]float64
	// JointPrior is the pull of the joint refinement toward the staged
	// fit (0: calibrate's default).
	JointPrior float64
	// Joint fits with the staged per-kernel fit and the joint refinement
	// (calibrate.Fit) instead of the direct fit to the unprofiled runs
	// (calibrate.FitDirect).
	Joint bool
	// MinKernelUs: profiled kernels shorter than this (after the
	// profiler's own cost is taken off) are left out of the kernel fit:
	// the profiler's cost, and how much it varies from run to run, is of
	// their size; their fixed costs come from the unprofiled end-to-end
	// runs instead (0: DefaultMinKernelUs; negative: keep all).
	MinKernelUs float64
	// Prior and HostPrior are the direct fit's pulls toward the base
	// (calibrate.DirectOptions; 0: its defaults).
	Prior, HostPrior float64
}

// DefaultMinKernelUs is FitOptions.MinKernelUs's default.
const DefaultMinKernelUs = 20

// DefaultGroupWeight is how much more a complete model's end-to-end run
// counts in the fit than a one-op chain's: a real model runs many
// different kernels on data that is not all in cache, as the chains'
// repeated op does not.
var DefaultGroupWeight = map[string]float64{"model": 4}

// ModelResult is one suite model's end-to-end time, measured and
// predicted by the fitted file.
type ModelResult struct {
	Name, Group             string
	MeasuredUs, PredictedUs float64
	HeldOut                 bool
	CIPct                   float64 // how well MeasuredUs is known (95% interval, %; 0: not stated)
}

// ErrorPct is the prediction's signed error, % of measured.
func (r ModelResult) ErrorPct() float64 { return 100 * (r.PredictedUs - r.MeasuredUs) / r.MeasuredUs }

// FitResult is a host calibration.
type FitResult struct {
	HW     *hw.Hardware
	Calib  *calibrate.Result
	Models []ModelResult
	// End-to-end MAPE on the models fitted on and on those held back.
	TrainMAPE, HeldMAPE float64
	// ProfilerNodeUs is the ORT profiler's own cost per node (profiled
	// minus unprofiled run, per node event), median over the suite;
	// KernelInflationUs is the part of it inside the profiler's kernel
	// timings (the median profiled duration of kernels that do almost no
	// work), taken off every profiled kernel before the fit.
	ProfilerNodeUs, KernelInflationUs float64
	// NoisePct is how much the machine's speed varied while measuring: the
	// median over the suite of how much a model's two passes differ (%);
	// NoisyModels counts the models whose passes differ by more than 10%.
	NoisePct    float64
	NoisyModels int
	// Unsettled are the models whose target was not known to within
	// TargetCIPct after the extra passes (name and interval, the widest
	// first): the machine was too noisy for them. They count in the fit
	// by their noise (calibrate.DirectRun.NoisePct).
	Unsettled []Unsettled
	// CacheSharedPct is the share of the measured passes in which the
	// harness's cache probe found the core's L2 shared (another tenant on
	// the core's other hardware thread: ortbench.Measure.CacheProbeKB), %;
	// CacheUnquiet lists the models none of whose pooled passes had the
	// cache to themselves. Both zero when the harness did not probe.
	CacheSharedPct float64
	CacheUnquiet   []string
	// MeasuredAt is when the last of the runs was measured (the latency
	// records' date, RFC 3339; "" when they carry none).
	MeasuredAt string
}

// Unsettled is a model measured less well than TargetCIPct.
type Unsettled struct {
	Name  string
	CIPct float64
}

// unsettled lists the runs measured less well than TargetCIPct, the
// widest interval first.
func unsettled(runs []*suiteRun) []Unsettled {
	var u []Unsettled
	for _, r := range runs {
		if r.lat.CIPct > TargetCIPct {
			u = append(u, Unsettled{r.mm.Name, r.lat.CIPct})
		}
	}
	sort.Slice(u, func(i, j int) bool { return u[i].CIPct > u[j].CIPct })
	return u
}

// unquietNoisePct is how well a target is known that was measured only
// while the core's L2 was shared (the cache probe found no quiet pass
// among those pooled), 95% half-width, %: a model whose weights fit in
// the cache alone runs up to 2x slower so, a compute-bound one ~5%; the
// fit weighs such a run as a tenth of a settled one. Only while they are
// the fewer: a machine whose cache was shared for most of the suite is
// fitted as it ran (its warning says so), not pulled toward the preset.
const unquietNoisePct = 10

// runNoises is how well each run's target is known for the fit: its
// interval, or unquietNoisePct for a run the probe saw no quiet pass of
// among those pooled while such runs are at most half of the probed ones.
func runNoises(runs []*suiteRun) []float64 {
	probed, unquiet := 0, 0
	for _, r := range runs {
		if r.lat.CacheProbeKB > 0 {
			probed++
			if r.lat.FastQuietPasses == 0 {
				unquiet++
			}
		}
	}
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = r.lat.CIPct
		if r.lat.CacheProbeKB > 0 && r.lat.FastQuietPasses == 0 && 2*unquiet <= probed {
			out[i] = math.Max(out[i], unquietNoisePct)
		}
	}
	return out
}

// cacheShare sets res's cache-probe figures from the runs' records.
func cacheShare(res *FitResult, runs []*suiteRun) {
	passes, shared := 0, 0
	for _, r := range runs {
		l := r.lat
		if l.CacheProbeKB <= 0 {
			continue
		}
		passes += len(l.PassCacheProbe)
		shared += len(l.PassCacheProbe) - l.QuietPasses
		if l.FastQuietPasses == 0 {
			res.CacheUnquiet = append(res.CacheUnquiet, r.mm.Name)
		}
	}
	if passes > 0 {
		res.CacheSharedPct = 100 * float64(shared) / float64(passes)
	}
}

// NoisyPct is the median pass-to-pass difference above which the machine
// counts as busy while it was measured.
const NoisyPct = 5

// passNoise sets res's noise figures from the runs' pass medians: how
// much a model's passes differ beyond the shift every model shares (the
// last pass runs with every session open and its profiled twin after it,
// a few percent slower on every model: that is not noise).
func passNoise(res *FitResult, runs []*suiteRun) {
	var logs []float64
	for _, r := range runs {
		p := r.lat.PassMediansUs
		if len(p) >= 2 && p[0] > 0 && p[len(p)-1] > 0 {
			logs = append(logs, math.Log(p[len(p)-1]/p[0]))
		}
	}
	shift := calibrate.Median(logs)
	var d []float64
	for _, l := range logs {
		x := 100 * (math.Exp(math.Abs(l-shift)) - 1)
		d = append(d, x)
		if x > 10 {
			res.NoisyModels++
		}
	}
	res.NoisePct = calibrate.Median(d)
}

// suiteRun is one measured suite model.
type suiteRun struct {
	mm      ManifestModel
	model   *ir.Model
	lat     *calibrate.Latency
	prof    *calibrate.Profile
	pairs   []calibrate.Pair
	heldOut bool
}

// Fit fits opt.Base to the suite measured in dir: kernel efficiencies to
// the profiled kernel times (corrected for the profiler's own cost) and
// host times to the unprofiled end-to-end runs, on every model but the
// held-back ones; then predicts every model with the result.
func Fit(dir string, man *Manifest, opt FitOptions) (*FitResult, error) {
	if opt.Base == nil || opt.Base.Kind != "cpu" {
		return nil, fmt.Errorf("the base must be a CPU preset")
	}
	if opt.Threads <= 0 {
		opt.Threads = 1
	}
	if opt.HoldEvery == 0 {
		opt.HoldEvery = 4
	}
	if opt.MinKernelUs == 0 {
		opt.MinKernelUs = DefaultMinKernelUs
	}
	if opt.GroupWeight == nil {
		opt.GroupWeight = DefaultGroupWeight
	}
	runs, err := loadRuns(dir, man, opt)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, r := range runs {
			r.model.Close()
		}
	}()
	// A CPU runtime's fixed time per kernel is fitted per class (and op):
	// start from none.
	base := opt.Base.Clone()
	base.KernelOverheadUs = 0
	// a core streams even a small tensor at full speed (no GPU-style fill)
	base.Efficiency.MemBytesPerBlock, base.Efficiency.MemBlocksPerSM = 1, 1
	if base.AllocMinMB == 0 {
		base.AllocMinMB = 1
	}
	c := hw.HostCPU()
	if c.L2KB > 0 {
		base.L2MB = float64(c.L2KB) * 1024 / 1e6
	}
	// the weights past the L3 stream from DRAM (hw l3_mb): the suite's
	// one-row GEMM chains of 101 and 134 MB set dram_bandwidth_gbs
	if c.L3KB > 0 && c.L3KB*1024 > c.L2KB*1024*2 {
		base.L3MB = float64(c.L3KB) * 1024 / 1e6
	}
	// the GEMM kernel's column block is the vector width (a fact of the
	// CPU, not fitted)
	base.GEMMColLanes = hw.GEMMLanes(c.Flags)
	// warm runs keep a model's weights in the cache only when they all
	// fit (the suite's one-row GEMMs: 1 MB of weights in 2 MB of L2 run
	// at cache speed, 4 MB over four kernels of 1 MB do not)
	base.CacheWorkingSet = CacheWorkingSet
	opt.Base = base
	res := &FitResult{}
	for _, r := range runs {
		// RFC 3339 dates in one zone order as strings
		if d := r.lat.Date; d > res.MeasuredAt {
			res.MeasuredAt = d
		}
	}
	res.ProfilerNodeUs, res.KernelInflationUs = profilerCost(runs)
	passNoise(res, runs)
	res.Unsettled = unsettled(runs)
	cacheShare(res, runs)
	copt := cost.Options{NoFold: true}
	if !opt.Joint {
		return fitDirect(res, runs, opt, copt)
	}
	var obs []calibrate.Obs
	var targets []calibrate.Run
	for _, r := range runs {
		if r.heldOut {
			continue
		}
		for _, p := range r.pairs {
			s := *p.Sample
			s.Us = math.Max(s.Us-res.KernelInflationUs, 0.05*s.Us)
			if s.Us < opt.MinKernelUs {
				continue
			}
			p.Sample = &s
			obs = append(obs, calibrate.Observations(opt.Base, r.model, []calibrate.Pair{p}, copt, r.lat.TargetUs())...)
		}
		w := 1.0
		if gw, ok := opt.GroupWeight[r.mm.Group]; ok {
			w = gw
		}
		targets = append(targets, calibrate.Run{Label: r.mm.Name, Model: r.model, Us: r.lat.TargetUs(), Opt: copt, Weight: w})
	}
	cr, err := calibrate.Fit(opt.Base, obs, targets, calibrate.Options{Name: opt.Name, FixHost: opt.FixHost, JointPrior: opt.JointPrior})
	if err != nil {
		return nil, err
	}
	res.HW, res.Calib = cr.HW, cr
	var train, held []float64
	for _, r := range runs {
		sr, err := simulate.Run(r.model, cr.HW, simulate.Options{Streams: 1, Cost: copt})
		if err != nil {
			return nil, fmt.Errorf("predicting %s: %v", r.mm.Name, err)
		}
		mr := ModelResult{Name: r.mm.Name, Group: r.mm.Group, MeasuredUs: r.lat.TargetUs(), PredictedUs: sr.TotalS * 1e6, HeldOut: r.heldOut, CIPct: r.lat.CIPct}
		res.Models = append(res.Models, mr)
		e := math.Abs(mr.ErrorPct())
		if r.heldOut {
			held = append(held, e)
		} else {
			train = append(train, e)
		}
	}
	res.TrainMAPE, res.HeldMAPE = calibrate.Mean(train), calibrate.Mean(held)
	return res, nil
}

func loadRuns(dir string, man *Manifest, opt FitOptions) ([]*suiteRun, error) {
	var runs []*suiteRun
	i := 0
	for _, mm := range man.Models {
		if opt.Threads > 1 && !mm.TwoThreads {
			continue
		}
		latFile := filepath.Join(dir, LatencyFile(mm.Name, opt.Threads))
		data, err := os.ReadFile(latFile)
		if err != nil {
			return nil, fmt.Errorf("%v", err)
		}
		lat, err := calibrate.ParseLatency(latFile, data)
		if err != nil {
			return nil, err
		}
		// a model measured without a profile (a chain of one op) has no
		// split to give
		var prof *calibrate.Profile
		profFile := filepath.Join(dir, ProfileFile(mm.Name, opt.Threads))
		if data, err := os.ReadFile(profFile); err == nil {
			if prof, err = calibrate.ParseORT(profFile, data); err != nil {
				return nil, err
			}
		}
		m, err := importer.Load(filepath.Join(dir, mm.File), importer.Options{})
		if err != nil {
			return nil, err
		}
		ir.InferModel(m, ir.InferOptions{})
		// a profile the runtime ran differently (nodes it rewrote even
		// with optimizations off) gives no kernel split: the run still
		// counts end to end
		var pairs []calibrate.Pair
		if prof != nil {
			pairs, _ = calibrate.Match(m, prof)
		}
		runs = append(runs, &suiteRun{mm: mm, model: m, lat: lat, prof: prof, pairs: pairs,
			heldOut: opt.HoldEvery > 0 && i%opt.HoldEvery == opt.HoldEvery-1})
		i++
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s holds no measurements at %d thread(s)", dir, opt.Threads)
	}
	return runs, nil
}

// profilerCost estimates the ORT profiler's own cost per node and the part
// of it inside kernel timings, from the suite's chains of tiny kernels and
// views (whose kernels do almost no work).
func profilerCost(runs []*suiteRun) (perNode, inflation float64) {
	var per, tiny []float64
	for _, r := range runs {
		if c := r.lat.ProfilerNodeUs(); c > 0 {
			per = append(per, c)
		}
		if r.prof == nil || r.mm.Group != "host" && r.mm.Group != "view" {
			continue
		}
		for _, s := range r.prof.Samples {
			if k := ir.Key(s.Domain, s.Op); k != ir.OpRelu && k != ir.OpAdd {
				tiny = append(tiny, s.Us)
			} else if len(s.Inputs) > 0 && product(s.Inputs[0].Dims) <= 16 {
				tiny = append(tiny, s.Us)
			}
		}
	}
	return calibrate.Median(per), calibrate.Median(tiny)
}

func product(d []int64) int64 {
	p := int64(1)
	for _, x := range d {
		p *= x
	}
	return p
}

// fitDirect fits with calibrate.FitDirect: the unprofiled runs set every
// parameter; each run's profile only shares its kernel time among its
// kernels.
func fitDirect(res *FitResult, runs []*suiteRun, opt FitOptions, copt cost.Options) (*FitResult, error) {
	var drs []calibrate.DirectRun
	noise := runNoises(runs)
	for i, r := range runs {
		split := map[*ir.Node]float64{}
		for _, p := range r.pairs {
			split[p.Node] = math.Max(p.Sample.Us-res.KernelInflationUs, 0.05*p.Sample.Us)
		}
		drs = append(drs, calibrate.DirectRun{Label: r.mm.Name, Model: r.model, Us: r.lat.TargetUs(), Opt: copt, Split: split, HeldOut: r.heldOut, NoisePct: noise[i]})
	}
	dr, err := calibrate.FitDirect(opt.Base, drs, calibrate.DirectOptions{Name: opt.Name, FixHost: opt.FixHost, Prior: opt.Prior, HostPrior: opt.HostPrior})
	if err != nil {
		return nil, err
	}
	res.HW = dr.HW
	res.Calib = &calibrate.Result{HW: dr.HW, Classes: dr.Classes, Ops: dr.Ops, Host: dr.Host, Runs: len(drs), Joint: false}
	var train, held []float64
	for i, r := range runs {
		mr := ModelResult{Name: r.mm.Name, Group: r.mm.Group, MeasuredUs: r.lat.TargetUs(), PredictedUs: calibrate.PredictRun(dr.HW, drs[i]), HeldOut: r.heldOut, CIPct: r.lat.CIPct}
		res.Models = append(res.Models, mr)
		if r.heldOut {
			held = append(held, math.Abs(mr.ErrorPct()))
		} else {
			train = append(train, math.Abs(mr.ErrorPct()))
		}
	}
	res.TrainMAPE, res.HeldMAPE = calibrate.Mean(train), calibrate.Mean(held)
	return res, nil
}
