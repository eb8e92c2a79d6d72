package cost

// This file implements the estimator: node -> Cost -> time on a
// hw.Hardware, and the composite rules (control flow bodies, model-local
// functions, fused kernels).

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// DefaultTrip is the trip count assumed for a Loop whose trip count the
// model does not fix (override with Options.Trip, the --trip flag).
const DefaultTrip = 10

// maxDepth bounds recursion through nested bodies and function calls.
const maxDepth = 32

// Options steer the estimator.
type Options struct {
	TF32  bool     // run float32 matrix ops on TF32 tensor cores
	Trip  int64    // trip count for loops without a static one (0: DefaultTrip)
	DType ir.DType // cost every float tensor as this type (Undefined: as the model says)
	// NoFold runs every node, as a runtime with graph optimizations
	// disabled does: nodes whose outputs are known before running
	// (constants, shape arithmetic, deterministic ops of constant inputs)
	// are costed instead of folded at load time.
	NoFold bool
	// Branch says how an If whose condition is not known before the run
	// is costed: BranchAuto (the default, ""), BranchMean or BranchMax.
	Branch Branch
	// Settings names the caller's settings of TF32, Trip and DType, for
	// the assumptions that rest on them to say what to change (a command
	// sets its flags, "--trip"); empty names add nothing.
	Settings Settings
}

// Settings are the names a caller gives its settings of Options' values.
type Settings struct {
	TF32, Trip, DType, Branch string
	// Shapes names how the caller gives input shapes ("--dim / --input"),
	// for the simulator's statement of the batch.
	Shapes string
}

// Branch is the rule for an If whose condition is not known before the
// run (one the inputs decide): a run takes one branch, which one the cost
// model cannot know.
type Branch string

// Branch rules.
const (
	// BranchAuto costs a gate by its pass-through branch and any other
	// such If as BranchMean does. A gate is an If whose condition is
	// computed from tensor values (no Shape or Size on its way) and one
	// of whose branches only passes values through (Identity nodes or
	// none): a second stage run only when a first one asks for it (a
	// wake-word head's verifier, an early exit), which by design most
	// runs skip.
	BranchAuto Branch = "auto"
	// BranchMean costs such an If as the mean of its two branches: the
	// expected time of a run whose branches are equally likely, between
	// the two, so that the error is at most half their difference.
	BranchMean Branch = "mean"
	// BranchMax costs it as its costlier branch: a bound, for latency
	// targets that must hold on every run.
	BranchMax Branch = "max"
)

// ParseBranch reads a Branch ("" is BranchAuto).
func ParseBranch(s string) (Branch, error) {
	switch Branch(s) {
	case "", BranchAuto:
		return BranchAuto, nil
	case BranchMean:
		return BranchMean, nil
	case BranchMax:
		return BranchMax, nil
	}
	return "", fmt.Errorf("%q: want auto, mean or max", s)
}

// hint is " (name)", or "" without a name.
func hint(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}

// Bound says what limits a node's time.
type Bound string

// Bounds.
const (
	BoundCompute  Bound = "compute"
	BoundMemory   Bound = "memory"
	BoundOverhead Bound = "overhead" // launch / dispatch / fixed kernel time dominate
	BoundFree     Bound = "free"     // no kernel
	BoundUnknown  Bound = "unknown"  // cost not known (shapes or op)
)

// Estimate is a node's cost with its predicted times (seconds).
type Estimate struct {
	Cost
	Unknown bool   // the cost could not be determined (Why says why)
	Why     string // reason for Unknown
	// Device time split: arithmetic, memory traffic and fixed per-kernel
	// time; DeviceS = max(ComputeS, MemoryS) + OverheadS for one kernel, the
	// sum of the members' DeviceS for a composite.
	ComputeS, MemoryS, OverheadS, DeviceS float64
	// HostS is the host time to issue the node's kernels (launch +
	// dispatch, per kernel).
	HostS float64
	Bound Bound
	Math  string // peak used: "bf16", "fp32", ... ("" for free ops)
	// Occupancy is the fraction of the device's SMs the kernel keeps busy
	// (1 for a kernel of a full wave or more); kernels on different
	// streams overlap only while their occupancies fit in one device.
	Occupancy float64
	// BranchLessS and BranchMoreS say how much less and more time
	// (device + host, seconds) the node takes than estimated when the If
	// nodes in it whose inputs decide the branch take their cheaper or
	// their costlier branch (an If so costed, or a body holding one); 0
	// elsewhere.
	BranchLessS, BranchMoreS float64
}

// Model estimates node costs on one piece of hardware.
type Model struct {
	HW  *hw.Hardware
	IR  *ir.Model // for model-local functions and opsets; may be nil
	Opt Options

	notes []string
	seen  map[string]bool
	// weights is the model's float weight bytes (weightsFromMemory),
	// once weightsKnown
	weights      float64 // the model's float weights, bytes (weightsFromMemory)
	miss         float64 // the share of them the cache does not keep
	dram         float64 // the share of them the L3 does not keep either (hw l3_mb)
	weightsKnown bool
	stallNoted   bool // the weight_stream_stall assumption is in notes
	depth        int
	ctxs         [maxDepth]Ctx
}

// New returns an estimator for h.
func New(h *hw.Hardware, m *ir.Model, opt Options) *Model {
	if opt.Trip <= 0 {
		opt.Trip = DefaultTrip
	}
	return &Model{HW: h, IR: m, Opt: opt, seen: map[string]bool{}}
}

// Reset makes m what New(h, ir, opt) returns, keeping its allocations: for
// a caller that estimates many small models in turn (a calibration fit
// costs every suite model at every step; a Model is 9.4 KB, mostly contexts,
// that New would allocate and the collector scan each time).
func (m *Model) Reset(h *hw.Hardware, ir *ir.Model, opt Options) {
	if opt.Trip <= 0 {
		opt.Trip = DefaultTrip
	}
	seen, notes := m.seen, m.notes[:0]
	clear(seen)
	if seen == nil {
		seen = map[string]bool{}
	}
	*m = Model{HW: h, IR: ir, Opt: opt, seen: seen, notes: notes}
}

// Notes returns the distinct assumptions and fallbacks the estimates so far
// rested on (peak fallbacks, assumed trip counts, generic costing), sorted.
func (m *Model) Notes() []string {
	out := append([]string(nil), m.notes...)
	sort.Strings(out)
	return out
}

func (m *Model) note(s string) {
	if s != "" && !m.seen[s] {
		m.seen[s] = true
		m.notes = append(m.notes, s)
	}
}

func (m *Model) dtype(dt ir.DType) ir.DType {
	if m.Opt.DType != ir.Undefined && dt.IsFloat() {
		return m.Opt.DType
	}
	return dt
}

func (m *Model) valueBytes(v *ir.Value) (float64, error) {
	if v == nil {
		return 0, nil
	}
	if v.Type.Kind != ir.KindTensor {
		if v.Type.Kind == ir.KindUnknown {
			return 0, fmt.Errorf("type of %q is unknown", v.Name)
		}
		return 0, fmt.Errorf("%q is a %s, its size is unknown", v.Name, v.Type.String())
	}
	n, ok := v.Type.Shape.NumElements()
	if !ok {
		return 0, fmt.Errorf("shape of %q is %s", v.Name, v.Type.String())
	}
	dt := m.dtype(v.Type.DType)
	if dt == ir.Float16 && m.HW.FP16Casts {
		dt = ir.Float32 // computed in fp32 after the runtime's casts
	}
	b := dt.StorageBytes(n)
	if b < 0 {
		return 0, fmt.Errorf("%q has element type %s of no fixed size", v.Name, v.Type.DType)
	}
	return float64(b), nil
}

// Node estimates one node.
func (m *Model) Node(n *ir.Node) Estimate {
	if m.depth >= maxDepth {
		return m.unknown(Other, fmt.Sprintf("bodies nested deeper than %d", maxDepth))
	}
	m.depth++
	defer func() { m.depth-- }()
	if body := ir.FusedBody(n); body != nil {
		return m.fused(n, body)
	}
	if !m.Opt.NoFold && folded(n) {
		m.note(foldedNote)
		return Estimate{Cost: Cost{Class: Free, Note: foldedNote}, Bound: BoundFree}
	}
	if e, ok := registry()[n.Key()]; ok {
		c := &m.ctxs[m.depth-1] // one context per nesting level, reused
		*c = Ctx{Node: n, Class: e.class, m: m}
		cost, err := safeCall(e.fn, c)
		if err != nil {
			return m.unknown(e.class, err.Error())
		}
		if cost.Class == "" {
			cost.Class = e.class
		}
		if cost.Class == Control {
			// control-flow functions return their estimate through the
			// context; the runtime dispatches the node itself too
			e := c.composite
			e.HostS += m.HW.DispatchUs * 1e-6
			return e
		}
		cost.WeightBytes = m.weightBytes(n)
		if cost.Op == "" {
			cost.Op = OpKey(n)
		}
		m.note(cost.Note)
		e := m.Time(cost)
		if cost.Class == Free && !n.Is(ir.OpConstant) {
			// no kernel, but the runtime still dispatches the node
			e.HostS = (m.HW.DispatchUs + m.freeNodeUs(n)) * 1e-6
		}
		e.HostS += m.allocS(n, e)
		if m.HW.FP16Casts && e.Kernels > 0 && !n.Is(ir.OpCast) {
			m.addCasts(n, &e)
		}
		return e
	}
	if m.IR != nil {
		if f := m.IR.Function(n.Domain, n.Op); f != nil && f.Body != nil {
			e := m.sumBody(f.Body, 1)
			e.Note = "function " + f.Name + ": sum of its body's nodes"
			return e
		}
	}
	if !ir.Inferable(n.Domain, n.Op) {
		return m.unknown(Other, "opaque operator "+n.QualifiedOp()+": no cost model")
	}
	// A known op without a cost function: cost its data movement as one
	// streaming pass, in the elementwise class (the cheapest kernel a
	// runtime has: a data-movement class fitted on gathers and resizes
	// would charge their fixed cost to every small unmodelled op).
	c := &Ctx{Node: n, Class: Elementwise, m: m}
	cost, err := c.Simple(0)
	if err != nil {
		return m.unknown(Other, "no cost model for "+n.QualifiedOp()+" and "+err.Error())
	}
	cost.Note = "no cost model for " + n.QualifiedOp() + ": costed as a memory-bound copy of its inputs and outputs"
	m.note(cost.Note)
	e := m.Time(cost)
	e.HostS += m.allocS(n, e)
	return e
}

const castNote = "fp16 ops run in fp32 on this hardware: the runtime casts fp16 weights, graph inputs and graph outputs (one Cast kernel each)"

// addCasts adds to e the Casts a runtime without half-precision kernels
// runs around n (hw fp16_casts): one per fp16 weight or graph input n is
// the first to read (weights only when every node runs: otherwise the cast
// of a constant folds at load time), one per fp16 graph output n writes.
func (m *Model) addCasts(n *ir.Node, e *Estimate) {
	var elems []float64
	half := func(v *ir.Value) bool {
		return v != nil && v.Type.Kind == ir.KindTensor && m.dtype(v.Type.DType) == ir.Float16
	}
	for _, v := range n.Inputs {
		if !half(v) || v.Producer != nil && !v.Producer.Is(ir.OpConstant) || len(v.Uses) == 0 || v.Uses[0].Node != n {
			continue
		}
		if v.Const != nil || v.Producer != nil {
			if !m.Opt.NoFold {
				continue
			}
		} else if n.Graph != nil && n.Graph.Parent != nil {
			continue // a body's formal input: not a graph input of the run
		}
		if c, ok := v.Type.Shape.NumElements(); ok {
			elems = append(elems, float64(c))
		}
	}
	for _, v := range n.Outputs {
		if half(v) && n.Graph != nil && n.Graph.Parent == nil && n.Graph.IsOutput(v) {
			if c, ok := v.Type.Shape.NumElements(); ok {
				elems = append(elems, float64(c))
			}
		}
	}
	for _, c := range elems {
		ce := m.Time(Cost{Class: Elementwise, Op: "Cast", Bytes: 6 * c, Kernels: 1, DType: ir.Float32})
		e.DeviceS += ce.DeviceS
		e.MemoryS += ce.MemoryS
		e.OverheadS += ce.OverheadS
		e.HostS += ce.HostS
		e.Kernels++
		e.Bytes += 6 * c
	}
	if len(elems) > 0 {
		m.note(castNote)
	}
}

// OpKey is the key of n's op in hw.Efficiency.Ops: the op type,
// domain-qualified outside ai.onnx.
func OpKey(n *ir.Node) string {
	return n.Key().String()
}

// RunS is the host time of one run outside its nodes: before the first
// node, the runtime's per-run overhead (binding inputs); after the last,
// handing the graph outputs back to the caller (hw output_us_per_mb per MB
// of outputs).
func (m *Model) RunS(g *ir.Graph) (before, after float64) {
	h := m.HW
	before = h.RunOverheadUs * 1e-6
	if g != nil && (h.InputUs > 0 || h.OutputUs > 0) {
		in := 0
		for _, v := range g.Inputs {
			if v.Const == nil { // an initializer listed as an input is not bound
				in++
			}
		}
		before += float64(in) * h.InputUs * 1e-6
		after += float64(len(g.Outputs)) * h.OutputUs * 1e-6
	}
	if h.InputUsPerMB > 0 && g != nil {
		var b float64
		for _, v := range g.Inputs {
			if v.Const != nil {
				continue
			}
			if x, err := m.valueBytes(v); err == nil {
				b += x
			}
		}
		before += b / 1e6 * h.InputUsPerMB * 1e-6
	}
	if h.OutputUsPerMB > 0 && g != nil {
		var b float64
		for _, o := range g.Outputs {
			if v, err := m.valueBytes(o); err == nil {
				b += v
			}
		}
		after += b / 1e6 * h.OutputUsPerMB * 1e-6
	}
	return before, after
}

// freeNodeUs is the host time beyond dispatch of a node without a kernel:
// hw shape_node_us for a node that reads only its input's shape (Shape,
// Size) when set, else free_node_us.
func (m *Model) freeNodeUs(n *ir.Node) float64 {
	if m.HW.ShapeNodeUs > 0 && n.Domain == "" && (n.Op == "Shape" || n.Op == "Size") {
		return m.HW.ShapeNodeUs
	}
	return m.HW.FreeNodeUs
}

// allocS is the host time to allocate the outputs of a node that launches
// kernels (hw alloc_us_per_mb); views and free nodes allocate nothing.
func (m *Model) allocS(n *ir.Node, e Estimate) float64 {
	if m.HW.AllocUsPerMB <= 0 || e.Kernels == 0 || e.Class == Free {
		return 0
	}
	var b float64
	for _, o := range n.Outputs {
		if v, err := m.valueBytes(o); err == nil {
			b += math.Max(0, v-m.HW.AllocMinMB*1e6)
		}
	}
	return b / 1e6 * m.HW.AllocUsPerMB * 1e-6
}

const foldedNote = "nodes whose outputs are known before running (constants, shape arithmetic, deterministic ops of constant inputs such as ConstantOfShape of a constant shape) are folded at load time: no kernel"

// folded reports whether every output of n is known before running: a
// constant or shape-arithmetic value that a runtime folds away.
func folded(n *ir.Node) bool {
	if len(n.Outputs) == 0 || n.HasSubgraphs() {
		return false
	}
	known := true
	for _, o := range n.Outputs {
		if o != nil && o.Const == nil && o.Known() == nil {
			known = false
		}
	}
	return known || loadTimeConstant(n)
}

// loadTimeConstant reports whether every input of n is constant data
// (initializers, Constant outputs) and n is deterministic, so a runtime
// folds it once when it loads the model (ONNX Runtime's constant folding
// does) rather than launching it every step: ConstantOfShape of a constant
// shape is the common case (some exporters and the ONNX "light" zoo models
// build their weights that way). Nodes producing graph outputs still run.
func loadTimeConstant(n *ir.Node) bool {
	if len(n.Inputs) == 0 || n.Domain != "" {
		return false
	}
	switch n.Op {
	case "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial", "Dropout":
		return false
	}
	for _, in := range n.Inputs {
		if in != nil && in.Const == nil {
			return false
		}
	}
	for _, o := range n.Outputs {
		if o != nil && n.Graph != nil && n.Graph.IsOutput(o) {
			return false // a graph output is still produced by the run
		}
	}
	return true
}

func safeCall(fn Func, c *Ctx) (cost Cost, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cost model failed: %v", r)
		}
	}()
	return fn(c)
}

func (m *Model) weightBytes(n *ir.Node) float64 {
	var w float64
	for _, v := range n.Inputs {
		if v != nil && v.Const != nil && v.Type.DType.IsFloat() {
			if b, err := m.valueBytes(v); err == nil {
				w += b
			}
		}
	}
	return w
}

// unknown is the explicit unknown cost: one kernel whose work is not
// known, so only its fixed overheads are counted.
func (m *Model) unknown(class Class, why string) Estimate {
	h := m.HW
	e := Estimate{Cost: Cost{Class: class, Kernels: 1}, Unknown: true, Why: why, Bound: BoundUnknown, Occupancy: 1}
	e.OverheadS = (h.KernelOverheadUs + h.Efficiency.Class(string(class)).OverheadUs) * 1e-6
	e.DeviceS = e.OverheadS
	e.HostS = (h.LaunchUs + h.DispatchUs) * 1e-6
	return e
}

// Waves returns the fraction of the device a GEMM-like kernel of tiles
// output tiles keeps busy: tiles / (waves x slots).
func (m *Model) Waves(tiles float64) float64 {
	if tiles <= 0 {
		return 1
	}
	slots := float64(m.HW.SMs * m.HW.Efficiency.BlocksPerSM)
	return tiles / (math.Ceil(tiles/slots) * slots)
}

// Fill returns the fraction of peak bandwidth a kernel moving bytes can
// reach.
func (m *Model) Fill(bytes float64) float64 {
	e := m.HW.Efficiency
	if bytes <= 0 {
		return 1
	}
	blocks := math.Ceil(bytes / float64(e.MemBytesPerBlock))
	return math.Min(1, blocks/float64(m.HW.SMs*e.MemBlocksPerSM))
}

// memS is the time to move bytes in each of kernels kernels at the
// fraction eff of the bandwidth: the part of one kernel's traffic that fits
// in the last-level cache moves at cache bandwidth (when the hardware
// gives one), the rest at memory bandwidth.
func (m *Model) memS(bytes, kernels, eff float64) float64 {
	h := m.HW
	if bytes <= 0 {
		return 0
	}
	k := math.Max(1, kernels)
	per := bytes / k
	fill := m.Fill(per)
	dram := h.MemoryBandwidthGBs * 1e9
	if h.CacheBandwidthGBs <= 0 || h.L2MB <= 0 {
		return bytes / (dram * eff * fill)
	}
	inCache := math.Min(per, h.L2MB*1e6)
	t := inCache/(h.CacheBandwidthGBs*1e9) + (per-inCache)/dram
	return k * t / (eff * fill)
}

// stagedS is the time of c's staging pass (im2col, accumulators) at the
// fraction eff of the cache bandwidth (memory bandwidth when the hardware
// gives no cache): libraries stage in cache-sized chunks.
func (m *Model) stagedS(c Cost, eff float64) float64 {
	if c.StagedBytes <= 0 {
		return 0
	}
	bw := m.HW.CacheBandwidthGBs
	if bw <= 0 {
		bw = m.HW.MemoryBandwidthGBs
	}
	return math.Min(c.StagedBytes, c.Bytes) / (bw * 1e9 * eff)
}

// extraCallsS is the fixed time of c's library calls beyond the first of
// each kernel (Cost.Steps), at the class overhead ce.
func extraCallsS(c Cost, ce hw.ClassEfficiency) float64 {
	if c.Steps <= 1 {
		return 0
	}
	per := ce.OverheadUs
	if ce.StepUs > 0 {
		per = ce.StepUs
	}
	return float64(c.Kernels) * float64(c.Steps-1) * per * 1e-6
}

// Time turns a Cost into an Estimate on the model's hardware.
func (m *Model) Time(c Cost) Estimate {
	h := m.HW
	e := Estimate{Cost: c}
	if c.Class == Free || c.Kernels == 0 {
		e.Bound = BoundFree
		return e
	}
	ce := m.efficiency(c.Op, string(c.Class))
	mode := hw.Vector
	if c.Class.Matrix() {
		mode = hw.Tensor
		if c.Unaligned {
			mode = hw.Vector
			m.note(fmt.Sprintf("%s runs matrix ops whose GEMM dimensions are not multiples of %d elements on the CUDA cores (tensor_core_align: cuBLAS before 11.0, cuDNN before 7.6.3)", h.Name, h.TensorCoreAlign))
		}
	}
	peak, used, note := h.PeakFLOPS(c.DType, mode, m.Opt.TF32)
	m.note(note)
	e.Math = used
	work := c.Work
	if work == nil && c.FLOPs > 0 {
		work = []Work{{FLOPs: c.FLOPs, Count: 1}}
	}
	fill := m.Fill(c.Bytes / float64(c.Kernels))
	slots := float64(h.SMs * h.Efficiency.BlocksPerSM)
	tiled := 0.0
	for _, w := range work {
		if w.FLOPs <= 0 || w.Count <= 0 {
			continue
		}
		util := m.Waves(w.Tiles)
		if w.Tiles <= 0 {
			util = fill
		} else {
			tiled = math.Max(tiled, math.Min(1, w.Tiles/slots))
		}
		if r := h.GEMMHalfRows; r > 0 && w.Rows > 0 {
			util *= w.Rows / (w.Rows + r)
		}
		if l := h.GEMMColLanes; l > 0 && w.Cols > 0 {
			util *= w.Cols / (math.Ceil(w.Cols/l) * l)
		}
		e.ComputeS += w.Count * w.FLOPs / (peak * ce.Compute * util)
	}
	e.Occupancy = fill
	if tiled > 0 {
		e.Occupancy = tiled // a tiled kernel occupies only the SMs its tiles run on
	}
	calls := float64(c.Kernels) * math.Max(float64(c.Steps), 1) // float: no int64 overflow on absurd shapes
	e.MemoryS = m.memS(c.Bytes-math.Min(math.Max(c.StagedBytes, 0), c.Bytes), calls, ce.Memory)
	stallS := 0.0
	if w, wd := m.weightsFromMemory(c); w > 0 { // weights the cache cannot keep between runs
		streamS := (w - wd) / (h.MemoryBandwidthGBs * 1e9 * ce.Memory * fill)
		dramS := 0.0
		if wd > 0 {
			dramS = wd / (h.DRAMBandwidthGBs * 1e9)
		}
		e.MemoryS = m.memS(c.Bytes-math.Min(math.Max(c.StagedBytes, 0)+w, c.Bytes), calls, ce.Memory) + streamS + dramS
		// the part of the streaming the arithmetic does not hide (hw
		// weight_stream_stall; from DRAM, dram_stream_stall)
		if stallRows(work) {
			stallS = h.WeightStreamStall*math.Min(e.ComputeS, streamS) + h.DRAMStreamStall*math.Min(e.ComputeS, dramS)
		}
		if h.WeightStreamStall > 0 && stallS > 0 && !m.stallNoted {
			m.stallNoted = true
			m.note(fmt.Sprintf("%.0f%% of the shorter of a kernel's arithmetic and its streaming of the weights the cache does not keep adds to max(compute, memory) (weight_stream_stall)", 100*h.WeightStreamStall))
		}
	}
	e.OverheadS = float64(c.Kernels)*(h.KernelOverheadUs+ce.OverheadUs)*1e-6 + extraCallsS(c, ce)
	if c.Spans > 1 {
		e.OverheadS += c.Spans * h.BroadcastSpanUs * 1e-6
	}
	// staging (im2col) runs before the arithmetic: its time adds
	stagedS := m.stagedS(c, ce.Memory)
	work1 := math.Max(e.ComputeS, e.MemoryS) + stagedS + stallS
	e.MemoryS += stagedS + stallS
	e.DeviceS = work1 + e.OverheadS
	e.HostS = (float64(c.Kernels)*h.LaunchUs + h.DispatchUs) * 1e-6
	e.Bound = e.timeBound(work1)
	return e
}

// stallMinRows is the least rows of A per call for which a GEMM's
// streaming of weights past the cache stalls its arithmetic (hw
// weight_stream_stall): with fewer, the kernel is a matrix-vector product
// whose sequential reads of the weights the hardware prefetcher keeps
// ahead of (ORT 1.30, one thread, Intel Xeon VM: a 2048x2048 Gemm at 1, 2
// and 4 rows took 653, 642 and 648 us, the weights' streaming time, and
// at 8 rows 840 us; docs/calibration-protocol.md).
const stallMinRows = 8

// stallRows says whether a kernel's work can stall on its weights'
// streaming: any work but a GEMM of fewer than stallMinRows rows.
func stallRows(work []Work) bool {
	for _, w := range work {
		if w.Rows > 0 && w.Rows < stallMinRows {
			return false
		}
	}
	return true
}

// timeBound is what bounds an estimate whose kernel work (the larger of
// compute and memory time) is work: overhead when the fixed or host time
// is at least that, else compute or memory, whichever is longer.
func (e *Estimate) timeBound(work float64) Bound {
	switch {
	case math.Max(e.OverheadS, e.HostS) >= work:
		return BoundOverhead
	case e.ComputeS >= e.MemoryS:
		return BoundCompute
	}
	return BoundMemory
}

// ScaleTimes multiplies an estimate's compute, memory, overhead, device
// and host times by k.
func (e *Estimate) ScaleTimes(k float64) {
	e.ComputeS *= k
	e.MemoryS *= k
	e.OverheadS *= k
	e.DeviceS *= k
	e.HostS *= k
}

// sumBody estimates a body run trip times: the sum of its nodes.
func (m *Model) sumBody(g *ir.Graph, trip float64) Estimate {
	var s Estimate
	s.Class = Control
	s.Occupancy = 1
	var byBound = map[Bound]float64{}
	for _, n := range g.Nodes {
		e := m.Node(n)
		s.FLOPs += e.FLOPs
		s.Bytes += e.Bytes
		s.Kernels += e.Kernels
		s.ComputeS += e.ComputeS
		s.MemoryS += e.MemoryS
		s.OverheadS += e.OverheadS
		s.DeviceS += e.DeviceS
		s.HostS += e.HostS
		s.WeightBytes += e.WeightBytes
		s.BranchLessS += e.BranchLessS
		s.BranchMoreS += e.BranchMoreS
		if e.Unknown && !s.Unknown {
			s.Unknown = true
			// a body calling itself names its node once, not once a level
			s.Why = "body node " + ir.NodeLabel(n) + ": " + e.Why
			if strings.HasPrefix(e.Why, "body node "+ir.NodeLabel(n)+": ") {
				s.Why = e.Why
			}
		}
		byBound[e.Bound] += math.Max(e.DeviceS, e.HostS)
		if s.DType == ir.Undefined && e.Class.Matrix() {
			s.DType = e.DType
		}
	}
	s.FLOPs *= trip
	s.Bytes *= trip
	s.Kernels = int64(float64(s.Kernels) * trip)
	s.ScaleTimes(trip)
	s.BranchLessS *= trip
	s.BranchMoreS *= trip
	s.Bound = BoundFree
	best := 0.0
	for _, b := range []Bound{BoundCompute, BoundMemory, BoundOverhead} {
		if byBound[b] > best {
			best, s.Bound = byBound[b], b
		}
	}
	if s.Unknown {
		s.Bound = BoundUnknown
	}
	return s
}

// fused estimates a wolong fused kernel: one launch; FLOPs and arithmetic
// time are the sum of its body's; bytes are only the node's external
// inputs and outputs (intermediates stay on chip).
func (m *Model) fused(n *ir.Node, body *ir.Graph) Estimate {
	h := m.HW
	var e Estimate
	e.Class = Fused
	e.Kernels = 1
	e.Occupancy = 1
	dominant, domTime, domOp := Class(""), -1.0, ""
	// work fusion cannot remove: a member's staging pass (im2col) and its
	// library calls beyond the first
	var innerS float64
	var stages int64 // the kernels the members would launch on their own
	for _, bn := range body.Nodes {
		be := m.Node(bn)
		stages += be.Kernels
		e.FLOPs += be.FLOPs
		e.ComputeS += be.ComputeS
		if be.Kernels > 0 {
			ce := m.efficiency(be.Op, string(be.Class))
			innerS += m.stagedS(be.Cost, ce.Memory) + extraCallsS(be.Cost, ce)
		}
		if be.Unknown && !e.Unknown {
			e.Unknown = true
			e.Why = fmt.Sprintf("fused member %s: %s", ir.NodeLabel(bn), be.Why)
		}
		t := math.Max(be.ComputeS, be.MemoryS)
		if be.Class.Matrix() && !dominant.Matrix() || (be.Class.Matrix() == dominant.Matrix() && t > domTime) {
			dominant, domTime, domOp = be.Class, t, be.Op
			e.DType, e.Math = be.DType, be.Math
		}
	}
	if dominant == "" || dominant == Free || dominant == Control || dominant == Fused {
		dominant, domOp = Elementwise, ""
	}
	ext := func(vs, formal []*ir.Value) {
		for i, v := range vs {
			if v == nil {
				continue
			}
			b, err := m.valueBytes(v)
			if err != nil && i < len(formal) {
				b, err = m.valueBytes(formal[i])
			}
			if err != nil {
				if !e.Unknown {
					e.Unknown, e.Why = true, "fused kernel: "+err.Error()
				}
				continue
			}
			e.Bytes += b
		}
	}
	ext(n.Inputs, body.Inputs)
	ext(n.Outputs, body.Outputs)
	e.WeightBytes = m.weightBytes(n)
	ce := m.efficiency(domOp, string(dominant)) // the dominant member's kernel
	e.MemoryS = m.memS(e.Bytes, 1, ce.Memory)
	e.OverheadS = (h.KernelOverheadUs + ce.OverheadUs) * 1e-6
	if n.Op == "PersistentRNN" && stages > 1 {
		// A persistent kernel (optimize's persistent and persistent_loop
		// passes) synchronizes its thread blocks between dependent stages
		// (the steps of the recurrence, and the kernels of a step): one
		// grid-wide barrier each, costed at the device's fixed per-kernel
		// time (a cooperative-groups grid sync takes 1.5 to 2.5 us on
		// V100/P100: Zhang et al., "A Study of Single and Multi-device
		// Synchronization Methods in Nvidia GPUs", IPDPS 2020).
		e.OverheadS += float64(stages-1) * h.KernelOverheadUs * 1e-6
	}
	w := math.Max(e.ComputeS, e.MemoryS) + innerS
	e.MemoryS += innerS
	e.DeviceS = w + e.OverheadS
	e.HostS = (h.LaunchUs + h.DispatchUs) * 1e-6
	e.Bound = e.timeBound(w)
	if e.Unknown {
		e.Bound = BoundUnknown
	}
	// concatenated, not fmt.Sprintf: this runs for every fused node in
	// every simulation (the pass driver's predictions)
	e.Note = "fused kernel of " + strconv.Itoa(len(body.Nodes)) + " nodes (" + string(dominant) + "-class memory efficiency)"
	return e
}

func opNames(m map[string]hw.ClassEfficiency) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Assumptions lists, one per line, what every estimate of m assumes.
func (m *Model) Assumptions() []string {
	h := m.HW
	var a []string
	a = append(a, fmt.Sprintf("hardware %s: %s", h.Name, h.Description))
	if h.Fitted != nil {
		a = append(a, fmt.Sprintf("hardware %s: %s", h.Name, h.Fitted.Describe()))
	}
	if m.Opt.DType != ir.Undefined {
		a = append(a, fmt.Sprintf("every float tensor costed as %s%s", m.Opt.DType, hint(m.Opt.Settings.DType)))
		if as := h.RunsAs(m.Opt.DType, m.Opt.TF32); as != "" {
			a = append(a, as+": its tensors keep their size in memory, its matrix math runs at that unit's peak")
		}
	}
	if m.Opt.TF32 {
		a = append(a, "float32 matrix ops on TF32 tensor cores"+hint(m.Opt.Settings.TF32))
	} else {
		a = append(a, "float32 matrix ops on FP32 vector units (no TF32)")
	}
	var eff []string
	for _, c := range h.Efficiency.Classes() {
		eff = append(eff, fmt.Sprintf("%s %.2f/%.2f", c.Name, c.Eff.Compute, c.Eff.Memory))
	}
	a = append(a, "efficiency (compute/memory fraction of peak): "+strings.Join(eff, ", "))
	a = append(a, fmt.Sprintf("small kernels: GEMM tiles %dx%d, %d per SM over %d SMs (waves); bandwidth needs %d blocks of %d bytes per SM",
		h.Efficiency.TileM, h.Efficiency.TileN, h.Efficiency.BlocksPerSM, h.SMs, h.Efficiency.MemBlocksPerSM, h.Efficiency.MemBytesPerBlock))
	if r := h.RuntimeOrDefault(); r != nil {
		a = append(a, r.Describe(h.Runtime != nil))
	}
	a = append(a, fmt.Sprintf("launch %.1f us per kernel and dispatch %.1f us per executed node on one host thread, %.1f us fixed device time per kernel",
		h.LaunchUs, h.DispatchUs, h.KernelOverheadUs))
	if h.RunOverheadUs > 0 || h.AllocUsPerMB > 0 || h.OutputUsPerMB > 0 {
		a = append(a, fmt.Sprintf("host: %.3g us per inference run, %.3g us per MB of node outputs allocated, %.3g us per MB of graph outputs returned", h.RunOverheadUs, h.AllocUsPerMB, h.OutputUsPerMB))
	}
	if h.InputUs > 0 || h.OutputUs > 0 {
		a = append(a, fmt.Sprintf("host: %.3g us per graph input bound and %.3g us per graph output returned in each run", h.InputUs, h.OutputUs))
	}
	if h.InputUsPerMB > 0 {
		a = append(a, fmt.Sprintf("host: %.3g us per MB of graph inputs bound in each run", h.InputUsPerMB))
	}
	if h.ShapeNodeUs > 0 {
		a = append(a, fmt.Sprintf("nodes that read only a shape (Shape, Size) take %.2g us beyond dispatch", h.ShapeNodeUs))
	}
	if n := len(h.Efficiency.Ops); n > 0 {
		a = append(a, fmt.Sprintf("%d op types have efficiencies of their own (measured by calibration): %s", n, strings.Join(opNames(h.Efficiency.Ops), ", ")))
	}
	if h.SubgraphUs > 0 {
		a = append(a, fmt.Sprintf("each execution of a control-flow body (a Loop or Scan iteration, an If) takes %.2g us of host time to set up", h.SubgraphUs))
	}
	if h.FreeNodeUs > 0 {
		a = append(a, fmt.Sprintf("nodes without a kernel (views, shape queries) take %.1f us beyond dispatch", h.FreeNodeUs))
	}
	if h.CacheBandwidthGBs > 0 && h.L2MB > 0 {
		a = append(a, fmt.Sprintf("cache: up to %.3g MB of a kernel's traffic at %.4g GB/s, the rest at %.4g GB/s", h.L2MB, h.CacheBandwidthGBs, h.MemoryBandwidthGBs))
	}
	if h.ConvIm2col {
		a = append(a, "convolutions other than 1x1/stride 1/unpadded stage their input through an im2col buffer (written and read back before the GEMM)")
	}
	if r := h.GEMMHalfRows; r > 0 {
		a = append(a, fmt.Sprintf("a float GEMM (MatMul, Gemm, MatMulNBits) of M rows per call computes at M / (M + %.3g) of the speed of a large one (gemm_half_rows)", r))
	}
	if l := h.GEMMColLanes; l > 0 {
		a = append(a, fmt.Sprintf("a GEMM (and a convolution's, over its output positions) of N columns keeps N / (ceil(N/%g) x %g) of the kernel's vector lanes busy (gemm_col_lanes)", l, l))
	}
	if m.Opt.NoFold {
		a = append(a, "every node runs (no load-time folding of constant or shape-only nodes)")
	}
	a = append(a, fmt.Sprintf("loops without a static trip count run %d times%s", m.Opt.Trip, hint(m.Opt.Settings.Trip)))
	return a
}
