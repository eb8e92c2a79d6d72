package simulate

// This file keeps a run's distinct estimates, which its tasks share.

import (
	"sync"

	"github.com/wolong-dev/wolong/simulate/cost"
)

// estimates is one run's table of distinct estimates: a task points at
// its node's estimate here, and tasks whose estimates are the same
// (cost.Same) share one. A graph of repeated layers has a few distinct
// estimates among many nodes (the benchmark shapes at 100k nodes: 2 to
// 35, control's If/Loop 10,004), so a Task holds 8 bytes where it held
// the 264 of a cost.Estimate (with its name and op not stored either, a
// Task is 80 bytes, not 368). A graph whose every estimate differs pays
// the 8 bytes more a task, and the table's map while the run builds it.
// Estimates in it are never changed: a task's is replaced, not written
// through. Safe for concurrent use.
type estimates struct {
	mu   sync.Mutex
	m    map[uint64][]*cost.Estimate // by cost.Hash
	slab []cost.Estimate             // room for the next distinct ones
}

// estSlab is how many distinct estimates one allocation of the table
// holds.
const estSlab = 64

// intern returns the table's estimate that is the same as e, adding a
// copy of e when there is none.
func (t *estimates) intern(e *cost.Estimate) *cost.Estimate {
	h := cost.Hash(e)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[uint64][]*cost.Estimate{}
	}
	for _, p := range t.m[h] {
		if cost.Same(p, e) {
			return p
		}
	}
	if len(t.slab) == 0 {
		t.slab = make([]cost.Estimate, estSlab)
	}
	p := &t.slab[0]
	t.slab = t.slab[1:]
	*p = *e
	t.m[h] = append(t.m[h], p)
	return p
}
