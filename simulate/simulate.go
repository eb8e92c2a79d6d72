package simulate

// This file implements the simulation driver: options, building the task
// list from the graph (forward, and backward + optimizer in training
// mode), and assembling the result.

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// Mode is inference or training.
type Mode string

// Modes.
const (
	Inference Mode = "inference"
	Train     Mode = "train"
)

// ParseMode validates a --mode value.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Inference, Train:
		return Mode(s), nil
	case "infer", "forward":
		return Inference, nil
	case "training":
		return Train, nil
	}
	return "", fmt.Errorf("unknown mode %q (want inference or train)", s)
}

// Options steer a simulation.
type Options struct {
	Streams int  // device streams (default 1); >1 lets independent branches overlap
	Mode    Mode // inference (default) or train
	// Batch, when > 0, is the batch the model was inferred at (dim 0 of
	// its batch inputs, see BatchInputs): Run states it and refuses a
	// model inferred at another. Run never infers: shapes are the
	// caller's (pipeline.Infer sets the batch).
	Batch int64
	Cost  cost.Options
}

// Phase says which pass a task belongs to (a byte in the task, not a
// string: a Task per node, 100k and more a prediction).
type Phase uint8

// Phases.
const (
	Forward Phase = iota
	Backward
	Optimizer
)

// String is the phase's name: "forward", "backward" or "optimizer".
func (p Phase) String() string {
	switch p {
	case Forward:
		return "forward"
	case Backward:
		return "backward"
	case Optimizer:
		return "optimizer"
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// Task is one node's execution (or a synthetic training step) on the
// timeline.
type Task struct {
	Node *ir.Node // nil for the optimizer update
	// Est is the task's estimate, shared with the run's other tasks whose
	// estimates are the same (see estimates): never changed through Est,
	// only replaced. Not nil in a Result.
	Est *cost.Estimate

	Stream               int     // device stream; -1 for free tasks (no kernel)
	IssueStart, IssueEnd float64 // host interval issuing its kernels, seconds
	Start, End           float64 // device interval, seconds
	// The task's dependencies (task indexes) are its Result's
	// deps[dep0:dep0+ndep] (Result.depsOf): two int32s, not a slice
	// header, in a struct the simulator makes once a node.
	dep0, ndep int32
	// cap0 >= 0: Node holds subgraphs (control flow, a fused kernel), and
	// its Result's caps[cap0:cap0+ncap] are the values from outside Node
	// they read (ir.Node.EachCaptured, in its order, repeats included),
	// set by buildForward for the memory pass, which then need not read
	// the node's attribute list or walk its bodies again (cache misses a
	// node on a large graph); cap0 < 0: no subgraphs
	cap0, ncap int32
	Phase      Phase
}

// Name is the task's name: its node's label (ir.NodeLabel), with ".grad"
// for its backward pass, or "optimizer.adam". It is not stored (a Task
// per node, 32 bytes) but made on each call: an unnamed node's label and
// a backward task's name are new strings.
func (t *Task) Name() string {
	switch {
	case t.Phase == Optimizer:
		return "optimizer.adam"
	case t.Phase == Backward:
		return taskName(t.Node) + ".grad"
	}
	return taskName(t.Node)
}

// Op is the task's op: its node's (ir.Node.QualifiedOp, a new string for
// a domain other than ai.onnx's), or "AdamUpdate" for the optimizer.
func (t *Task) Op() string {
	if t.Phase == Optimizer {
		return "AdamUpdate"
	}
	return t.Node.QualifiedOp()
}

// depsOf returns t's dependencies, indexes into r.Tasks.
func (r *Result) depsOf(t *Task) []int32 { return r.fwd.slab[t.dep0 : t.dep0+t.ndep] }

// capsOf returns the values from outside t.Node its bodies read (none
// without bodies).
func (r *Result) capsOf(t *Task) []*ir.Value {
	if t.cap0 < 0 {
		return nil
	}
	return r.fwd.caps[t.cap0 : t.cap0+t.ncap]
}

// Gap is an idle interval on a stream and what the stream waited for.
type Gap struct {
	Stream     int
	Start, End float64
	Cause      string // "host" (kernel not yet issued) or "dependency"
}

// StreamStats summarizes one device stream.
type StreamStats struct {
	BusyS, IdleS float64
	Kernels      int64
	Gaps         int
	HostWaitS    float64 // idle time spent waiting for the host to issue
}

// Result is a simulated run.
type Result struct {
	Hardware    *hw.Hardware
	Options     Options
	Assumptions []string
	Warnings    []string

	Tasks []Task // schedule (issue) order

	TotalS        float64 // makespan: first issue to last kernel end
	BusyS         float64 // device busy time, summed over streams
	HostBusyS     float64 // host time issuing kernels
	CriticalPathS float64 // longest dependency chain of device time
	Streams       []StreamStats
	LargestGaps   []Gap // the longest idle gaps, longest first (at most 10)

	FLOPs   float64
	Bytes   float64
	Kernels int64

	PeakMemoryBytes float64 // weights + optimizer state + live activations at the peak
	PeakMemoryAtS   float64
	WeightBytes     float64 // initializers and Constant data (resident)
	OptimizerBytes  float64 // training: Adam moments
	UnknownNodes    int     // tasks whose cost is unknown (totals are lower bounds)
	UnknownSizes    int     // values left out of the memory peak: size unknown
	// bothBranches counts the If nodes whose condition is not known, both
	// of whose branches' weights are counted resident.
	bothBranches int
	// UsedBatch is the batch the run was at: Options.Batch, else dim 0
	// of the batch inputs as inferred (0: none or unknown).
	UsedBatch int64

	// memoryLater: the memory step has not run (RunMemoryLater), the
	// fields it sets are 0 until FinishMemory
	memoryLater bool

	fwd fwdScratch // buildForward's arrays, kept for the next run that reuses this one
	mem memScratch // memory's arrays, for the same reuse
}

// fwdScratch is buildForward's storage and the tasks' lists. slab holds
// every task's dependencies (Task.dep0) and caps every one's captured
// values (Task.cap0); idx is the scratch table of task index by node ID
// (a fresh table per prediction is a fresh, zeroed allocation of the
// graph's node IDs).
type fwdScratch struct {
	slab, idx []int32
	caps      []*ir.Value
}

// maxListed bounds lists of names in warnings.
const maxListed = 10

// Run simulates m's main graph on h.
func Run(m *ir.Model, h *hw.Hardware, opt Options) (*Result, error) {
	return RunReusing(m, h, opt, nil)
}

// RunReusing is Run that may build the new result in old's task and
// dependency buffers: old must not be used afterwards (a predictor that
// re-simulates a model after every pass hands back the previous result,
// so that each run refills memory already in use instead of taking 100s
// of MB of fresh pages at 100k nodes). A nil old is Run.
func RunReusing(m *ir.Model, h *hw.Hardware, opt Options, old *Result) (*Result, error) {
	return runMemory(m, h, opt, old, false)
}

// RunMemoryLater is RunReusing without the memory step, for a caller
// that reads none of its results unless the run turns out to be the one
// it keeps: PeakMemoryBytes, PeakMemoryAtS, WeightBytes and UnknownSizes
// are 0 and the assumption of If nodes counted with both branches
// resident is missing until FinishMemory runs it. In inference (the
// memory step of a training run reads the optimizer's state) it is
// RunReusing otherwise. Nothing else in the result depends on that step:
// the estimates, the schedule, the totals, the breakdown and the warnings
// are RunReusing's.
func RunMemoryLater(m *ir.Model, h *hw.Hardware, opt Options, old *Result) (*Result, error) {
	return runMemory(m, h, opt, old, opt.Mode == "" || opt.Mode == Inference)
}

// FinishMemory runs the memory step a RunMemoryLater (or a RunDropped of
// its result) left out, on m, the model the run simulated, as it was then;
// the result is then what RunReusing would have returned. Nothing when the
// step has run.
func (r *Result) FinishMemory(m *ir.Model) {
	if r == nil || !r.memoryLater {
		return
	}
	r.memoryLater = false
	memory(r, m.Graph, false)
	if r.bothBranches > 0 {
		r.Assumptions = append(r.Assumptions, bothBranchesNote(r.bothBranches))
	}
}

// runMemory is RunReusing, the memory step left to FinishMemory with later.
func runMemory(m *ir.Model, h *hw.Hardware, opt Options, old *Result, later bool) (*Result, error) {
	if m == nil || m.Graph == nil {
		return nil, fmt.Errorf("no graph")
	}
	if h == nil {
		return nil, fmt.Errorf("no hardware")
	}
	if opt.Streams <= 0 {
		opt.Streams = 1
	}
	if opt.Streams > 1024 {
		return nil, fmt.Errorf("%d streams is more than 1024", opt.Streams)
	}
	if opt.Mode == "" {
		opt.Mode = Inference
	}
	if _, err := ParseMode(string(opt.Mode)); err != nil {
		return nil, err
	}
	res := &Result{Hardware: h, Options: opt, UsedBatch: opt.Batch}
	if err := CheckBatch(m.Graph, opt.Batch); err != nil {
		return nil, err
	}
	if res.UsedBatch == 0 {
		res.UsedBatch = UsedBatch(m.Graph)
	}
	g := m.Graph
	var tasks []Task
	if old != nil {
		tasks, res.fwd, res.mem = old.Tasks[:0], old.fwd, old.mem
		*old = Result{}
	}
	// in the graph's order when it is topologically sorted (the common
	// case, checked as the dependencies are found), else in ir.Topo's.
	// buildForward runs beside the estimates: both only read the IR, and
	// they write different fields of the tasks (Est, the rest).
	order := g.Nodes
	tasks = zeroTasks(tasks, len(order))
	cm := cost.New(h, m, opt.Cost)
	var sorted bool
	est, tab := tasks, &estimates{}
	cm.NodesBeside(order, func(i int, e cost.Estimate) { est[i].Est = tab.intern(&e) }, func() {
		sorted = buildForward(g, order, est, &res.fwd, true)
	})
	if !sorted {
		var err error
		if order, err = ir.Topo(g); err != nil {
			return nil, fmt.Errorf("%v", err)
		}
		tasks = zeroTasks(tasks, len(order))
		buildForward(g, order, tasks, &res.fwd, false)
		cm = cost.New(h, m, opt.Cost) // the notes of estimates in this order alone
		cm.Nodes(order, func(i int, e cost.Estimate) { tasks[i].Est = tab.intern(&e) })
	}
	if opt.Mode == Train {
		tasks = appendTraining(g, tasks, cm, res, tab)
	}
	res.Tasks = tasks
	before, after := cm.RunS(g)
	schedule(res, h, before, after)
	if later {
		res.memoryLater = true
	} else {
		memory(res, g, opt.Mode == Train)
	}
	res.Assumptions = assumptions(res, cm, h, opt)
	if res.bothBranches > 0 {
		res.Assumptions = append(res.Assumptions, bothBranchesNote(res.bothBranches))
	}
	res.Warnings = append(res.Warnings, unknownWarnings(res)...)
	return res, nil
}

// RunDropped is RunReusing(m, h, opt, old) for a model that differs from
// the one old simulated only by initializers that no node reads, dropped
// from its graphs (a dead-code pass that found no dead node): the same
// nodes, in the same order, untouched. What an initializer no node reads
// reaches in a run is the resident weights (memory, and in training the
// optimizer state) and, on hardware that models the cache's working set,
// every estimate (the model's weight bytes, cache_working_set); so in
// inference on hardware without that, the estimates, the schedule and
// everything from them are old's, and memory alone is run again, on
// old's tasks (or left to FinishMemory when old's was: RunMemoryLater).
// old must not be used afterwards, as with RunReusing.
// false (old untouched) where that does not hold or cannot be checked:
// another mode, hardware or options than old's, a working-set hardware,
// or old's tasks not m's nodes in m's order; the caller then runs it.
func RunDropped(m *ir.Model, h *hw.Hardware, opt Options, old *Result) (*Result, bool) {
	if m == nil || m.Graph == nil || h == nil || old == nil || h.CacheWorkingSet || old.Hardware != h {
		return nil, false
	}
	if opt.Streams <= 0 {
		opt.Streams = 1
	}
	if opt.Mode == "" {
		opt.Mode = Inference
	}
	if opt.Mode != Inference || opt != old.Options {
		return nil, false
	}
	nodes := m.Graph.Nodes
	if len(old.Tasks) != len(nodes) {
		return nil, false
	}
	for i := range nodes {
		if old.Tasks[i].Node != nodes[i] {
			return nil, false
		}
	}
	res := *old
	*old = Result{}
	if res.bothBranches > 0 { // the last assumption states it (RunReusing)
		res.Assumptions = res.Assumptions[:len(res.Assumptions)-1]
	}
	res.Assumptions = slices.Clip(res.Assumptions)
	res.PeakMemoryBytes, res.PeakMemoryAtS, res.WeightBytes, res.UnknownSizes, res.bothBranches = 0, 0, 0, 0, 0
	if res.memoryLater { // old's memory step was left to FinishMemory: so is this one's
		return &res, true
	}
	memory(&res, m.Graph, false)
	if res.bothBranches > 0 {
		res.Assumptions = append(res.Assumptions, bothBranchesNote(res.bothBranches))
	}
	return &res, true
}

// bothBranchesNote is the assumption a run states when the weights of both
// branches of n If nodes are counted resident.
func bothBranchesNote(n int) string {
	return fmt.Sprintf("memory: the weights of both branches of %d If node(s) whose condition is not known are counted resident, as inspect counts them (give the condition's input a value with --fill to count only the branch taken)", n)
}

// BatchInputs returns input-shape overrides that set the batch dim (dim 0)
// of the graph's batch inputs to batch; explicit overrides in keep win.
// The batch inputs are the non-initializer inputs whose declared dim 0 is
// symbolic or unknown; when there are none, those whose dim 0 equals the
// first input's (a model exported with a fixed batch).
func BatchInputs(g *ir.Graph, batch int64, keep map[string]ir.Shape) map[string]ir.Shape {
	out := map[string]ir.Shape{}
	for k, v := range keep {
		out[k] = v
	}
	shapeOf := func(in *ir.Value) ir.Shape {
		if in.Declared != nil && in.Declared.Shape.Rank() >= 1 {
			return in.Declared.Shape // keeps the symbolic names --dim refers to
		}
		return in.Type.Shape
	}
	var cands []*ir.Value
	for _, in := range g.Inputs {
		if in.Const != nil || in.Type.Kind != ir.KindTensor || shapeOf(in).Rank() < 1 {
			continue
		}
		cands = append(cands, in)
	}
	var pick []*ir.Value
	for _, in := range cands {
		if !shapeOf(in).Dims[0].IsConcrete() {
			pick = append(pick, in)
		}
	}
	if len(pick) == 0 && len(cands) > 0 {
		d0 := shapeOf(cands[0]).Dims[0]
		for _, in := range cands {
			if shapeOf(in).Dims[0] == d0 {
				pick = append(pick, in)
			}
		}
	}
	for _, in := range pick {
		if _, ok := out[in.Name]; ok {
			continue
		}
		s := shapeOf(in).Clone()
		s.Dims[0] = ir.D(batch)
		out[in.Name] = s
	}
	return out
}

// CheckBatch refuses a negative batch, and a batch > 0 that none of g's
// batch inputs (BatchInputs) is inferred at: the caller infers shapes
// with the batch first (pipeline.Infer with InferOptions.Batch, or
// ir.InferModel with BatchInputs as input shapes). A batch input the
// caller gave another shape on purpose may differ.
func CheckBatch(g *ir.Graph, batch int64) error {
	if batch < 0 {
		return fmt.Errorf("batch %d must be positive", batch)
	}
	if batch == 0 {
		return nil
	}
	want := BatchInputs(g, batch, nil)
	var first *ir.Value
	for _, in := range g.Inputs {
		if _, ok := want[in.Name]; !ok {
			continue
		}
		if s := in.Type.Shape; s.Rank() >= 1 && s.Dims[0].IsConcrete() && s.Dims[0].Val == batch {
			return nil
		}
		if first == nil {
			first = in
		}
	}
	if first == nil {
		return nil // no batch input: the batch is the caller's statement
	}
	return fmt.Errorf("no batch input is inferred at batch %d (%s is %s): infer the shapes with the batch first", batch, first.Name, first.Type)
}

func taskName(n *ir.Node) string { return ir.NodeLabel(n) }

// zeroTasks returns tasks resliced to n zeroed tasks when its storage
// holds them, else n new ones.
func zeroTasks(tasks []Task, n int) []Task {
	if cap(tasks) < n {
		return make([]Task, n)
	}
	tasks = tasks[:n]
	clear(tasks)
	return tasks
}

// buildForward sets the forward tasks of order's nodes (tasks[i] is
// order[i]'s, zeroed by the caller): every field but the estimate, the
// dependencies (ir.Deps' nodes, in its order) and the captured values
// included (in sc's storage when it holds them; sc keeps the storage for
// the next call). It writes no task's Est, which the estimates may be
// setting at the same time. With strict, it stops and returns false when
// order is not a topological order of g's nodes (a node ID out of range
// or twice, a producer in g, or a control-flow node's dependency, not
// before its consumer): what ir.Topo would put in order.
func buildForward(g *ir.Graph, order []*ir.Node, tasks []Task, sc *fwdScratch, strict bool) bool {
	// idx (by node ID) and mark (by task) share one scratch array
	ids := g.NumNodeIDs()
	buf := reuse(sc.idx, ids+len(order))
	sc.idx = buf
	idx, mark := buf[:ids], buf[ids:] // mark[j] == i+1: task i lists j already
	for i := range idx {
		idx[i] = -1
	}
	clear(mark)
	slab := sc.slab[:0]
	if cap(slab) < 2*len(order) {
		slab = make([]int32, 0, 2*len(order)) // one backing array for every task's deps
	}
	clear(sc.caps) // no stale value kept alive
	caps := sc.caps[:0]
	defer func() { sc.slab, sc.caps = slab, caps }()
	// placed reports whether a node of ID id is in order before the
	// current one
	placed := func(id int) bool { return id >= 0 && id < len(idx) && idx[id] >= 0 }
	for i, n := range order {
		inRange := n.ID >= 0 && n.ID < len(idx)
		if strict && (!inRange || idx[n.ID] >= 0) {
			return false
		}
		if inRange && !strict {
			idx[n.ID] = int32(i)
		}
		t := &tasks[i]
		t.Node, t.Phase = n, Forward
		t.cap0 = -1
		start := len(slab)
		add := func(p *ir.Node) {
			if p == nil || p.Graph != g || p.ID < 0 || p.ID >= len(idx) || idx[p.ID] < 0 {
				return
			}
			j := idx[p.ID]
			if mark[j] == int32(i+1) {
				return
			}
			mark[j] = int32(i + 1)
			slab = append(slab, j)
		}
		// the producers in g of the inputs, then of the values the
		// subgraphs capture, each once (ir.Deps, without its list)
		unplaced := false
		dep := func(v *ir.Value) {
			if v == nil {
				return
			}
			if p := v.Producer; strict && p != nil && p.Graph == g && !placed(p.ID) {
				unplaced = true
			}
			add(v.Producer)
		}
		for _, v := range n.Inputs {
			dep(v)
		}
		if n.HasSubgraphs() {
			lo := len(caps)
			n.EachCaptured(func(v *ir.Value) {
				dep(v)
				caps = append(caps, v)
			})
			t.cap0, t.ncap = int32(lo), int32(len(caps)-lo)
		}
		if unplaced {
			return false
		}
		t.dep0, t.ndep = int32(start), int32(len(slab)-start)
		if strict {
			idx[n.ID] = int32(i) // after its dependencies: none may be itself
		}
	}
	return true
}

// appendTraining adds the backward pass in reverse order and the optimizer
// update, their estimates in tab.
func appendTraining(g *ir.Graph, fwd []Task, cm *cost.Model, res *Result, tab *estimates) []Task {
	nf := len(fwd)
	pos := make(map[*ir.Node]int32, nf)
	for i := range fwd {
		pos[fwd[i].Node] = int32(i)
	}
	var lossDeps []int32
	for i := range fwd {
		for _, o := range fwd[i].Node.Outputs {
			if o != nil && g.IsOutput(o) {
				lossDeps = append(lossDeps, int32(i))
				break
			}
		}
	}
	tasks := append(fwd, make([]Task, 0, nf+1)...)
	bwdOf := make([]int32, nf) // forward index -> backward task index
	for i := nf - 1; i >= 0; i-- {
		f := &tasks[i]
		b := Task{Node: f.Node, Phase: Backward, cap0: -1}
		k := 1.0
		if f.Est.WeightBytes > 0 && (f.Est.Class.Matrix() || f.Est.Class == cost.Normalization || f.Est.Class == cost.Fused) {
			k = 2 // gradient w.r.t. the input and w.r.t. the weights
		}
		b.Est = tab.intern(scale(*f.Est, k))
		consumers := 0
		deps := res.fwd.slab // the backward tasks' lists follow the forward ones'
		b.dep0 = int32(len(deps))
		for _, o := range f.Node.Outputs {
			if o == nil {
				continue
			}
			for _, u := range o.Uses {
				top := topLevel(g, u.Node)
				if top == nil {
					continue
				}
				if j, ok := pos[top]; ok && int(j) > i {
					deps = append(deps, bwdOf[j])
					consumers++
				}
			}
		}
		if consumers == 0 {
			deps = append(deps, lossDeps...)
		}
		deps = append(deps, int32(i))
		b.ndep = int32(len(deps)) - b.dep0
		res.fwd.slab = deps
		bwdOf[i] = int32(len(tasks))
		tasks = append(tasks, b)
	}
	// Adam: read w, g, m, v; write w, m, v. Moments in float32.
	var wBytes, wElems float64
	for _, v := range g.Initializers {
		if v.Const != nil && v.Const.DType.IsFloat() {
			if n, ok := v.Const.NumElements(); ok {
				wElems += float64(n)
				wBytes += float64(v.Const.DType.StorageBytes(n))
			}
		}
	}
	res.OptimizerBytes = 8 * wElems
	opt := Task{Phase: Optimizer, cap0: -1}
	oe := cm.Time(cost.Cost{Class: cost.Elementwise, FLOPs: 12 * wElems, Bytes: 3*wBytes + 16*wElems, Kernels: 1, DType: ir.Float32})
	if wElems == 0 {
		oe = cost.Estimate{Cost: cost.Cost{Class: cost.Free}, Bound: cost.BoundFree}
	}
	opt.Est = tab.intern(&oe)
	deps := res.fwd.slab
	opt.dep0 = int32(len(deps))
	for i := nf; i < len(tasks); i++ {
		deps = append(deps, int32(i))
	}
	opt.ndep = int32(len(deps)) - opt.dep0
	res.fwd.slab = deps
	return append(tasks, opt)
}

// scale returns a copy of e with its work and time multiplied by k.
func scale(e cost.Estimate, k float64) *cost.Estimate {
	e.FLOPs *= k
	e.Bytes *= k
	e.Kernels = int64(math.Round(float64(e.Kernels) * k))
	e.ScaleTimes(k)
	e.Work = nil
	return &e
}

// topLevel returns the ancestor of n that is a node of g (n itself for a
// node of g; the If/Loop/Scan holding it for a nested node).
func topLevel(g *ir.Graph, n *ir.Node) *ir.Node {
	for depth := 0; n != nil && depth < 64; depth++ {
		if n.Graph == g {
			return n
		}
		if n.Graph == nil {
			return nil
		}
		n = n.Graph.ParentNode
	}
	return nil
}

func unknownWarnings(res *Result) []string {
	var names []string
	for i := range res.Tasks {
		t := &res.Tasks[i]
		if t.Est.Unknown && t.Phase != Backward {
			res.UnknownNodes++
			if len(names) < maxListed {
				names = append(names, fmt.Sprintf("%s (%s): %s", t.Name(), t.Op(), t.Est.Why))
			}
		}
	}
	if res.UnknownNodes == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("%d node(s) have unknown cost and count only their launch overhead: the predicted time is a lower bound", res.UnknownNodes)}
	for _, n := range names {
		out = append(out, "unknown cost: "+n)
	}
	if res.UnknownNodes > maxListed {
		out = append(out, fmt.Sprintf("unknown cost: ... and %d more", res.UnknownNodes-maxListed))
	}
	return out
}

// batchAsGiven states that the batch is the model's, and the shapes the
// caller gave (named by its settings, when it names them).
func batchAsGiven(shapes string) string {
	if shapes == "" {
		return "batch as the model and the given shapes give it"
	}
	return "batch as the model (and " + shapes + ") give it"
}

func assumptions(res *Result, cm *cost.Model, h *hw.Hardware, opt Options) []string {
	a := cm.Assumptions()
	a = append(a, fmt.Sprintf("mode %s, %d device stream(s)", opt.Mode, opt.Streams))
	if h.Kind == "cpu" {
		a = append(a, "cpu: nodes run synchronously on the issuing thread (dispatch, then the kernel)")
	} else {
		a = append(a, "one host thread issues kernels in order, asynchronously: a kernel starts when issued, its inputs are ready and its stream is free")
	}
	if opt.Batch > 0 {
		a = append(a, fmt.Sprintf("batch %d: dim 0 of the batch inputs (symbolic dim 0, else dim 0 equal to the first input's) set to %d before shape inference", opt.Batch, opt.Batch))
	} else {
		a = append(a, batchAsGiven(opt.Cost.Settings.Shapes))
	}
	if opt.Mode == Train {
		a = append(a, "training: backward = 2x forward cost for ops with weights (input and weight gradients), 1x otherwise, in reverse order; activations live until their gradient is computed; Adam update as one fused kernel, moments in float32 (8 bytes per parameter)")
	}
	a = append(a, "memory: weights resident; activations allocated when their producer starts and freed when their last consumer ends; views (Reshape, Squeeze, ...) alias their input")
	a = append(a, cm.Notes()...)
	return a
}

// topGaps keeps the n longest gaps seen so far, longest first (ties by
// start, then by the order they were added: what a stable sort of all of
// them would leave in its first n places), without holding the others: a
// model of 100k nodes has about as many gaps, and a stable sort of them
// all was ~25 ms per run. top stays nil until a gap is added.
type topGaps struct {
	n   int
	top []Gap
	// lastNs is gapNs of the last kept gap once n are kept: most gaps are
	// turned down by comparing with it alone
	lastNs float64
}

// gapNs is g's length in whole nanoseconds (rounding noise ignored).
func gapNs(g Gap) float64 { return math.Round((g.End - g.Start) * 1e9) }

// add offers g, the latest gap: kept when fewer than n are kept or when it
// comes before the last kept one.
func (t *topGaps) add(g Gap) {
	before := func(a, b Gap) bool { // a is listed before b
		da, db := gapNs(a), gapNs(b)
		if da != db {
			return da > db
		}
		return a.Start < b.Start
	}
	if t.n <= 0 {
		return
	}
	if len(t.top) == t.n {
		// !before(g, last), with last's length kept
		if d := gapNs(g); !(d > t.lastNs || d == t.lastNs && g.Start < t.top[t.n-1].Start) {
			return // a stable sort puts it after the kept ones
		}
	}
	i := sort.Search(len(t.top), func(i int) bool { return before(g, t.top[i]) })
	if len(t.top) < t.n {
		if t.top == nil {
			t.top = make([]Gap, 0, t.n)
		}
		t.top = append(t.top, Gap{})
	}
	copy(t.top[i+1:], t.top[i:len(t.top)-1])
	t.top[i] = g
	if len(t.top) == t.n {
		t.lastNs = gapNs(t.top[t.n-1])
	}
}
