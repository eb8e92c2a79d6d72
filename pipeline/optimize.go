package pipeline

// This file implements the third stage: the pass pipeline run on a copy
// of the inferred model, with the simulator as its predictor.

import (
	"fmt"
	"time"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// OptimizeOptions steer Optimize. The zero value runs -O0 without
// predictions.
type OptimizeOptions struct {
	Level      int      // -O level, 0..optimize.MaxLevel
	Only       []string // run only these passes (required ones always run)
	Disable    []string // skip these passes
	VerifyEach bool     // run the IR verifier after every pass
	Target     optimize.Target
	// HW is the hardware predictions are made for; its on-chip memory
	// bounds what the persistent-RNN pass keeps on chip (none: no
	// persistent kernels).
	HW *hw.Hardware
	// Predict has the simulator predict the model on HW (one stream,
	// inference) before the first pass and after each.
	Predict bool
	// Cost are the cost model's options the predictions and the cluster
	// placement use (TF32, and the names of the caller's settings).
	Cost cost.Options
	// Cluster, when set, places the optimized model on a cluster for the
	// rdma pass (Optimized.Placement).
	Cluster *ClusterOptions
	// Dumps, Hash and Now are optimize.Options' dumps (written by the pass
	// driver before the first pass and after each), per-pass graph hashes
	// and clock; OnPassStart is its progress hook.
	Dumps       []optimize.Dump
	Hash        bool
	Now         func() time.Time
	OnPassStart func(i, n int, pass string, m *ir.Model)
	// InPlace rewrites the inferred model itself instead of a copy: for
	// a caller that reads the inferred model no more (no Simulate of it,
	// Exportable or Respecialize after it), it saves a copy of the graph.
	// Inferred.Model is then Optimized.Model.
	InPlace bool
	// Refusals records the candidates the fusion and batching passes
	// turned down, each with its predicted gain when Predict is set
	// (optimize.Result.Refusals).
	Refusals bool
	// FinalPeakOnly says the caller reads the predicted memory peak of
	// the baseline and of the final model only (optimize's report,
	// explain's text; not explain's JSON or page, which show every
	// pass's): the predictions in between skip the simulator's memory
	// step (simulate.RunMemoryLater), so the Before and After of the
	// passes have PeakBytes 0, and the step runs once, on the final
	// model, for Result.Final and Predicted.
	FinalPeakOnly bool
	// CountRewrites keeps only each pass's number of rewrites in Result
	// (optimize.Options.CountRewrites): for a caller that shows counts
	// and nothing else of the rewrites (optimize without -o).
	CountRewrites bool
}

// Check refuses options Optimize cannot run (a level out of range, an
// unknown pass name).
func (o OptimizeOptions) Check() error {
	if o.Level < 0 || o.Level > optimize.MaxLevel {
		return fmt.Errorf("optimization level %d: want 0..%d", o.Level, optimize.MaxLevel)
	}
	_, err := optimize.Select(o.Level, o.Only, o.Disable)
	return err
}

// Optimized is a copy of an inferred model rewritten by the passes.
type Optimized struct {
	From *Inferred
	// Model is the rewritten copy (sharing the loaded model's weights).
	Model  *ir.Model
	Result *optimize.Result
	// Predicted is the predictor's last simulation (of the final model),
	// nil without OptimizeOptions.Predict.
	Predicted *simulate.Result
	// BaselineWhy is the baseline prediction's breakdown and time per
	// class (the run itself is not kept), nil without Predict.
	BaselineWhy *simulate.Why
	// Placement is the cluster plan with OptimizeOptions.Cluster;
	// PlacementApplied says whether the rdma pass applied it to Model (it
	// runs at -O3), or it was only planned on the final model.
	Placement        *cluster.Placement
	PlacementApplied bool
}

// Graph is the optimized model.
func (o *Optimized) Graph() *ir.Model { return o.Model }

func (o *Optimized) inference() *Inferred { return o.From }

// Assumptions are what the predictions rest on: the last simulation's,
// and how recurrent ops are costed when the model has them.
func (o *Optimized) Assumptions() []string {
	var out []string
	if o.Predicted != nil {
		out = append(out, o.Predicted.Assumptions...)
	}
	for _, n := range o.Model.Graph.Nodes {
		if info := ir.InfoOf(n); info != nil && info.Class() == ir.CostRNN { // LSTM, GRU, RNN and their contrib forms
			out = append(out, "recurrent ops are costed without a persistent-RNN kernel: the recurrent weights are re-read from memory every step (the cost model's choice; a persistent kernel keeping them on chip would be faster where they fit)")
			break
		}
	}
	return out
}

// Optimize runs the passes opt selects on a copy of f's model; f is left
// as it was.
func Optimize(f *Inferred, opt OptimizeOptions) (*Optimized, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	m, err := f.Model, error(nil)
	if !opt.InPlace {
		if m, err = ir.CloneModel(f.Model); err != nil {
			return nil, err
		}
	}
	o := &Optimized{From: f, Model: m}
	oo := optimize.Options{Level: opt.Level, Only: opt.Only, Disable: opt.Disable, VerifyEach: opt.VerifyEach,
		OnChipBytes: OnChipBytes(opt.HW), Dumps: opt.Dumps, Hash: opt.Hash, Now: opt.Now, OnPassStart: opt.OnPassStart, Target: opt.Target, Refusals: opt.Refusals,
		CountRewrites: opt.CountRewrites}
	var pred *predictor
	if opt.Predict {
		if opt.HW == nil {
			return nil, fmt.Errorf("predictions need hardware")
		}
		pred = &predictor{h: opt.HW, opt: simulate.Options{Streams: 1, Mode: simulate.Inference, Batch: f.Batch, Cost: opt.Cost}, later: opt.FinalPeakOnly}
		oo.Predictor = pred
	}
	var placer *clusterPlacer
	if opt.Cluster != nil {
		placer = newClusterPlacer(*opt.Cluster, opt.Cost)
		oo.Placer = placer
	}
	if o.Result, err = optimize.Run(m, oo); err != nil {
		return nil, err
	}
	if pred != nil {
		if o.Predicted, err = pred.final(m); err != nil {
			return nil, err
		}
		o.Result.Final.PeakBytes = int64(o.Predicted.PeakMemoryBytes) // 0 from a prediction that left memory for later
		o.BaselineWhy = pred.base
	}
	if placer != nil {
		o.PlacementApplied = placer.plan != nil
		if !o.PlacementApplied {
			if _, err := placer.Place(m); err != nil {
				return nil, err
			}
		}
		o.Placement = placer.plan
	}
	return o, nil
}

// predictor predicts with the simulator. It keeps the last simulation
// made after a pass (Optimized.Predicted), but not the baseline's: that
// one would stay live through every pass (a Task per node) and is the
// final one only when no pass changed the model, which final then
// simulates again. Each simulation after a pass is built in the buffers
// of the one before it (simulate.RunReusing): nothing else holds them.
type predictor struct {
	h     *hw.Hardware
	opt   simulate.Options
	calls int
	last  *simulate.Result
	lastM *ir.Model     // the model last predicted (last's, when last is set)
	drops int           // predictions simulate.RunDropped made
	base  *simulate.Why // the first prediction's (the baseline's)
	// later: the predictions after the baseline leave the memory step to
	// final (OptimizeOptions.FinalPeakOnly)
	later bool
}

func (p *predictor) Predict(m *ir.Model) (optimize.Prediction, error) {
	old := p.last
	p.last = nil
	run := simulate.RunReusing
	if p.later && p.calls > 0 {
		run = simulate.RunMemoryLater
	}
	r, err := run(m, p.h, p.opt, old)
	if err != nil {
		return optimize.Prediction{}, err
	}
	if p.calls == 0 {
		p.base = r.Why()
	}
	if p.calls++; p.calls > 1 {
		p.last = r
	}
	p.lastM = m
	return prediction(r, 0), nil
}

// PredictDropped predicts m when the model predicted last was m itself
// with initializers no node reads since dropped (optimize.DropPredictor):
// the last simulation's tasks and times with memory run again
// (simulate.RunDropped), else Predict.
func (p *predictor) PredictDropped(m *ir.Model) (optimize.Prediction, error) {
	if p.last == nil || p.lastM != m {
		return p.Predict(m)
	}
	r, ok := simulate.RunDropped(m, p.h, p.opt, p.last)
	if !ok {
		return p.Predict(m)
	}
	p.calls++
	p.drops++
	p.last = r
	return prediction(r, 0), nil
}

// final is the simulation of m, the model as the passes left it.
func (p *predictor) final(m *ir.Model) (*simulate.Result, error) {
	if p.last != nil {
		p.last.FinishMemory(m)
		return p.last, nil
	}
	return simulate.Run(m, p.h, p.opt)
}

// prediction summarizes a simulation as optimize reports it (nodes is
// left to optimize when 0).
func prediction(r *simulate.Result, nodes int) optimize.Prediction {
	return optimize.Prediction{Nodes: nodes, Kernels: r.Kernels, TotalMs: r.TotalS * 1e3, PeakBytes: int64(r.PeakMemoryBytes), Unknown: r.UnknownNodes}
}

// OnChipBytes is the on-chip memory the persistent-RNN pass may keep a
// recurrent weight in: the device's L2 cache (the hardware file has no
// register-file or shared-memory size), 0 for a CPU.
func OnChipBytes(h *hw.Hardware) int64 {
	if h == nil || h.Kind != "gpu" {
		return 0
	}
	return int64(h.L2MB * 1e6)
}
