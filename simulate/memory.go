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
	nf := 0
	for nf < len(tasks) && tasks[nf].Phase == Forward {
		nf++
	}
	sizeOf := func(v *ir.Value) (float64, bool) {
		if v == nil || v.Type.Kind != ir.KindTensor {
			return 0, false
		}
		n, ok := v.Type.Shape.NumElements()
		if !ok {
			return 0, false
		}
		dt := v.Type.DType
		if o := res.Options.Cost.DType; o != ir.Undefined && dt.IsFloat() {
			dt = o
		}
		b := dt.StorageBytes(n)
		return float64(b), b >= 0
	}
	resident := map[*ir.Value]bool{}
	addResident := func(v *ir.Value) {
		if v == nil || resident[v] {
			return
		}
		resident[v] = true
		if s, ok := sizeOf(v); ok {
			res.WeightBytes += s
		}
	}
	for _, v := range g.Initializers {
		addResident(v)
	}
	var bufs []buffer
	root := valueMap{ids: make([]int32, g.NumValueIDs()), g: g, other: map[*ir.Value]int{}}
	for i := range root.ids {
		root.ids[i] = -1
	}
	for _, in := range g.Inputs {
		if in.Const != nil {
			addResident(in)
			continue
		}
		if s, ok := sizeOf(in); ok {
			root.set(in, len(bufs))
			bufs = append(bufs, buffer{size: s, alloc: 0, free: 0})
		} else if in.Type.Kind == ir.KindTensor {
			res.UnknownSizes++
		}
	}
	use := func(v *ir.Value, t float64) {
		if b, ok := root.get(v); ok && t > bufs[b].free {
			bufs[b].free = t
		}
	}
	for i := 0; i < nf; i++ {
		t := &tasks[i]
		n := t.Node
		for _, v := range n.Inputs {
			use(v, t.End)
		}
		if len(n.Subgraphs()) > 0 {
			for _, v := range n.CapturedValues() {
				use(v, t.End)
			}
		}
		for _, o := range n.Outputs {
			if o == nil {
				continue
			}
			if o.Const != nil {
				addResident(o)
				continue
			}
			if t.Est.Kernels == 0 {
				if in := n.Input(0); in != nil {
					if b, ok := root.get(in); ok {
						root.set(o, b) // a view of its input
					}
				}
				continue
			}
			s, ok := sizeOf(o)
			if !ok {
				res.UnknownSizes++
				continue
			}
			root.set(o, len(bufs))
			bufs = append(bufs, buffer{size: s, alloc: t.Start, free: t.End})
		}
	}
	for _, o := range g.Outputs {
		use(o, res.TotalS)
	}
	if train && len(tasks) > nf {
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
				use(v, b.End) // saved for the backward pass
			}
			for _, v := range n.Outputs {
				use(v, b.End)
			}
			if b.Est.Kernels == 0 {
				continue
			}
			for _, v := range n.Inputs {
				if v == nil || !v.Type.DType.IsFloat() {
					continue
				}
				s, ok := sizeOf(v)
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
					bufs[k].alloc = math.Min(bufs[k].alloc, b.Start)
					bufs[k].free = math.Max(bufs[k].free, free)
					continue
				}
				grads[v] = len(bufs)
				bufs = append(bufs, buffer{size: s, alloc: b.Start, free: free})
			}
		}
	}
	type ev struct {
		t     float64
		delta float64
	}
	evs := make([]ev, 0, 2*len(bufs))
	for _, b := range bufs {
		evs = append(evs, ev{b.alloc, b.size}, ev{b.free, -b.size})
	}
	// At one instant frees come first: a kernel ending releases its
	// inputs before the next kernel, starting then, allocates its outputs.
	// (Events equal in time and size are interchangeable: an unstable sort
	// is deterministic in its result.)
	slices.SortFunc(evs, func(a, b ev) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	base := res.WeightBytes + res.OptimizerBytes
	cur, peak, at := 0.0, 0.0, 0.0
	for _, e := range evs {
		cur += e.delta
		if cur > peak {
			peak, at = cur, e.t
		}
	}
	res.PeakMemoryBytes = base + peak
	res.PeakMemoryAtS = at
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
