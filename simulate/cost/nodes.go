package cost

import (
	"runtime"
	"sync"

	"github.com/wolong-dev/wolong/ir"
)

// parallelNodes is the fewest nodes Nodes splits across goroutines: below
// it a goroutine's start costs more than the estimates.
const parallelNodes = 4096

// Nodes estimates every node of nodes (Node for each) and hands node i's
// estimate to set(i, e), concurrently for distinct i: set must only
// store it. On a large graph the estimates run on up to
// GOMAXPROCS goroutines (at most 4), each over a contiguous range with a
// Model of its own (a Model keeps per-call state); their notes join m's,
// so m.Notes is what calling Node in turn would have left. Estimating
// reads the IR and writes nothing in it.
func (m *Model) Nodes(nodes []*ir.Node, set func(i int, e Estimate)) {
	m.split(len(nodes), func(f *Model, lo, hi int) {
		for i := lo; i < hi; i++ {
			set(i, f.Node(nodes[i]))
		}
	})
}

// split runs work over [0, n): on m itself below parallelNodes, else on
// up to GOMAXPROCS (at most 4) Models of their own over contiguous ranges,
// whose notes then join m's.
func (m *Model) split(n int, work func(f *Model, lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), 4, n/parallelNodes)
	if workers < 2 {
		work(m, 0, n)
		return
	}
	forks := make([]*Model, workers)
	var wg sync.WaitGroup
	for w := range workers {
		f := &Model{HW: m.HW, IR: m.IR, Opt: m.Opt, seen: map[string]bool{}}
		forks[w] = f
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Go(func() { work(f, lo, hi) })
	}
	wg.Wait()
	for _, f := range forks {
		for _, s := range f.notes {
			m.note(s)
		}
	}
}
