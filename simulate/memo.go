package simulate

// This file implements the estimate memo: a run with Options.Memo keeps
// each node's estimate key (memokey.go) and the notes its estimate made,
// and a later RunReusing given that run, of the same model on the same
// hardware with the same cost options, reuses the estimate of every node
// whose key is unchanged and estimates only the others (the optimizer
// predicts the whole model after every pass that rewrites it, and most
// of its nodes are the ones the last prediction saw).
//
// The memo holds no estimate of its own: the new run's task list is the
// previous run's (RunReusing), and a reused estimate moves within it, so
// the memo costs two words a node. A reused estimate's notes are made
// again (cost.Model.AddNotes), so the run's assumptions are a fresh
// run's. The memo is not used, and every node is estimated, when the
// model has functions (an estimate of a call reads the function's body)
// or the hardware's cache_working_set makes estimates depend on the
// model's weights as a whole.

import (
	"runtime"
	"sync"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// maxMemoNotes is how many distinct notes a memo tells apart: an estimate
// making a note beyond them is not memoized.
const maxMemoNotes = 64

// estimateMemo is what a run keeps for the next one's estimates.
type estimateMemo struct {
	h     *hw.Hardware
	opt   cost.Options
	model *ir.Model
	graph *ir.Graph
	// keys and masks are per forward task: the key of its node's estimate
	// (0: estimated every run) and the notes it made (bit i: notes[i]).
	keys, masks []uint64
	notes       []string
	bit         map[string]uint
	mu          sync.Mutex // guards notes and bit while estimates run
	// spare are the buffers of the run before, for the next keys and masks
	spareKeys, spareMasks []uint64
	reused                int // estimates reused from the run before
}

// usable reports whether the estimates of m's nodes on h may be memoized.
func usable(m *ir.Model, h *hw.Hardware) bool {
	return len(m.Functions) == 0 && !h.CacheWorkingSet
}

// valid reports whether memo's estimates hold for g of m on h with opt.
func (memo *estimateMemo) valid(m *ir.Model, h *hw.Hardware, opt cost.Options) bool {
	return memo != nil && memo.h == h && memo.opt == opt && memo.model == m && memo.graph == m.Graph
}

// mask returns the bits of notes, false when one is beyond maxMemoNotes.
func (memo *estimateMemo) mask(notes []string) (uint64, bool) {
	if len(notes) == 0 {
		return 0, true
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	var m uint64
	for _, s := range notes {
		b, ok := memo.bit[s]
		if !ok {
			if len(memo.notes) == maxMemoNotes {
				return 0, false
			}
			b = uint(len(memo.notes))
			memo.bit[s] = b
			memo.notes = append(memo.notes, s)
		}
		m |= 1 << b
	}
	return m, true
}

// estimateMemoized sets the estimates of order's nodes in tasks (the
// previous run's list, its first len(prev.keys) tasks that run's forward
// tasks, or a list of zero tasks), reusing prev's where the key is
// unchanged (prev nil: none), and returns the memo of this run.
func estimateMemoized(m *ir.Model, h *hw.Hardware, cm *cost.Model, order []*ir.Node, tasks []Task, prevTasks []Task, prev *estimateMemo) *estimateMemo {
	memo := &estimateMemo{h: h, opt: cm.Opt, model: m, graph: m.Graph, bit: map[string]uint{}}
	var oldKeys, oldMasks []uint64
	if prev != nil {
		memo.notes, memo.bit = prev.notes, prev.bit
		oldKeys, oldMasks = prev.keys, prev.masks
		memo.keys, memo.masks = prev.spareKeys, prev.spareMasks
	}
	memo.keys = resize(memo.keys, len(order))
	memo.masks = resize(memo.masks, len(order))
	keys, masks := memo.keys, memo.masks
	m.Graph.IsOutput(nil) // builds the graph's output index before the goroutines read it
	parallel(len(order), func(lo, hi int) {
		var buf []uint64
		for i := lo; i < hi; i++ {
			keys[i] = memoKey(order[i], &buf)
		}
	})
	// from[i] is the previous task whose estimate task i reuses, -1 for
	// none; the reused ones keep their order (from increases), so that
	// moving them within one list reads each before it is overwritten
	from := make([]int32, len(order))
	var misses []int32
	if len(oldKeys) > 0 {
		nOld := min(len(oldKeys), len(prevTasks))
		pos := make([]int32, m.Graph.NumNodeIDs())
		for i := range pos {
			pos[i] = -1
		}
		for j := range nOld {
			if id := prevTasks[j].Node.ID; id >= 0 && id < len(pos) {
				pos[id] = int32(j)
			}
		}
		last := int32(-1)
		for i, n := range order {
			from[i] = -1
			if keys[i] == 0 || n.ID < 0 || n.ID >= len(pos) {
				misses = append(misses, int32(i))
				continue
			}
			j := pos[n.ID]
			if j <= last || prevTasks[j].Node != n || oldKeys[j] != keys[i] {
				misses = append(misses, int32(i))
				continue
			}
			from[i], last = j, j
			masks[i] = oldMasks[j]
			memo.reused++
		}
	} else {
		misses = make([]int32, len(order))
		for i := range order {
			from[i], misses[i] = -1, int32(i)
		}
	}
	// moves to lower or equal places in increasing order, then to higher
	// places in decreasing order: neither overwrites a task still to be read
	var seen uint64
	for i, j := range from {
		if j >= 0 {
			seen |= masks[i]
			if int(j) > i {
				tasks[i].Est = prevTasks[j].Est
			}
		}
	}
	for i := len(from) - 1; i >= 0; i-- {
		if j := from[i]; j >= 0 && int(j) < i {
			tasks[i].Est = prevTasks[j].Est
		}
	}
	for b := range memo.notes {
		if seen&(1<<b) != 0 {
			cm.AddNotes(memo.notes[b])
		}
	}
	nodes := make([]*ir.Node, len(misses))
	for k, i := range misses {
		nodes[k] = order[i]
	}
	cm.NodesNoted(nodes, func(k int, e cost.Estimate, notes []string) {
		i := misses[k]
		tasks[i].Est = e
		mask, ok := memo.mask(notes)
		if !ok || e.Unknown { // an unknown estimate's reason names values
			keys[i], mask = 0, 0
		}
		masks[i] = mask
	})
	if prev != nil {
		memo.spareKeys, memo.spareMasks = oldKeys, oldMasks
	}
	return memo
}

// resize returns s with length n, reusing its array when it is large enough.
func resize(s []uint64, n int) []uint64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]uint64, n)
}

// parallel runs work over [0, n) in contiguous ranges on up to GOMAXPROCS
// goroutines (at most 4), one below 4096.
func parallel(n int, work func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), 4, n/4096)
	if workers < 2 {
		work(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Go(func() { work(lo, hi) })
	}
	wg.Wait()
}
