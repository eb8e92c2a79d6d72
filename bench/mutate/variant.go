package main

// This file makes one variant from its seed model and the variant's own
// random stream, and lists the commands run on it.

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// variant is one mutated model.
type variant struct {
	index int
	seed  *seedModel
	data  []byte
	kinds []string // mutation names, in order
	log   []string // what each did
	r     *rand.Rand
}

// standardOps are op types a mutation may give a node besides those the
// seeds use: control flow, shape ops, and ops with unusual arities.
var standardOps = []string{"If", "Loop", "Scan", "Identity", "Reshape", "Expand", "Tile", "Slice", "Gather", "GatherND", "ScatterND",
	"Concat", "Split", "Squeeze", "Unsqueeze", "Transpose", "Conv", "ConvTranspose", "MatMul", "Gemm", "Einsum", "LSTM", "GRU", "RNN",
	"Resize", "Pad", "TopK", "NonZero", "NonMaxSuppression", "Range", "ConstantOfShape", "OneHot", "CumSum", "Where", "Cast", "CastLike",
	"Attention", "LayerNormalization", "BatchNormalization", "Softmax", "ReduceSum", "ArgMax", "Shape", "Size", "Constant", "SequenceAt",
	"SequenceConstruct", "SplitToSequence", "ConcatFromSequence", "Optional", "OptionalGetElement", "DFT", "STFT", "Col2Im", "Unique",
	"QuantizeLinear", "DequantizeLinear", "QLinearConv", "MaxPool", "AveragePool", "Flatten", "Dropout", "Trilu", "Mod", "BitShift"}

// opList returns the op types of every parsed seed plus standardOps,
// sorted and distinct.
func opList(seeds []*seedModel) []string {
	set := map[string]bool{}
	for _, op := range standardOps {
		set[op] = true
	}
	for _, s := range seeds {
		if s.tree == nil {
			continue
		}
		for _, n := range s.tree.messages(kNode) {
			if op := n.str(fNodeOpType); op != "" {
				set[op] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for op := range set {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

// makeVariant derives variant i of the sweep: four in five variants get
// one to four protobuf-aware mutations (one in ten of those a byte-level
// one on top), the rest one to three byte-level ones. It depends only on
// the sweep seed, i and the seed model.
func makeVariant(sweepSeed uint64, i int, s *seedModel, ops []string) *variant {
	r := rand.New(rand.NewPCG(sweepSeed, uint64(i)))
	v := &variant{index: i, seed: s, r: r}
	byteLevel := 1 + r.IntN(3)
	if s.tree != nil && r.IntN(5) != 0 {
		c := &mctx{r: r, root: s.tree.clone(), ops: ops}
		k := 1
		if r.IntN(3) == 0 {
			k += 1 + r.IntN(3)
		}
		var plan []mutator
		for j := range k {
			m := drawMutator(r, true)
			if m.name == "repeat-huge" && j < k-1 {
				// at most one repeat-huge, the last: two multiply (a node
				// repeated a million times, each holding an attribute
				// repeated a million times) and the sweep itself ran out of
				// memory. Redrawn only here, so every other variant is
				// the one earlier sweeps of its seed drew.
				m = drawMutator(r, false)
			}
			plan = append(plan, m)
		}
		// repeat-huge last: the trees after it are large to walk.
		slices.SortStableFunc(plan, func(a, b mutator) int { return boolInt(a.name == "repeat-huge") - boolInt(b.name == "repeat-huge") })
		for j, m := range plan {
			for try := 0; try < 8; try++ {
				if m.apply(c) {
					v.kinds = append(v.kinds, m.name)
					break
				}
				m = drawMutator(r, j == len(plan)-1)
			}
		}
		v.log = c.log
		v.data = c.root.encode(nil)
		byteLevel = 0
		if r.IntN(10) == 0 {
			byteLevel = 1
		}
	} else {
		v.data = slices.Clone(s.data)
	}
	for range byteLevel {
		m := byteMutators[r.IntN(len(byteMutators))]
		var what string
		v.data, what = m.apply(r, v.data)
		v.kinds = append(v.kinds, m.name)
		v.log = append(v.log, what)
	}
	return v
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

var totalWeight = func() int {
	t := 0
	for _, m := range mutators {
		t += m.weight
	}
	return t
}()

// drawMutator draws a mutator by weight; repeat-huge only when huge is set.
func drawMutator(r *rand.Rand, huge bool) mutator {
	for {
		x := r.IntN(totalWeight)
		for _, m := range mutators {
			if x < m.weight {
				if m.name != "repeat-huge" || huge {
					return m
				}
				break
			}
			x -= m.weight
		}
	}
}

// command is one invocation of wolong on a variant.
type command struct {
	name string
	args []string
}

// commandNames are the six commands of the sweep, in the order they run.
var commandNames = []string{"import", "inspect", "profile", "optimize", "verify", "run"}

// commands returns the sweep's commands for the variant at model, writing
// under out: import (inspect --ir: decode, verify, infer, print the IR),
// inspect, profile, optimize (with -o and --emit-onnx), verify (the
// variant against the model optimize emitted, or against itself when
// there is none: the caller fixes that up) and run, those two with
// --timeout evalTimeout. Options vary with the variant's random stream so
// that the flags reach different code.
func (v *variant) commands(model, out, maxMem string, evalTimeout time.Duration) []command {
	r := v.r
	mem := []string{"--max-memory", maxMem}
	limit := []string{"--timeout", evalTimeout.String()}
	with := func(args ...[]string) []string {
		var out []string
		for _, a := range args {
			out = append(out, a...)
		}
		return out
	}
	dims := v.seed.dims
	if r.IntN(4) == 0 {
		dims = nil
	}
	profileOpts := [][]string{{"--hw", "cpu"}, {"--mode", "train"}, {"--dtype", "float16"}, {"--by", "op"}, {"--streams", "4"}, {"--batch", "2"}, {"--format", "json"}, {"--hw", "h200", "--tf32"}}
	optOpts := [][]string{{"--format", "json"}, {"--hw", "cpu"}, {"--verify-each"}, {"--batch", "2"}, {"--disable-pass", "fuse"}}
	return []command{
		{"import", with([]string{"inspect", model, "--ir"}, mem)},
		{"inspect", with([]string{"inspect", model, "--nodes"}, pick(r, [][]string{nil, {"--format", "json"}}), mem)},
		{"profile", with([]string{"profile", model, "--trace", filepath.Join(out, "trace.json")}, pick(r, profileOpts), mem)},
		{"optimize", with([]string{"optimize", model, fmt.Sprintf("-O%d", r.IntN(4)), "-o", filepath.Join(out, "plan.json"), "--emit-onnx", filepath.Join(out, "opt.onnx")}, pick(r, optOpts), mem)},
		{"verify", with([]string{"verify", model, filepath.Join(out, "opt.onnx")}, dims, mem, limit)},
		{"run", with([]string{"run", model, "-o", filepath.Join(out, "run")}, dims, mem, limit)},
	}
}
