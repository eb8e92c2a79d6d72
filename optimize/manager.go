package optimize

// This file implements the driver: the only cross-cutting code. It runs
// the selected passes in order, names the pass in errors and panics,
// keeps the nodes in topological order (the pass contract, see PassFunc:
// re-sorted after each pass that reports a rewrite), skips a pass that
// repeats one that found nothing when nothing changed since (Pass.Repeats),
// runs each pass on every If/Loop/Scan body first (bodies.go), times
// each pass, verifies the IR after each one when asked, hashes the
// model after each pass and writes the dumps asked for (dump.go), and
// records the predicted cost before and after each pass.

import (
	"fmt"
	"slices"
	"time"

	"github.com/wolong-dev/wolong/ir"
)

// Prediction is what a Predictor says about a model.
type Prediction struct {
	Nodes     int     `json:"nodes"`   // nodes in the main graph
	Kernels   int64   `json:"kernels"` // kernel launches
	TotalMs   float64 `json:"total_ms"`
	PeakBytes int64   `json:"peak_bytes,omitempty"` // peak live device memory, 0 if not predicted
	Unknown   int     `json:"unknown,omitempty"`    // nodes the predictor could not cost
}

// Predictor predicts the cost of a whole model (the simulator, injected by
// the caller so that optimize does not depend on simulate).
type Predictor interface {
	Predict(m *ir.Model) (Prediction, error)
}

// A DropPredictor is a Predictor that also predicts, more cheaply, a model
// that differs from the one it predicted last only by initializers no node
// reads, dropped (a dead-code pass that found no dead node): the same
// Prediction Predict would make of it.
type DropPredictor interface {
	Predictor
	PredictDropped(m *ir.Model) (Prediction, error)
}

// Folder evaluates one node on constant inputs (the evaluator, used by
// constant folding). Inputs are nil for omitted slots.
type Folder interface {
	Fold(m *ir.Model, n *ir.Node, in []*ir.Tensor) ([]*ir.Tensor, error)
}

// Options steer Run.
type Options struct {
	Level   int      // -O level, 0..MaxLevel
	Only    []string // --passes: run only these (plus required ones)
	Disable []string // --disable-pass
	// VerifyEach runs ir.Verify after every pass (always on in tests).
	VerifyEach bool
	// Predictor, when set, predicts the model's cost before the first pass
	// and after each pass.
	Predictor Predictor
	// Folder evaluates constant nodes; nil uses the evaluator (eval).
	Folder Folder
	// FoldMaxBytes caps the size of a tensor constant folding may create
	// or read (default 1 MiB), so folding never bloats the model nor reads
	// a large weight.
	FoldMaxBytes int64
	// GroupCap caps the nodes of one fused group (default 256).
	GroupCap int
	// OnChipBytes is the on-chip memory a persistent kernel may keep
	// weights in (the caller takes it from the hardware); 0 disables the
	// persistent-RNN pass.
	OnChipBytes int64
	// Dumps are written with the model before the first pass and after
	// the passes each selects (explain --dump-after, --dot, --diff).
	Dumps []Dump
	// Now reads the clock for the pass timings; nil is time.Now (tests give
	// a fake clock, so that output with timings is reproducible).
	Now func() time.Time
	// Hash records each pass's graph hash in its PassResult (so that the
	// passes that changed nothing are known) even without dumps; dumps
	// imply it. It costs a walk of the model per pass.
	Hash bool
	// OnPassStart, when set, is called before each pass that runs with
	// its 1-based position i among the n passes that will run, its name
	// and the model as the pass receives it (for progress display).
	OnPassStart func(i, n int, pass string, m *ir.Model)
	// Placer, when set, places the optimized model on a cluster for the
	// rdma pass (which is skipped without it).
	Placer Placer
	// Target is the runtime the model is optimized for: TargetORT runs the
	// ort pass (skipped otherwise).
	Target Target
	// Refusals records the candidates the fusion and batching passes
	// turned down (Result.Refusals; see Context.Refuse).
	Refusals bool
	// CountRewrites keeps only how many rewrites each pass made
	// (PassResult.Count), not the rewrites (PassResult.Rewrites nil),
	// for a caller that reads nothing else of them: a pass's rewrites
	// are then garbage before the prediction after it, instead of
	// living to the end of the run (cnn 100k: 114k rewrites, ~17 MB).
	CountRewrites bool
}

// PassResult is what one pass did.
type PassResult struct {
	Name     string    `json:"name"`
	Rewrites []Rewrite `json:"rewrites"`
	// Count is the number of rewrites the pass made: len(Rewrites), or,
	// with Options.CountRewrites, the number of those not kept.
	Count  int        `json:"-"`
	Before Prediction `json:"before"`
	After  Prediction `json:"after"`
	// Elapsed is the pass's wall time, the re-sort after it included
	// (verification, hashing, dumps and prediction excluded).
	Elapsed time.Duration `json:"-"`
	// Hash identifies the model after the pass (Stage.Hash: equal
	// hashes, the same model), and Unchanged says the pass left the model
	// as it found it; both are set only when Options.Hash or
	// Options.Dumps asked for hashes.
	Hash      string `json:"-"`
	Unchanged bool   `json:"-"`
}

// NumRewrites is the number of rewrites the pass made: len(Rewrites),
// or Count when the run kept only counts (a PassResult made by hand may
// leave Count 0).
func (p *PassResult) NumRewrites() int {
	if p.Rewrites == nil {
		return p.Count
	}
	return len(p.Rewrites)
}

// DeltaMs is the predicted time the pass saved (negative: it cost time).
func (p *PassResult) DeltaMs() float64 { return p.Before.TotalMs - p.After.TotalMs }

// Result is the outcome of Run.
type Result struct {
	Level    int          `json:"level"`
	Baseline Prediction   `json:"baseline"`
	Final    Prediction   `json:"optimized"`
	Passes   []PassResult `json:"passes"`
	// Refusals are the candidates passes turned down, largest predicted
	// gain first (with Options.Refusals).
	Refusals []Refusal `json:"refusals,omitempty"`
}

// Speedup is baseline time over optimized time (0 when unknown).
func (r *Result) Speedup() float64 {
	if r.Final.TotalMs <= 0 {
		return 0
	}
	return r.Baseline.TotalMs / r.Final.TotalMs
}

// Run optimizes m in place with the passes opt selects.
func Run(m *ir.Model, opt Options) (*Result, error) {
	if m == nil || m.Graph == nil {
		return nil, fmt.Errorf("no model")
	}
	sel, err := Select(opt.Level, opt.Only, opt.Disable)
	if err != nil {
		return nil, err
	}
	c := newContext(m, opt)
	opt = c.Opt
	// The pass contract: nodes in topological order before the first pass
	// (an imported model already is; a hand-built one may not be).
	if err := ir.SortNodes(m.Graph); err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	res := &Result{Level: opt.Level}
	cur, err := predict(opt.Predictor, m)
	if err != nil {
		return nil, err
	}
	res.Baseline = cur
	if opt.VerifyEach {
		if err := ir.Verify(m); err != nil {
			return nil, fmt.Errorf("before the first pass: %v", err)
		}
	}
	st := newStages(opt)
	if err := st.input(m); err != nil {
		return nil, err
	}
	var torun []Pass
	c.survey()
	control := len(c.bodies) > 0 // hasControlFlow, from the walk the first pass needs anyway
	for _, p := range forTarget(sel, opt.Target) {
		if p.NeedsPlacer && opt.Placer == nil || p.ControlFlow && !control {
			continue
		}
		torun = append(torun, p)
	}
	quiet := map[string]bool{} // passes that reported no rewrite, none reported since
	for i, p := range torun {
		if opt.OnPassStart != nil {
			opt.OnPassStart(i+1, len(torun), p.Name, m)
		}
		var nodes []*ir.Node
		if opt.VerifyEach {
			nodes = slices.Clone(m.Graph.Nodes)
		}
		start := opt.Now()
		var rw []Rewrite
		// skipped when an earlier run of its function found nothing since
		// (Pass.Repeats) or the model lacks the ops it needs (Pass.Needs)
		if (p.Repeats == "" || !quiet[p.Repeats]) && c.mayMatch(p) {
			c.pass = p.Name
			if rw, err = runPassAll(c, p); err != nil {
				return nil, err
			}
		}
		// A pass that reports no rewrite changed nothing (the contract the
		// predictor relies on too: it is not asked again), so the order it
		// received stands and the re-sort's check is skipped: ~5 ms a pass
		// on 100k nodes, for most passes on most models. VerifyEach (on in
		// tests) checks the claim.
		if len(rw) > 0 {
			clear(quiet)
			c.staleCensus()
			if err := ir.SortNodes(m.Graph); err != nil {
				return nil, fmt.Errorf("after pass %q: %v", p.Name, err)
			}
		} else {
			quiet[p.Name] = true
			if nodes != nil && !slices.Equal(nodes, m.Graph.Nodes) {
				return nil, fmt.Errorf("pass %q reported no rewrite but changed the node list", p.Name)
			}
		}
		pr := PassResult{Name: p.Name, Rewrites: rw, Count: len(rw), Before: cur, Elapsed: opt.Now().Sub(start)}
		if opt.VerifyEach {
			if err := ir.Verify(m); err != nil {
				return nil, fmt.Errorf("after pass %q: %v", p.Name, err)
			}
		}
		dropped := dropsOnly(rw)
		if opt.CountRewrites {
			pr.Rewrites, rw = nil, nil
		}
		if pr.Count > 0 {
			if cur, err = predictAfter(opt.Predictor, m, dropped); err != nil {
				return nil, err
			}
		}
		pr.After = cur
		if err := st.after(p.Name, m, &pr, opt.VerifyEach); err != nil {
			return nil, err
		}
		res.Passes = append(res.Passes, pr)
	}
	res.Final = cur
	res.Refusals = rankRefusals(c.refusals)
	if len(res.Refusals) > maxRefusals {
		res.Refusals = res.Refusals[:maxRefusals]
	}
	return res, nil
}

// newContext is the context the passes of one run share, opt's defaults
// filled in.
func newContext(m *ir.Model, opt Options) *Context {
	if opt.FoldMaxBytes <= 0 {
		opt.FoldMaxBytes = 1 << 20
	}
	if opt.GroupCap <= 0 {
		opt.GroupCap = defaultGroupCap
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	c := &Context{Model: m, Opt: opt, folder: opt.Folder, implicit: implicitNames(m.Graph)}
	if c.folder == nil {
		c.folder = defaultFolder()
	}
	return c
}

// runPass runs one pass, turning a panic into an error that names it.
func runPass(c *Context, p Pass) (rw []Rewrite, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pass %q panicked: %v", p.Name, r)
		}
	}()
	rw, err = p.Fn(c)
	if err != nil {
		err = fmt.Errorf("pass %q: %w", p.Name, err)
	}
	return rw, err
}

// dropsOnly says every rewrite of rw only dropped initializers no node
// reads (true for none).
func dropsOnly(rw []Rewrite) bool {
	for _, r := range rw {
		if !r.dropsOnly {
			return false
		}
	}
	return true
}

// predictAfter predicts m after a pass that made rewrites: with a
// DropPredictor when every rewrite only dropped initializers no node
// reads (dropped, dropsOnly of them), the model the predictor saw last
// otherwise untouched.
func predictAfter(p Predictor, m *ir.Model, dropped bool) (Prediction, error) {
	dp, ok := p.(DropPredictor)
	if !ok || !dropped {
		return predict(p, m)
	}
	pr, err := dp.PredictDropped(m)
	if err != nil {
		return pr, fmt.Errorf("predict: %w", err)
	}
	pr.Nodes = len(m.Graph.Nodes)
	return pr, nil
}

func predict(p Predictor, m *ir.Model) (Prediction, error) {
	if p == nil {
		return Prediction{Nodes: len(m.Graph.Nodes), Kernels: int64(len(m.Graph.Nodes))}, nil
	}
	pr, err := p.Predict(m)
	if err != nil {
		return pr, fmt.Errorf("predict: %w", err)
	}
	pr.Nodes = len(m.Graph.Nodes)
	return pr, nil
}
