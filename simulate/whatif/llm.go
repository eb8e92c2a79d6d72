package whatif

// This file implements the layout parameters of an LLM run: each parallel
// degree (tp, pp, dp, cp, ep) and the micro-batch size of a training step,
// tp, pp and the batch of serving. A degree does not move by 20%: its row
// holds the totals at the neighbouring valid values (the nearest below and
// above that the planner accepts and that fit in GPU memory; values that
// do not divide the heads, layers, GPUs or global batch, or do not fit,
// are skipped and named). The GPUs stay as given, the data-parallel
// degree taking what the others leave, except for dp itself, which adds
// or removes machines; the global batch stays the run's, so every total
// is the same work.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// degreeDocs are the layout parameters: name, what the row's fields say.
var degreeDocs = map[string]string{
	"tp":          "--tp (dp takes the GPUs left; GPUs and global batch fixed)",
	"pp":          "--pp (dp takes the GPUs left; GPUs and global batch fixed)",
	"cp":          "--cp (dp takes the GPUs left; GPUs and global batch fixed)",
	"ep":          "--ep (over the dp x cp ranks; GPUs and global batch fixed)",
	"dp":          "--dp (machines added or removed; the other degrees and the global batch fixed)",
	"micro_batch": "--micro-batch (global batch fixed: fewer or more micro-batches)",
	"batch":       "--batch (sequences decoded together; halved / doubled)",
}

// DegreeDoc says what changing the layout parameter name keeps (serving's
// tp and pp: the replicas change).
func DegreeDoc(name string, serve bool) string {
	if serve && (name == "tp" || name == "pp") {
		return "--" + name + " (replicas take the GPUs left)"
	}
	return degreeDocs[name]
}

// TrainDegreeNames are the layout parameters of a training step.
func TrainDegreeNames() []string { return []string{"tp", "pp", "dp", "cp", "ep", "micro_batch"} }

// ServeDegreeNames are the layout parameters of serving.
func ServeDegreeNames() []string { return []string{"tp", "pp", "batch"} }

// TrainRun is an LLM training prediction's inputs.
type TrainRun struct {
	T *llm.Transformer
	C *cluster.Cluster
	O llm.LLMOptions
}

// resize returns c with gpus GPUs: whole machines of c's size, or one
// smaller machine (NICs in proportion).
func resize(c *cluster.Cluster, gpus int) (*cluster.Cluster, error) {
	g := c.GPUsPerMachine
	m := gpus / g
	if gpus%g != 0 {
		if gpus > g {
			return nil, fmt.Errorf("%d GPUs is not a whole number of machines of %d", gpus, g)
		}
		m, g = 1, gpus
	}
	if gpus < 1 || gpus > cluster.MaxGPUs {
		return nil, fmt.Errorf("%d GPUs", gpus)
	}
	cc := *c
	cc.Machines, cc.GPUsPerMachine = m, g
	if g != c.GPUsPerMachine {
		cc.NICsPerMachine = max(1, c.NICsPerMachine*g/c.GPUsPerMachine)
	}
	return &cc, nil
}

// WithDegree returns the run with the layout parameter name at v and the
// others as base resolved them (a cheap error when v cannot divide).
func (r TrainRun) WithDegree(base *llm.LLMResult, name string, v int) (TrainRun, error) {
	o := r.O
	o.TP, o.PP, o.DP, o.CP, o.EP, o.MicroBatch, o.GlobalBatch = base.TP, base.PP, base.DP, base.CP, base.EP, base.MicroBatch, base.GlobalBatch
	out := TrainRun{T: r.T, C: r.C, O: o}
	gpus := r.C.GPUs()
	switch name {
	case "tp", "pp", "cp":
		*map[string]*int{"tp": &out.O.TP, "pp": &out.O.PP, "cp": &out.O.CP}[name] = v
		n := out.O.TP * out.O.PP * out.O.CP
		if gpus%n != 0 {
			return out, fmt.Errorf("%s %d: tp x pp x cp = %d does not divide the %d GPUs", name, v, n, gpus)
		}
		out.O.DP = gpus / n
	case "ep":
		out.O.EP = v
	case "dp":
		out.O.DP = v
		c, err := resize(r.C, o.TP*o.PP*o.CP*v)
		if err != nil {
			return out, fmt.Errorf("dp %d: %v", v, err)
		}
		out.C = c
	case "micro_batch":
		out.O.MicroBatch = v
	default:
		return out, fmt.Errorf("%q is not a layout parameter of training (want %s)", name, strings.Join(TrainDegreeNames(), ", "))
	}
	if out.O.GlobalBatch%(out.O.DP*out.O.MicroBatch) != 0 {
		return out, fmt.Errorf("%s %d: the global batch %d is not a multiple of dp %d x micro-batch %d", name, v, out.O.GlobalBatch, out.O.DP, out.O.MicroBatch)
	}
	return out, nil
}

// HostFramework is what host speed also scales in an LLM training run:
// the framework's host time per micro-batch (DeepSpeed's pipeline
// engine), divided by the speed-up f. It returns o unchanged when the
// framework has none.
func HostFramework(o llm.LLMOptions, f float64) llm.LLMOptions {
	if o.Framework != nil && o.Framework.MicroBatchOverheadMs > 0 {
		fw := *o.Framework
		fw.MicroBatchOverheadMs /= f
		o.Framework = &fw
	}
	return o
}

// SweepTrainHardware sweeps the cluster parameters of a training run
// (SweepCluster), host speed also scaling the framework's host time.
func SweepTrainHardware(r TrainRun) ([]Row, error) {
	rows, err := sweepCluster(r.C, func(cc *cluster.Cluster, p ClusterParam, f float64) (Point, error) {
		o := r.O
		if p.Name == "host" {
			o = HostFramework(o, f)
		}
		res, err := llm.SimulateLLM(r.T, cc, o)
		if err != nil {
			return Point{}, err
		}
		return TrainPoint(res), nil
	})
	if err == nil && r.O.Framework != nil && r.O.Framework.MicroBatchOverheadMs > 0 {
		for i := range rows {
			if rows[i].Param == "host" {
				rows[i].Fields += "; the framework's micro_batch_overhead_ms (divided)"
			}
		}
	}
	return rows, err
}

// TrainPoint is a training prediction's total.
func TrainPoint(r *llm.LLMResult) Point { return Point{Ms: r.StepMs} }

// trainValue is the degree's value in base.
func trainValue(base *llm.LLMResult, name string) int {
	return map[string]int{"tp": base.TP, "pp": base.PP, "dp": base.DP, "cp": base.CP, "ep": base.EP, "micro_batch": base.MicroBatch}[name]
}

// TrainDegrees are the layout parameters a training run's what-if sweeps:
// tp, pp, dp and micro_batch always, cp where set (given or above 1), ep
// for a mixture of experts.
func TrainDegrees(t *llm.Transformer, o llm.LLMOptions, base *llm.LLMResult) []string {
	out := []string{"tp", "pp", "dp"}
	if o.CP > 0 || base.CP > 1 {
		out = append(out, "cp")
	}
	if t.Experts > 1 || o.EP > 0 || base.EP > 1 {
		out = append(out, "ep")
	}
	return append(out, "micro_batch")
}

// SweepTrain returns the rows of the layout parameters names, ranked (a
// list of their own: changing the layout is a decision, and dp changes the
// GPUs, where the hardware rows ask what the same machines would do).
func SweepTrain(r TrainRun, base *llm.LLMResult, names []string) []Row {
	var rows []Row
	for _, name := range names {
		v := trainValue(base, name)
		upper := r.C.GPUs()
		switch name {
		case "dp":
			upper = min(base.GlobalBatch/max(1, base.MicroBatch), cluster.MaxGPUs)
		case "micro_batch":
			upper = base.GlobalBatch / max(1, base.DP)
		}
		row := neighbours(name, v, upper, false, func(w int) (Point, string, error) {
			run, err := r.WithDegree(base, name, w)
			if err != nil {
				return Point{}, "", err
			}
			res, err := llm.SimulateLLM(run.T, run.C, run.O)
			if err != nil {
				return Point{}, "", err
			}
			if !res.Memory.Fits && base.Memory.Fits { // a run that does not fit compares with any
				return Point{}, "does not fit", nil
			}
			return TrainPoint(res), "", nil
		}, TrainPoint(base))
		rows = append(rows, row)
	}
	Rank(rows)
	return rows
}

// neighbours finds the nearest valid values of a degree at v below and
// above (up to upper; halving and doubling when halve is set) with at,
// which returns the point, or a reason it was skipped (does not fit), or
// an error (not a valid layout: skipped silently). A side without a
// valid value stays at v with base's total, and the note says so.
func neighbours(name string, v, upper int, halve bool, at func(w int) (Point, string, error), base Point) Row {
	var notes []string
	find := func(next func(int) int, ok func(int) bool, side string) (int, Point) {
		var skipped []string
		defer func() {
			if len(skipped) > 0 {
				notes = append(notes, fmt.Sprintf("%s %s: %s", name, strings.Join(skipped, ", "), "does not fit in GPU memory"))
			}
		}()
		for w := next(v); ok(w); w = next(w) {
			p, skip, err := at(w)
			switch {
			case err != nil:
				continue
			case skip != "":
				skipped = append(skipped, fmt.Sprint(w))
				continue
			}
			return w, p
		}
		notes = append(notes, fmt.Sprintf("no valid %s %s %d", name, side, v))
		return v, base
	}
	down, up := func(w int) int { return w - 1 }, func(w int) int { return w + 1 }
	if halve {
		down, up = func(w int) int { return w / 2 }, func(w int) int { return 2 * w }
	}
	lo, lp := find(down, func(w int) bool { return w >= 1 && w < v }, "below")
	hi, hp := find(up, func(w int) bool { return w > v && w <= upper }, "above")
	// one side missing: the difference with the run itself
	r := newRow(name, degreeDocs[name], float64(v), lp, hp, float64(lo)/float64(v), float64(hi)/float64(v))
	r.Note = strings.Join(notes, "; ")
	return r
}

// HostServe is what host speed also scales in a request-level serving
// run: the runtime's host time per iteration and per sequence
// (iter_host_us, seq_host_us), divided by f. A static batch has none.
func HostServe(o llm.ServeOptions, f float64) llm.ServeOptions {
	if o.Load == nil {
		return o
	}
	l := *o.Load
	rt := l.Runtime
	if rt == nil {
		rt, _ = llm.ServeRuntimePreset("")
	}
	if rt == nil {
		return o
	}
	c := *rt
	c.IterHostUs /= f
	c.SeqHostUs /= f
	l.Runtime = &c
	o.Load = &l
	return o
}

// SweepServeHardware sweeps the cluster parameters of a serving run,
// host speed also scaling the serving runtime's host time.
func SweepServeHardware(r ServeRun) ([]Row, error) {
	rows, err := sweepCluster(r.C, func(cc *cluster.Cluster, p ClusterParam, f float64) (Point, error) {
		o := r.O
		if p.Name == "host" {
			o = HostServe(o, f)
		}
		res, err := llm.SimulateServe(r.T, cc, o)
		if err != nil {
			return Point{}, err
		}
		return ServePointOf(res), nil
	})
	if err == nil && r.O.Load != nil {
		for i := range rows {
			if rows[i].Param == "host" {
				rows[i].Fields += "; the serving runtime's iter_host_us, seq_host_us (divided)"
			}
		}
	}
	return rows, err
}

// ServeRun is an LLM serving prediction's inputs.
type ServeRun struct {
	T *llm.Transformer
	C *cluster.Cluster
	O llm.ServeOptions
}

// ServePointOf is a serving prediction's total and figures: one request's
// latency for a static batch; with requests, the serving time per request
// when they all arrive at once (--rate max: the inverse of the request
// throughput, comparable between runs of different request counts), else
// the mean request latency.
func ServePointOf(r *llm.ServeResult) Point {
	if q := r.Requests; q != nil {
		ms := q.E2E.MeanMs
		if q.Offline && q.Requests > 0 {
			ms = q.DurationS * 1e3 / float64(q.Requests)
		}
		return Point{Ms: ms, Serve: &ServePoint{TokensPerS: q.OutputTokensPerS, TTFTMs: q.TTFT.MeanMs, TPOTMs: q.TPOT.MeanMs}}
	}
	return Point{Ms: r.RequestMs, Serve: &ServePoint{TokensPerS: r.TokensPerS, TTFTMs: r.TTFTMs, TPOTMs: r.TPOTMs}}
}

// ServeMetric names ServePointOf's total.
func ServeMetric(r *llm.ServeResult) string {
	switch {
	case r.Requests == nil:
		return "request_ms: one request's latency (ttft + (output - 1) x tpot)"
	case r.Requests.Offline:
		return "ms_per_request: the time to serve the requests (all arriving at once) over their number, 1 / requests per second"
	}
	return "e2e_mean_ms: the mean request latency"
}

// serveValue is the degree's value in base.
func serveValue(base *llm.ServeResult, name string) int {
	switch name {
	case "tp":
		return base.TP
	case "pp":
		if base.Requests != nil {
			return max(1, base.Requests.PP)
		}
		return 1
	}
	if base.Requests != nil && base.Requests.MaxSeqs > 0 {
		return base.Requests.MaxSeqs
	}
	return base.Batch
}

// WithDegree returns the serving run with name at v.
func (r ServeRun) WithDegree(base *llm.ServeResult, name string, v int) (ServeRun, error) {
	out := r
	switch name {
	case "tp":
		out.O.TP = v
	case "pp":
		if r.O.Load == nil {
			return out, fmt.Errorf("pp: a static batch runs without pipeline parallelism (give a request-level flag)")
		}
		l := *r.O.Load
		l.PP = v
		out.O.Load = &l
	case "batch":
		out.O.Batch = v
	default:
		return out, fmt.Errorf("%q is not a layout parameter of serving (want %s)", name, strings.Join(ServeDegreeNames(), ", "))
	}
	return out, nil
}

// ServeDegrees are the layout parameters a serving run's what-if sweeps:
// tp and the batch, pp with requests.
func ServeDegrees(o llm.ServeOptions) []string {
	if o.Load == nil {
		return []string{"tp", "batch"}
	}
	return ServeDegreeNames()
}

// SweepServe is SweepTrain for serving.
func SweepServe(r ServeRun, base *llm.ServeResult, names []string) []Row {
	var rows []Row
	for _, name := range names {
		v := serveValue(base, name)
		upper := r.C.GPUs()
		if name == "batch" {
			upper = 1 << 24
		}
		row := neighbours(name, v, upper, name == "batch", func(w int) (Point, string, error) {
			run, err := r.WithDegree(base, name, w)
			if err != nil {
				return Point{}, "", err
			}
			res, err := llm.SimulateServe(run.T, run.C, run.O)
			var nf *llm.NotFitError
			if errors.As(err, &nf) || (err == nil && !res.Memory.Fits) {
				return Point{}, "does not fit", nil
			}
			if err != nil {
				return Point{}, "", err
			}
			return ServePointOf(res), "", nil
		}, ServePointOf(base))
		row.Fields = DegreeDoc(name, true)
		rows = append(rows, row)
	}
	Rank(rows)
	return rows
}
