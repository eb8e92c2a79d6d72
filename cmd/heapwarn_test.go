package cmd

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestHeapWarning: a command whose live heap comes within 10% of the soft
// memory limit it set (--max-memory), or whose collector's CPU limiter
// engaged, says so, naming the flag; below that, with no limit set, or
// with GOMEMLIMIT's limit (not ours), it says nothing.
func TestHeapWarning(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const gib = 1 << 30
	p := newProcess(func(string) string { return "" })
	if w := p.heapWarning(func() heapState { return heapState{live: 100 * gib} }); w != "" {
		t.Errorf("no limit set: %q, want none", w)
	}
	p.limitHeap(4 * gib)
	if w := p.heapWarning(func() heapState { return heapState{live: 35 * gib / 10} }); w != "" {
		t.Errorf("3.5 of 4 GiB live: %q, want none", w)
	}
	w := p.heapWarning(func() heapState { return heapState{live: 38 * gib / 10} })
	if !strings.Contains(w, "--max-memory (4.0 GiB)") || !strings.Contains(w, "3.8 GiB") {
		t.Errorf("3.8 of 4 GiB live: %q, want a warning naming --max-memory and both sizes", w)
	}
	if w := p.heapWarning(func() heapState { return heapState{live: gib, limiter: true} }); w == "" {
		t.Error("the collector's CPU limiter engaged: no warning, want one")
	}
	if w := p.heapWarning(func() heapState { return heapState{live: 2 * gib, held: 39 * gib / 10} }); !strings.Contains(w, "3.9 GiB") {
		t.Errorf("3.9 of 4 GiB held, 2 live: %q, want a warning naming 3.9 GiB", w)
	}
	q := newProcess(func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	})
	q.limitHeap(4 * gib)
	if w := q.heapWarning(func() heapState { return heapState{live: 39 * gib / 10, limiter: true} }); w != "" {
		t.Errorf("GOMEMLIMIT set: %q, want none (the limit is the environment's)", w)
	}
}
