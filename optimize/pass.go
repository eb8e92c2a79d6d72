package optimize

// This file declares the pipeline: the pass table, its ordering
// constraints and the types a pass works with.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// Rewrite is one change a pass made: the nodes it replaced (by name), the
// nodes that replaced them (empty when they were deleted) and a one-line
// remark. Sep joins Before when printed: "+" for a fusion, "||" for a
// batching.
type Rewrite struct {
	Before []string `json:"before"`
	After  []string `json:"after"`
	Sep    string   `json:"-"`
	Remark string   `json:"remark"`
	// Graph is the subgraph the rewrite was made in, as a path of owner
	// nodes and attributes from the main graph ("If_3/then_branch",
	// "Loop_1/body/If_2/else_branch"); empty for the main graph.
	Graph string `json:"graph,omitempty"`
	// dropsOnly says the rewrite dropped initializers no node reads and
	// touched nothing else (dce's "unused initializers"): after a pass
	// whose rewrites all say so, the driver asks a DropPredictor.
	dropsOnly bool
}

// String prints the rewrite in the TensorRT manner:
// "Conv_3 + Relu_4 -> fused_conv_0  (remark)".
func (r Rewrite) String() string {
	sep := r.Sep
	if sep == "" {
		sep = ","
	}
	before := strings.Join(r.Before, " "+sep+" ")
	if sep == "," {
		before = strings.Join(r.Before, ", ")
	}
	after := strings.Join(r.After, ", ")
	if after == "" {
		after = "(removed)"
	}
	s := before + " -> " + after
	if r.Graph != "" {
		s = r.Graph + ": " + s
	}
	if r.Remark != "" {
		s += "  (" + r.Remark + ")"
	}
	return s
}

// PassFunc rewrites the model in place and reports what it changed.
//
// The pass contract: a pass receives a model that ir.Verify accepts, whose
// graphs list their nodes in topological order (every node after the
// producers of what it reads), and relies on that order instead of sorting
// again: walking nodesInOrder(g) visits producers first. It may leave the
// main graph's nodes in any acyclic order (new nodes are usually appended),
// because the driver restores the order after every pass that reports a
// rewrite; a pass that reports none must have changed nothing (the driver
// neither re-sorts nor predicts again after it, and checks the node list
// under Options.VerifyEach). A subgraph it builds (a fused body) it must
// build in order. It must leave the model
// well-formed: the driver runs ir.Verify after each pass under
// Options.VerifyEach (always on in tests).
type PassFunc func(c *Context) ([]Rewrite, error)

// Pass is one row of the pipeline.
type Pass struct {
	Name     string   // unique, in canonical form: lower case, words joined by '_' ("early_dce")
	Fn       PassFunc // the same function may appear under several names
	Level    int      // lowest -O level that runs it
	Required bool     // runs at every level and cannot be disabled
	Doc      string   // one line for --help and explain
	// NeedsPlacer: runs only when Options.Placer is set (--cluster).
	NeedsPlacer bool
	// ForORT: runs only when Options.Target is TargetORT (--target ort).
	ForORT bool
	// ControlFlow: runs only on models with If/Loop/Scan nodes (the
	// passes that rewrite nothing else; on other models Run neither runs
	// nor lists them, so their reports do not change).
	ControlFlow bool
	// MainOnly: runs on the main graph only, not inside If/Loop/Scan
	// bodies (the driver runs every other pass on each body first,
	// innermost first; see runPassAll).
	MainOnly bool
	// Needs names the ops a rewrite of this pass cannot do without
	// (needs.go): on a model that lacks them the driver skips the pass,
	// which reports no rewrite, as running it would. Nil: always runs.
	Needs opNeeds
	// Repeats names an earlier pass with the same function: when that one
	// ran, reported no rewrite and no pass has reported one since, the
	// model is as it left it, so this one would find nothing either and
	// the driver skips it (its result lists no rewrite, as running it
	// would).
	Repeats string
}

// passes is the pipeline, in order.
var passes = [...]Pass{
	{Name: "noop", Fn: noopElim, Level: 1, Doc: "remove Identity, Dropout (inference), same-type Cast, same-shape Reshape, inverse Transpose pairs"},
	{Name: "qdq", Fn: qdqElim, Level: 1, Needs: needAll(ir.OpQuantizeLinear, ir.OpDequantizeLinear), Doc: "remove DequantizeLinear -> Reshape/Transpose -> QuantizeLinear round trips with equal parameters"},
	{Name: "constfold", Fn: constFold, Level: 1, Doc: "evaluate nodes whose inputs are all constant (size-capped)"},
	{Name: "shapefold", Fn: shapeFold, Level: 1, Doc: "replace shape computations whose values inference knows by constants"},
	{Name: "branchfold", Fn: branchFold, Level: 1, ControlFlow: true, Doc: "inline the branch an If with a constant condition takes (a constant sample rate, a static shape test)"},
	{Name: "loophoist", Fn: loopHoist, Level: 1, ControlFlow: true, Doc: "move loop-invariant nodes (reading only captured values and constants) out of Loop/Scan bodies, to run once"},
	{Name: "loopunroll", Fn: loopUnroll, Level: 3, ControlFlow: true, Doc: "unroll Loops with a constant trip count and forward Scans of a static length (at most 16) that cannot stop early, when a trial of the passes after it predicts a gain"},
	{Name: "reshapechain", Fn: reshapeChain, Level: 1, Needs: needAny(ir.OpReshape, ir.OpFlatten, ir.OpSqueeze, ir.OpUnsqueeze), Doc: "collapse single-use chains of Reshape/Flatten/Squeeze/Unsqueeze into one Reshape to the static final shape"},
	{Name: "cse", Fn: cse, Level: 1, Doc: "merge nodes computing the same op of the same inputs"},
	{Name: "early_dce", Fn: dce, Level: 1, Doc: "delete nodes whose outputs are never used"},
	{Name: "bnfold", Fn: bnFold, Level: 2, Needs: needAll(ir.OpBatchNormalization, ir.OpConv), Doc: "fold inference BatchNormalization into the preceding Conv's weights"},
	{Name: "hbatch", Fn: hBatch, Level: 3, Doc: "batch sibling MatMul/Gemm/Conv sharing an input into one wider op + Split"},
	{Name: "tbatch", Fn: tBatch, Level: 3, Doc: "batch independent same-signature MatMuls ready together (across time steps) into one GEMM"},
	{Name: "late_cse", Fn: cse, Level: 3, Repeats: "cse", Doc: "merge duplicates the batching passes exposed"},
	{Name: "layernorm", Fn: layerNormFuse, Level: 2, Needs: needAll(ir.OpDiv, ir.OpSub, ir.OpSqrt, ir.OpReduceMean), Doc: "fuse the primitive LayerNorm pattern into one kernel"},
	{Name: "rmsnorm", Fn: rmsNormFuse, Level: 2, Needs: needAll(ir.OpSqrt, ir.OpReduceMean, ir.OpAdd), Doc: "fuse the primitive RMSNorm pattern into one kernel"},
	{Name: "gelu", Fn: geluFuse, Level: 2, Needs: needAny(ir.OpErf, ir.OpTanh), Doc: "fuse the erf and tanh forms of GELU into one kernel"},
	{Name: "silu", Fn: siluFuse, Level: 2, Needs: needAll(ir.OpSigmoid, ir.OpMul), Doc: "fuse x*sigmoid(x) (SiLU/Swish) into one kernel"},
	{Name: "attention", Fn: attentionFuse, Level: 2, Needs: needAll(ir.OpSoftmax, ir.OpMatMul), Doc: "fuse MatMul-Scale-Mask-Softmax-MatMul into one attention kernel"},
	{Name: "fuse", Fn: fuseOps, Level: 2, Doc: "group elementwise/injective chains, reductions and GEMM/Conv epilogues (post-dominator fusion)"},
	{Name: "persistent", Fn: persistentRNN, Level: 3, Doc: "run an unrolled recurrence's fused cells as one persistent kernel when its recurrent weight fits on chip"},
	{Name: "persistent_loop", Fn: persistentLoop, Level: 3, ControlFlow: true, Doc: "run a Loop/Scan recurrence (a rolled RNN cell) as one persistent kernel when its weights fit on chip and the cost model predicts a gain"},
	{Name: "ort", Fn: ortLower, Level: 0, Required: true, ForORT: true, Doc: "with --target ort: write each fused group ONNX Runtime has a fused operator for as that operator (FusedConv, FusedGemm, LayerNormalization, ...) and inline the rest into their members"},
	{Name: "rdma", Fn: rdmaPlace, Level: 3, NeedsPlacer: true, MainOnly: true, Doc: "with --cluster: tag nodes with their device and insert RDMA / copy transfer nodes on the edges a pipeline placement cuts"},
	{Name: "late_dce", Fn: dce, Level: 0, Required: true, Doc: "delete nodes and initializers left unused"},
}

// passOrder lists "a runs before b" constraints with the reason;
// TestPassOrder checks the table against it.
var passOrder = [...]struct{ a, b, why string }{
	{"noop", "cse", "removing Identity chains makes equal expressions share inputs"},
	{"qdq", "fuse", "the fuser would group the dequantize/quantize round trip instead of removing it"},
	{"constfold", "shapefold", "shape folding reads values that folding made constant"},
	{"noop", "reshapechain", "removing Identity between shape ops joins their chains"},
	{"constfold", "branchfold", "folding makes an If's condition constant"},
	{"shapefold", "branchfold", "shape folding resolves conditions on static dims (the sample rate, whether past state exists)"},
	{"branchfold", "loophoist", "an inlined branch inside a loop body exposes invariant nodes"},
	{"constfold", "loophoist", "a body node folded to a constant need not be hoisted"},
	{"loophoist", "cse", "hoisted nodes may duplicate the enclosing graph's"},
	{"loophoist", "fuse", "a hoisted node must leave the body before the body's nodes are grouped"},
	{"loophoist", "tbatch", "hoisted projections batch with the enclosing graph's"},
	{"loophoist", "loopunroll", "invariant nodes leave the body once rather than being copied per iteration"},
	{"branchfold", "loopunroll", "a branch folded inside the body is copied as straight-line code"},
	{"loopunroll", "cse", "the copies of a body repeat computations of the iteration-independent kind"},
	{"loopunroll", "tbatch", "time batching batches the per-step projections unrolling exposes"},
	{"loopunroll", "fuse", "fusion groups nodes across the unrolled iterations"},
	{"reshapechain", "cse", "collapsed chains make equal reshapes of one value look alike"},
	{"cse", "early_dce", "CSE leaves the duplicates dead"},
	{"bnfold", "fuse", "BatchNorm must be in the Conv weights before the Conv epilogue is fused"},
	{"hbatch", "tbatch", "time batching batches the widened per-step GEMMs"},
	{"hbatch", "fuse", "fused groups are opaque to batching"},
	{"tbatch", "fuse", "fused groups are opaque to batching"},
	{"layernorm", "fuse", "the generic fuser would split the LayerNorm pattern at its reductions"},
	{"rmsnorm", "fuse", "the generic fuser would split the RMSNorm pattern at its reductions"},
	{"gelu", "fuse", "the pattern fusion names the kernel; the generic fuser would absorb it anonymously"},
	{"silu", "fuse", "the pattern fusion names the kernel; the generic fuser would absorb it anonymously"},
	{"attention", "fuse", "attention spans two GEMMs, which the generic fuser never joins"},
	{"layernorm", "attention", "attention matching must not swallow normalization nodes"},
	{"fuse", "late_dce", "fusion leaves dead constants"},
	{"fuse", "persistent", "the persistent kernel groups the fused recurrent cells"},
	{"persistent", "rdma", "placement applies to the final kernels"},
	{"fuse", "persistent_loop", "a loop body's cell is fused (bodies first) before the loop becomes one kernel"},
	{"loopunroll", "persistent_loop", "a loop unrolling pays for is unrolled and fused instead (its trial runs this pass on the rolled loop)"},
	{"persistent_loop", "rdma", "placement applies to the final kernels"},
	{"persistent_loop", "ort", "with --target ort the pass does nothing: ONNX Runtime runs the loop"},
	{"fuse", "ort", "ONNX Runtime's operators are written for the groups fusion made"},
	{"persistent", "ort", "a persistent kernel is inlined back into the fused cells it groups"},
	{"ort", "rdma", "placement applies to the kernels the runtime runs"},
	{"ort", "late_dce", "lowering leaves constants unused (a bias folded into a conv's)"},
}

// CanonicalPassName returns the canonical spelling of a pass name: lower
// case, with spaces and hyphens between words as underscores, so that
// "late dce", "late-dce" and "Late_DCE" all name the pass late_dce (the
// spelling output and DOT file names use).
func CanonicalPassName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' || r == '_' || r == '\t' }), "_")
}

// LookupPass returns the pass named name in any spelling CanonicalPassName
// accepts.
func LookupPass(name string) (Pass, bool) {
	c := CanonicalPassName(name)
	for _, p := range passes {
		if p.Name == c {
			return p, true
		}
	}
	return Pass{}, false
}

// Passes returns a copy of the pipeline table.
func Passes() []Pass { return append([]Pass(nil), passes[:]...) }

// MaxLevel is the highest -O level.
const MaxLevel = 3

// Select returns the passes that level, only (when non-empty: run just
// these, plus the required ones) and disable choose, in pipeline order,
// without the passes of a target (the ort pass, which Run adds for
// Options.Target). It rejects unknown names and attempts to disable a
// required pass.
func Select(level int, only, disable []string) ([]Pass, error) {
	if level < 0 || level > MaxLevel {
		return nil, fmt.Errorf("level %d out of range 0..%d", level, MaxLevel)
	}
	known := map[string]*Pass{}
	for i := range passes {
		known[passes[i].Name] = &passes[i]
	}
	onlySet := map[string]bool{}
	for _, n := range only {
		if known[CanonicalPassName(n)] == nil {
			return nil, fmt.Errorf("unknown pass %q (known: %s)", n, passNames())
		}
		onlySet[CanonicalPassName(n)] = true
	}
	off := map[string]bool{}
	for _, given := range disable {
		n := CanonicalPassName(given)
		p := known[n]
		if p == nil {
			return nil, fmt.Errorf("unknown pass %q (known: %s)", given, passNames())
		}
		if p.Required {
			return nil, fmt.Errorf("pass %q is required and cannot be disabled", n)
		}
		off[n] = true
	}
	var out []Pass
	for _, p := range passes {
		switch {
		case p.ForORT:
			continue // added by Run for its target (forTarget)
		case p.Required:
		case off[p.Name]:
			continue
		case len(onlySet) > 0:
			if !onlySet[p.Name] {
				continue
			}
		case p.Level > level:
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// forTarget adds to sel, in pipeline order, the passes target needs
// (the ort pass for TargetORT).
func forTarget(sel []Pass, target Target) []Pass {
	if target != TargetORT {
		return sel
	}
	in := map[string]bool{}
	for _, p := range sel {
		in[p.Name] = true
	}
	var out []Pass
	for _, p := range passes {
		if in[p.Name] || p.ForORT {
			out = append(out, p)
		}
	}
	return out
}

func passNames() string {
	var names []string
	for _, p := range passes {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// Context is what a pass sees: the model, the options and a name source.
type Context struct {
	Model *ir.Model
	Opt   Options
	// names is what newName knows of each prefix: the model's names it
	// could spell, read on its first call, and the next number to try.
	names map[string]*prefixNames
	// implicit holds the names If branches reference without a binding.
	implicit map[string]bool
	// sizes caches Split size initializers by their values.
	sizes map[string]*ir.Value
	// ints holds the INT attributes intAttr handed out, by name and value.
	ints map[intAttrKey]*ir.Attr
	// folder evaluates constant nodes (nil: constant folding is skipped).
	folder Folder
	// graph is the control-flow body the pass is running on (nil: the
	// main graph); see Graph.
	graph *ir.Graph
	// probes caches the hashes of large tensors' first bytes across the
	// CSE passes, so each weight is probed at most once per run.
	probes map[*ir.Tensor]probe
	// trials holds the outcomes of trials by pass and trial key
	// (trialkey.go).
	trials map[string]trialOutcome
	// bodies is the model's control-flow bodies (controlBodies) and
	// census its ops for Pass.Needs (needs.go), both listed by survey in
	// one walk; census is nil when they were not listed since the last
	// rewrite (staleCensus), and bodies then only a buffer.
	bodies []body
	census opCensus

	// refusalLog is the record of missed opportunities (refuse.go).
	refusalLog
}

// Graph is the graph the pass is running on: the main graph, or the
// If/Loop/Scan body the driver is running it on (runPassAll).
func (c *Context) Graph() *ir.Graph {
	if c.graph != nil {
		return c.graph
	}
	return c.Model.Graph
}

// intAttrKey is an INT attribute's name and value.
type intAttrKey struct {
	name string
	v    int64
}

// intAttr returns an INT attribute name = v, the same one for every call
// with that name and value in this run. Nodes may share an Attr, as the
// importer's do (no stage changes an Attr in place: a pass gives a node
// new ones), and a pass that adds a node per group would otherwise make
// an Attr (~300 bytes) per node: hbatch's Splits on the 100k-node heads
// shape, 10 MB.
func (c *Context) intAttr(name string, v int64) *ir.Attr {
	k := intAttrKey{name, v}
	a := c.ints[k]
	if a == nil {
		if c.ints == nil {
			c.ints = map[intAttrKey]*ir.Attr{}
		}
		a = &ir.Attr{Name: name, Type: ir.AttrInt, I: v}
		c.ints[k] = a
	}
	return a
}

// newName returns a fresh node name "prefix_k", unique in this run: not
// a name of the model when the run first asked for a name, nor one
// newName returned before. k counts from 0 per prefix (from -1 where the
// model has a node or initializer named "prefix#", as it always has).
//
// The model's names are read once, on the first call: those that
// newName could spell ("P_" and a decimal integer as strconv.Itoa writes
// it, for any P) are filed under P by their number, and those ending in
// '#' mark their P. Each later call costs one lookup of its prefix,
// whatever the model's size or the number of prefixes (it used to scan
// every name of the model on a prefix's first use: O(nodes x groups)
// where passes derive prefixes from node names; then one lookup of each
// name tried in a set of all the model's numbered names).
func (c *Context) newName(prefix string) string {
	if c.names == nil {
		c.names = modelNameSets(c.Model.Graph)
	}
	e := c.names[prefix]
	if e == nil {
		e = &prefixNames{used: true}
		c.names[prefix] = e
	} else if !e.used {
		e.used = true
		slices.Sort(e.taken)
		if e.hashed {
			e.next = -1
		}
	}
	k := e.next
	for e.at < len(e.taken) && e.taken[e.at] <= k {
		if e.taken[e.at] == k {
			k++ // the model's name: the next number
		}
		e.at++
	}
	e.next = k + 1
	return prefix + "_" + strconv.Itoa(k)
}

// prefixNames is what newName knows of one prefix P.
type prefixNames struct {
	taken  []int // k of the model's names "P_k" (k as strconv.Itoa writes it); ascending once used
	hashed bool  // the model has a name "P#"
	used   bool  // newName was asked for P: taken is sorted, next is set
	next   int   // the number to try next
	at     int   // taken[:at] are below next
}

// modelNameSets files the names of g's nodes and initializers (at any
// depth) that newName could write, "P_k", under P by k, and marks the
// prefixes P of those spelled "P#".
func modelNameSets(g *ir.Graph) map[string]*prefixNames {
	names := map[string]*prefixNames{}
	entry := func(p string) *prefixNames {
		e := names[p]
		if e == nil {
			e = &prefixNames{}
			names[p] = e
		}
		return e
	}
	var num [20]byte
	add := func(s string) {
		if p, ok := strings.CutSuffix(s, "#"); ok {
			entry(p).hashed = true
			return
		}
		if !numbered(s) {
			return
		}
		i := strings.LastIndexByte(s, '_')
		k, err := strconv.Atoi(s[i+1:])
		if err != nil || string(strconv.AppendInt(num[:0], int64(k), 10)) != s[i+1:] {
			return // not a spelling of strconv.Itoa's ("_007", "_-0", out of range)
		}
		e := entry(s[:i])
		e.taken = append(e.taken, k)
	}
	g.Walk(func(g *ir.Graph) bool {
		for _, n := range g.Nodes {
			add(n.Name)
		}
		for _, v := range g.Initializers {
			add(v.Name)
		}
		return true
	})
	return names
}

// numbered reports whether s ends in "_" and a decimal integer, optionally
// negative (strconv.Itoa's spellings and leading zeros: a superset of what
// newName writes, which is all the set needs).
func numbered(s string) bool {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) {
		return false
	}
	if i > 0 && s[i-1] == '-' {
		i--
	}
	return i > 0 && s[i-1] == '_'
}
