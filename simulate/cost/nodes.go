package cost

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/wolong-dev/wolong/ir"
)

// parallelNodes is the fewest nodes Nodes splits across goroutines: below
// it a goroutine's start costs more than the estimates.
const parallelNodes = 4096

// nodeChunk is how many consecutive nodes a goroutine of Nodes claims at
// a time: few enough that the goroutines end together when one of them
// was held up (a collection's assist, another goroutine on its core),
// enough that claiming (one atomic add) costs nothing beside the
// estimates.
const nodeChunk = 256

// Nodes estimates every node of nodes (Node for each) and hands node i's
// estimate to set(i, e), concurrently for distinct i: set must only
// store it. On a large graph the estimates run on up to
// GOMAXPROCS goroutines (at most 4; the caller's is one of them), each
// with a Model of its own (a Model keeps per-call state), claiming
// chunks of consecutive nodes until none is left; their notes join m's,
// so m.Notes is what calling Node in turn would have left. Estimating
// reads the IR and writes nothing in it.
func (m *Model) Nodes(nodes []*ir.Node, set func(i int, e Estimate)) {
	m.NodesBeside(nodes, set, nil)
}

// NodesBeside is Nodes that first runs beside (when not nil) on the
// calling goroutine while the other goroutines start on the estimates;
// the caller then joins them. beside runs at the same time as set and the
// estimates: it must not write what they read (the IR) nor read or
// write what set writes. On a graph too small to split, beside runs
// first and the estimates after it.
func (m *Model) NodesBeside(nodes []*ir.Node, set func(i int, e Estimate), beside func()) {
	workers := min(runtime.GOMAXPROCS(0), 4, len(nodes)/parallelNodes)
	if workers < 2 {
		if beside != nil {
			beside()
		}
		for i, n := range nodes {
			set(i, m.Node(n))
		}
		return
	}
	var next atomic.Int64 // the next chunk to claim
	run := func(f *Model) {
		for {
			lo := int(next.Add(1)-1) * nodeChunk
			if lo >= len(nodes) {
				return
			}
			for i := lo; i < min(lo+nodeChunk, len(nodes)); i++ {
				set(i, f.Node(nodes[i]))
			}
		}
	}
	// forks[0] is the caller's: it estimates too, as one of the workers
	// goroutines, or with beside after it, beside workers others
	n := workers
	if beside != nil {
		n++
	}
	forks := make([]*Model, n)
	for w := range forks {
		forks[w] = &Model{HW: m.HW, IR: m.IR, Opt: m.Opt, seen: map[string]bool{}}
	}
	var wg sync.WaitGroup
	for _, f := range forks[1:] {
		wg.Go(func() { run(f) })
	}
	if beside != nil {
		beside()
	}
	run(forks[0])
	wg.Wait()
	for _, f := range forks {
		for _, s := range f.notes {
			m.note(s)
		}
	}
}
