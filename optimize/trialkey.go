package optimize

// This file implements the memo of trials (trial.go): a model with many
// loops of one structure (a block repeated per layer, each with its own
// weights) made one trial per loop, each copying the loop, running the
// passes after it twice and predicting both copies. At 10k such loops
// that was most of optimize's time. A trial's outcome depends on the
// structure of the loop alone, and on its constants' data only in the
// ways the passes and the predictor read data, so loops whose trial
// models have the same key (trialKey) share one trial.
//
// What the key holds, for the trial model's main graph and every body in
// it: each node's domain, op, attributes and inputs (values numbered in
// the order defined, names left out), each value's type and known
// elements, and for each constant what a decision can depend on:
//
//   - Its dtype and dims.
//   - Its data, whole, unless it is a float tensor of two or more
//     elements, not all equal, read only by ops whose output type and
//     kernel do not depend on their inputs' data (elementwise, broadcast,
//     and GEMM/convolution-like anchors: ir.PatternOf). Passes read such
//     a tensor's data to compute with (BatchNorm folding, ORT bias sums)
//     but decide only on a scalar (scalarOf), on every element being one
//     value (noop's allEqual), or on equality with another constant
//     (CSE): the first two are whole-data cases here, and the third is
//     the last part of the key.
//   - For the others, which of them hold equal data (classes numbered in
//     the order met, found as CSE finds them: tensorIndex).
//
// A trial model holding a node all of whose inputs are constant is not
// memoized: constant folding computes with the data, and what it computes
// may be a scalar or all-equal tensor a later decision reads. Nor is one
// holding sparse constants, or a constant whose data a decision reads
// whole and that is larger than trialKeyMaxBytes (such a trial runs as
// before). The model's functions, opsets and header are the same in
// every trial of one run and are left out.

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/wolong-dev/wolong/ir"
)

// trialKeyMaxBytes bounds the data a key copies from one constant.
const trialKeyMaxBytes = 64 << 10

// memoTrials turns the memo on (tests compare with it off).
var memoTrials = true

// trialOutcome is what a trial predicted: the model before the rewrite
// tried and after it.
type trialOutcome struct {
	before, after Prediction
	ok            bool // both predictions were made
}

// trialMemo returns the outcome of a trial of pass on m from c's memo,
// running trial (and keeping what it returns) when m's key has none.
// With no key, trial runs and nothing is kept.
func (c *Context) trialMemo(m *ir.Model, trial func() trialOutcome) trialOutcome {
	if !memoTrials {
		return trial()
	}
	key, ok := trialKey(m, c.probes)
	return c.trialMemoKey(key, ok, trial)
}

// trialMemoKey is trialMemo given the trial model's key (ok false: not
// memoized, trial runs and nothing is kept).
func (c *Context) trialMemoKey(key string, ok bool, trial func() trialOutcome) trialOutcome {
	if !memoTrials || !ok {
		return trial()
	}
	key = c.pass + "\x00" + key
	if out, seen := c.trials[key]; seen {
		return out
	}
	out := trial()
	if c.trials == nil {
		c.trials = map[string]trialOutcome{}
	}
	c.trials[key] = out
	return out
}

// trialSeen reports whether c's memo holds an outcome for key (as
// trialMemoKey would look it up).
func (c *Context) trialSeen(key string) bool {
	_, seen := c.trials[c.pass+"\x00"+key]
	return seen
}

// verifyNodeKeys makes unrollTrial check every nodeTrialKey against
// trialKey of the extracted model (tests set it).
var verifyNodeKeys = false

// verifyNodeKey panics when key and ok are not what trialKey gives n's
// extracted model.
func verifyNodeKey(c *Context, n *ir.Node, key string, ok bool) {
	m, _ := trialLocal(c, n)
	if m == nil {
		return
	}
	want, wantOK := trialKey(m, c.probes)
	if want != key || wantOK != ok {
		panic(fmt.Sprintf("nodeTrialKey(%s) = %q, %v; trialKey of its extraction = %q, %v", ir.NodeLabel(n), key, ok, want, wantOK))
	}
}

// trialKey returns m's trial key (see the file comment) and false when m
// is not memoized. probes (may be nil) caches tensors' probe hashes.
func trialKey(m *ir.Model, probes map[*ir.Tensor]probe) (string, bool) {
	k := &keyer{ids: map[*ir.Value]int{}, probes: probes, ok: true}
	k.graph(m.Graph)
	return string(k.b), k.ok
}

// nodeTrialKey returns what trialKey returns for ir.ExtractModel(m, n)'s
// model (m being n's model), computed on n where it is: a memo hit then
// costs no copy of n. It writes what trialKey writes of ExtractNode's
// main graph: the outer values n reads (its inputs, then its captures,
// each once) not constant as inputs and the constant ones as
// initializers, n, and n's outputs given. Of an outer constant it reads
// the uses its copy would have, by n and the nodes nested in n (outerUses:
// a constant read by every loop of a model lists them all); n's outputs'
// copies have none; a value defined inside n has all its uses there.
func nodeTrialKey(n *ir.Node, probes map[*ir.Tensor]probe) (string, bool) {
	var ins, inits []*ir.Value
	seen := map[*ir.Value]bool{}
	outer := func(x *ir.Value) {
		if x == nil || seen[x] {
			return
		}
		seen[x] = true
		if x.Const != nil {
			inits = append(inits, x)
		} else {
			ins = append(ins, x)
		}
	}
	for _, x := range n.Inputs {
		outer(x)
	}
	for _, x := range n.CapturedValues() {
		outer(x)
	}
	k := &keyer{ids: map[*ir.Value]int{}, probes: probes, ok: true,
		within: n, outerUses: outerUses(n, inits)}
	k.int(int64(len(ins)))
	for _, v := range ins {
		k.def(v)
	}
	k.int(int64(len(inits)))
	for _, v := range inits {
		k.def(v)
	}
	k.int(1)
	k.node(n)
	given := 0
	for _, o := range n.Outputs {
		if o != nil {
			given++
		}
	}
	k.int(int64(given))
	for _, o := range n.Outputs {
		if o != nil {
			k.ref(o)
		}
	}
	return string(k.b), k.ok
}

// outerUses returns, for each of vs (values from outside n), its uses by
// n and by the nodes nested in n, found by walking n rather than the
// values' use lists.
func outerUses(n *ir.Node, vs []*ir.Value) map[*ir.Value][]ir.Use {
	if len(vs) == 0 {
		return nil
	}
	uses := make(map[*ir.Value][]ir.Use, len(vs))
	for _, v := range vs {
		uses[v] = nil
	}
	var walk func(m *ir.Node)
	walk = func(m *ir.Node) {
		for i, x := range m.Inputs {
			if us, ok := uses[x]; ok {
				uses[x] = append(us, ir.Use{Node: m, Index: i})
			}
		}
		for _, sg := range m.Subgraphs() {
			for _, b := range sg.Nodes {
				walk(b)
			}
		}
	}
	walk(n)
	return uses
}

// keyer appends a trial key.
type keyer struct {
	b   []byte
	ids map[*ir.Value]int // values by the order defined
	// idx (constants with equal data) and class (canonical constants'
	// classes, in order met) are made at the first constant whose data
	// the key leaves out (dataFree): most keys have none, and a loop's
	// key is computed for every loop of a model (nodeTrialKey)
	idx    *tensorIndex
	class  map[*ir.Tensor]int
	probes map[*ir.Tensor]probe // idx's probe cache (may be nil)
	ok     bool                 // false: not memoized
	// within, when set, is the node keyed in place (nodeTrialKey), and
	// outerUses the uses of its outer constants by it and its nested
	// nodes.
	within    *ir.Node
	outerUses map[*ir.Value][]ir.Use
}

// uses returns the uses of v the key reads: v's own, or with within set
// those its copy in ExtractNode's graph would have (see nodeTrialKey).
func (k *keyer) uses(v *ir.Value) []ir.Use {
	if k.within == nil {
		return v.Uses
	}
	if us, ok := k.outerUses[v]; ok {
		return us
	}
	if v.Producer == k.within {
		return nil
	}
	return v.Uses
}

func (k *keyer) int(v int64) { k.b = binary.AppendVarint(k.b, v) }

func (k *keyer) str(s string) {
	k.int(int64(len(s)))
	k.b = append(k.b, s...)
}

func (k *keyer) graph(g *ir.Graph) {
	if g == nil {
		k.int(-2)
		return
	}
	if len(g.Sparse()) > 0 {
		k.ok = false
	}
	k.int(int64(len(g.Inputs)))
	for _, v := range g.Inputs {
		k.def(v)
	}
	k.int(int64(len(g.Initializers)))
	for _, v := range g.Initializers {
		k.def(v)
	}
	k.int(int64(len(g.Nodes)))
	for _, n := range g.Nodes {
		k.node(n)
	}
	k.int(int64(len(g.Outputs)))
	for _, v := range g.Outputs {
		k.ref(v)
	}
}

func (k *keyer) node(n *ir.Node) {
	k.str(n.Domain)
	k.str(n.Op)
	k.int(int64(len(n.Inputs)))
	for _, v := range n.Inputs {
		k.ref(v)
	}
	if allConstInputs(n) {
		k.ok = false // constant folding computes with the data
	}
	k.int(int64(len(n.Outputs)))
	for _, v := range n.Outputs {
		k.def(v)
	}
	k.int(int64(len(n.Attrs)))
	for _, a := range n.Attrs {
		k.attr(n, a)
	}
}

// allConstInputs reports whether n has inputs and every one given is
// constant.
func allConstInputs(n *ir.Node) bool {
	given := 0
	for _, v := range n.Inputs {
		if v == nil {
			continue
		}
		if v.Const == nil {
			return false
		}
		given++
	}
	return given > 0
}

// def numbers v and writes its type, known elements and constant.
func (k *keyer) def(v *ir.Value) {
	if v == nil {
		k.int(-1)
		return
	}
	k.ids[v] = len(k.ids)
	k.b = v.Type.AppendText(k.b)
	k.int(int64(len(v.Known())))
	for _, d := range v.Known() {
		k.int(d.Val)
		k.str(d.Sym)
	}
	if v.Const != nil {
		k.b = append(k.b, 'c')
		k.tensor(v.Const, k.uses(v))
	} else {
		k.b = append(k.b, '-')
	}
}

// ref writes v's number (defining it first when it comes from outside
// what the key has seen).
func (k *keyer) ref(v *ir.Value) {
	if v == nil {
		k.int(-1)
		return
	}
	id, ok := k.ids[v]
	if !ok {
		k.int(-3)
		k.def(v)
		return
	}
	k.int(int64(id))
}

func (k *keyer) attr(n *ir.Node, a *ir.Attr) {
	k.str(a.Name)
	k.int(int64(a.Type))
	k.str(a.RefAttrName)
	k.int(int64(math.Float32bits(a.F)))
	k.int(a.I)
	k.str(string(a.S))
	if a.T != nil {
		var uses []ir.Use
		if n.Is(ir.OpConstant) && len(n.Outputs) == 1 && n.Outputs[0] != nil {
			uses = k.uses(n.Outputs[0])
		}
		k.tensor(a.T, uses)
	} else {
		k.int(-1)
	}
	k.graph(a.G)
	if a.ST != nil || len(a.SparseTensors) > 0 {
		k.ok = false
	}
	if a.TP != nil {
		k.str(a.TP.String())
	}
	k.int(int64(len(a.Floats)))
	for _, f := range a.Floats {
		k.int(int64(math.Float32bits(f)))
	}
	k.int(int64(len(a.Ints)))
	for _, v := range a.Ints {
		k.int(v)
	}
	k.int(int64(len(a.Strings)))
	for _, s := range a.Strings {
		k.str(string(s))
	}
	k.int(int64(len(a.Tensors)))
	for _, t := range a.Tensors {
		k.tensor(t, nil)
	}
	k.int(int64(len(a.Graphs)))
	for _, g := range a.Graphs {
		k.graph(g)
	}
	k.int(int64(len(a.TypeProtos)))
	for _, t := range a.TypeProtos {
		k.str(t.String())
	}
}

// tensor writes what a decision can depend on of constant t, read by
// uses (see the file comment).
func (k *keyer) tensor(t *ir.Tensor, uses []ir.Use) {
	k.int(int64(t.DType))
	k.int(int64(len(t.Dims)))
	for _, d := range t.Dims {
		k.int(d)
	}
	if dataFree(t, uses) {
		if k.idx == nil {
			k.idx, k.class = newTensorIndex(k.probes), map[*ir.Tensor]int{}
		}
		c := k.idx.canonical(t)
		id, ok := k.class[c]
		if !ok {
			id = len(k.class)
			k.class[c] = id
		}
		k.b = append(k.b, 'e')
		k.int(int64(id))
		return
	}
	if t.ByteSize() > trialKeyMaxBytes {
		k.ok = false
		return
	}
	data, ok := tensorBytes(t)
	if !ok {
		k.ok = false
		return
	}
	k.b = append(k.b, 'd')
	k.str(string(data))
}

// dataFree reports whether no decision reads t's data beyond equality
// with other constants: a float tensor of two or more elements, not all
// equal, whose every reader is elementwise, broadcast or a GEMM-like
// anchor.
func dataFree(t *ir.Tensor, uses []ir.Use) bool {
	n, ok := t.NumElements()
	if !t.DType.IsFloat() || !ok || n < 2 || len(uses) == 0 {
		return false
	}
	for _, u := range uses {
		switch ir.PatternOf(u.Node) {
		case ir.ElemWise, ir.Broadcast, ir.OutEWiseFusable:
		default:
			return false
		}
	}
	if n <= noopMaxElems {
		vals, err := t.Float64Values(n)
		if err != nil || int64(len(vals)) != n {
			return false
		}
		for _, v := range vals[1:] {
			if v != vals[0] {
				return true
			}
		}
		return false // all one value: noop reads it
	}
	return true
}
