package simulate

// This file implements peak memory from tensor liveness over the
// simulated schedule.

import (
	"cmp"
	"math"
	"slices"

	"github.com/wolong-dev/wolong/ir"
)

type buffer struct {
	size        float64
	alloc, free float64
}

// memory computes the peak of resident data (weights, optimizer state)
// plus live activations (and, in training, gradients).
func memory(res *Result, g *ir.Graph, train bool) {
	tasks := res.Tasks
	nf := len(tasks) // inference: every task is a forward one
	if train {
		nf = 0
		for nf < len(tasks) && tasks[nf].Phase == Forward {
			nf++
		}
	}
	// the scratch arrays of the run res reuses, when large enough (a
	// prediction after each optimizer pass: fresh zeroed arrays of the
	// graph's value IDs every time cost page faults and heap growth)
	sc := &res.mem
	ms := &memState{res: res, bufs: reuse(sc.bufs, len(g.Inputs)+nf)[:0]} // about one buffer per input and forward task
	ms.resident = valueSet{bits: reuse(sc.bits, (g.NumValueIDs()+63)/64), g: g}
	clear(ms.resident.bits)
	for _, v := range g.Initializers {
		ms.addResident(v)
	}
	ms.root = valueMap{ids: reuse(sc.ids, g.NumValueIDs()), g: g, other: map[*ir.Value]int{}}
	for i := range ms.root.ids {
		ms.root.ids[i] = -1
	}
	for _, in := range g.Inputs {
		if in.Const != nil {
			ms.addResident(in)
			continue
		}
		if s, ok := ms.sizeOf(in); ok {
			ms.root.set(in, len(ms.bufs))
			ms.bufs = append(ms.bufs, buffer{size: s, alloc: 0, free: 0})
		} else if in.Type.Kind == ir.KindTensor {
			res.UnknownSizes++
		}
	}
	ms.forward(tasks[:nf])
	for _, o := range g.Outputs {
		ms.use(o, res.TotalS)
	}
	if train && len(tasks) > nf {
		ms.backward(tasks, nf)
	}
	peak, at := peakLive(ms.bufs, &sc.evs)
	res.PeakMemoryBytes = res.WeightBytes + res.OptimizerBytes + peak
	res.PeakMemoryAtS = at
	sc.bufs, sc.bits, sc.ids = ms.bufs, ms.resident.bits, ms.root.ids
}

// memScratch holds memory's (and the schedule's) arrays for the next run
// that reuses this one (RunReusing): their contents are not kept, only
// their storage.
type memScratch struct {
	bufs []buffer
	bits []uint64
	ids  []int32
	evs  []memEvent
	cp   []float64 // the schedule's critical path by task
}

// reuse returns s resliced to n elements when its storage holds n, else
// a new slice of n with room for a quarter more; the elements are not
// cleared. The room is for the optimizer's predictions: the graph's node
// and value IDs grow a little after every rewriting pass, and without it
// each prediction allocated (and first touched) fresh arrays.
func reuse[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n, n+n/4)
}

// memState is memory's working state: the buffers found so far, the
// buffer each value lives in (a view shares its input's), and the values
// counted as resident weights.
type memState struct {
	res      *Result
	bufs     []buffer
	root     valueMap
	resident valueSet
}

// sizeOf is v's size in bytes (float types as Options.Cost.DType when it
// is set); false for a non-tensor or an unknown size.
func (ms *memState) sizeOf(v *ir.Value) (float64, bool) {
	if v == nil || v.Type.Kind != ir.KindTensor {
		return 0, false
	}
	n, ok := v.Type.Shape.NumElements()
	if !ok {
		return 0, false
	}
	dt := v.Type.DType
	if o := ms.res.Options.Cost.DType; o != ir.Undefined && dt.IsFloat() {
		dt = o
	}
	b := dt.StorageBytes(n)
	return float64(b), b >= 0
}

// addResident counts v once in the resident weight bytes.
func (ms *memState) addResident(v *ir.Value) {
	if v == nil || !ms.resident.add(v) {
		return
	}
	if s, ok := ms.sizeOf(v); ok {
		ms.res.WeightBytes += s
	}
}

// use keeps v's buffer alive until at least t.
func (ms *memState) use(v *ir.Value, t float64) {
	if b, ok := ms.root.get(v); ok && t > ms.bufs[b].free {
		ms.bufs[b].free = t
	}
}

// forward walks the forward tasks: each reads its inputs (and a control
// flow node its captured values) until it ends and allocates its outputs
// when it starts (a kernel-less op's output is a view of its first input;
// a constant output is resident). The tasks are buildForward's (their
// bodies and caps set).
func (ms *memState) forward(tasks []Task) {
	for i := range tasks {
		t := &tasks[i]
		n := t.Node
		for _, v := range n.Inputs {
			ms.use(v, t.End)
		}
		if t.cap0 >= 0 { // n.HasSubgraphs(), as buildForward found it
			for _, v := range ms.res.capsOf(t) { // n.EachCaptured's values
				ms.use(v, t.End) // a repeat changes no free time
			}
			ms.subgraphWeights(n)
		}
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			if o.Const != nil {
				ms.addResident(o)
				continue
			}
			if t.Est.Kernels == 0 {
				if in := n.Input(0); in != nil {
					if b, ok := ms.root.get(in); ok {
						ms.root.set(o, b) // a view of its input
					}
				}
				continue
			}
			s, ok := ms.sizeOf(o)
			if !ok {
				ms.res.UnknownSizes++
				continue
			}
			ms.root.set(o, len(ms.bufs))
			ms.bufs = append(ms.bufs, buffer{size: s, alloc: t.Start, free: t.End})
		}
	}
}

// backward walks the backward tasks (the nf after the nf forward ones, in
// reverse order): each keeps its forward op's inputs and outputs alive
// until it ends, and allocates a gradient for each float input, freed by
// its producer's backward (a weight's at the optimizer's end).
func (ms *memState) backward(tasks []Task, nf int) {
	bwd := func(i int) *Task { return &tasks[2*nf-1-i] }
	optEnd := tasks[len(tasks)-1].End
	grads := map[*ir.Value]int{}
	pos := make(map[*ir.Node]int, nf)
	for i := 0; i < nf; i++ {
		pos[tasks[i].Node] = i
	}
	for i := 0; i < nf; i++ {
		b := bwd(i)
		n := tasks[i].Node
		for _, v := range n.Inputs {
			ms.use(v, b.End) // saved for the backward pass
		}
		for _, v := range n.Outputs {
			ms.use(v, b.End)
		}
		if b.Est.Kernels == 0 {
			continue
		}
		for _, v := range n.Inputs {
			if v == nil || !v.Type.DType.IsFloat() {
				continue
			}
			s, ok := ms.sizeOf(v)
			if !ok {
				continue
			}
			free := b.End
			if v.Const != nil {
				free = optEnd
			} else if j, ok := pos[v.Producer]; ok && v.Producer != nil {
				free = bwd(j).End // the producer's backward consumes the gradient
			}
			if k, ok := grads[v]; ok {
				ms.bufs[k].alloc = math.Min(ms.bufs[k].alloc, b.Start)
				ms.bufs[k].free = math.Max(ms.bufs[k].free, free)
				continue
			}
			grads[v] = len(ms.bufs)
			ms.bufs = append(ms.bufs, buffer{size: s, alloc: b.Start, free: free})
		}
	}
}

// memEvent is an allocation (delta > 0) or a free of a buffer at time t.
type memEvent struct {
	t     float64
	delta float64
}

// peakLive is the largest sum of sizes of the buffers live at once, and
// the first time it is reached; scratch holds its event array between
// calls (nil: none).
func peakLive(bufs []buffer, scratch *[]memEvent) (peak, at float64) {
	type ev = memEvent
	if scratch == nil {
		scratch = new([]memEvent)
	}
	// At one instant frees come first: a kernel ending releases its
	// inputs before the next kernel, starting then, allocates its outputs.
	// (Events equal in time and size are interchangeable: any order sorted
	// by both gives the same sums.)
	order := func(a, b ev) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	}
	// The allocations come in schedule order, in time order already on one
	// stream: sorted apart from the frees and merged with them, they save
	// half the sort.
	evs := reuse(*scratch, 2*len(bufs))
	*scratch = evs
	allocs, frees := evs[:len(bufs)], evs[len(bufs):]
	nan := false
	for i, b := range bufs {
		allocs[i], frees[i] = ev{b.alloc, b.size}, ev{b.free, -b.size}
		nan = nan || b.alloc != b.alloc || b.free != b.free || b.size != b.size
	}
	if !nan {
		// order without cmp.Compare's tests for NaN, none here: the same
		// order (-0 and +0 equal in both), in a third less time
		order = func(a, b ev) int {
			switch {
			case a.t < b.t:
				return -1
			case a.t > b.t:
				return 1
			case a.delta < b.delta:
				return -1
			case a.delta > b.delta:
				return 1
			}
			return 0
		}
	}
	if !slices.IsSortedFunc(allocs, order) {
		slices.SortFunc(allocs, order)
	}
	slices.SortFunc(frees, order)
	cur := 0.0
	step := func(e ev) {
		cur += e.delta
		if cur > peak {
			peak, at = cur, e.t
		}
	}
	i, j := 0, 0
	for i < len(allocs) && j < len(frees) {
		if order(frees[j], allocs[i]) <= 0 {
			step(frees[j])
			j++
		} else {
			step(allocs[i])
			i++
		}
	}
	for ; i < len(allocs); i++ {
		step(allocs[i])
	}
	for ; j < len(frees); j++ {
		step(frees[j])
	}
	return peak, at
}

// valueMap maps values to buffer indices: a dense slice by value ID for
// the graph's own values, a map for any other.
type valueMap struct {
	ids   []int32
	g     *ir.Graph
	other map[*ir.Value]int
}

func (m *valueMap) get(v *ir.Value) (int, bool) {
	if v == nil {
		return 0, false
	}
	if v.Graph == m.g && v.ID >= 0 && v.ID < len(m.ids) {
		b := m.ids[v.ID]
		return int(b), b >= 0
	}
	b, ok := m.other[v]
	return b, ok
}

func (m *valueMap) set(v *ir.Value, b int) {
	if v.Graph == m.g && v.ID >= 0 && v.ID < len(m.ids) {
		m.ids[v.ID] = int32(b)
		return
	}
	m.other[v] = b
}

// valueSet is a set of values: a bit per value ID for the graph's own
// values (a model's initializers, 100k and more, each looked up once a
// run), a map for any other.
type valueSet struct {
	bits  []uint64
	g     *ir.Graph
	other map[*ir.Value]bool
}

// add adds v to the set and reports whether it was not in it.
func (s *valueSet) add(v *ir.Value) bool {
	if v.Graph == s.g && v.ID >= 0 && v.ID < 64*len(s.bits) {
		w, b := v.ID/64, uint64(1)<<(v.ID%64)
		if s.bits[w]&b != 0 {
			return false
		}
		s.bits[w] |= b
		return true
	}
	if s.other[v] {
		return false
	}
	if s.other == nil {
		s.other = map[*ir.Value]bool{}
	}
	s.other[v] = true
	return true
}
