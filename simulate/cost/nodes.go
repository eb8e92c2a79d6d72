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
	workers := min(runtime.GOMAXPROCS(0), 4, len(nodes)/parallelNodes)
	if workers < 2 {
		for i, n := range nodes {
			set(i, m.Node(n))
		}
		return
	}
	forks := make([]*Model, workers)
	var wg sync.WaitGroup
	for w := range workers {
		f := &Model{HW: m.HW, IR: m.IR, Opt: m.Opt, seen: map[string]bool{}}
		forks[w] = f
		lo, hi := w*len(nodes)/workers, (w+1)*len(nodes)/workers
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				set(i, f.Node(nodes[i]))
			}
		})
	}
	wg.Wait()
	for _, f := range forks {
		for _, s := range f.notes {
			m.note(s)
		}
	}
}
