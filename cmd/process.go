package cmd

// This file is the one place where wolong changes process-wide runtime
// state, and where it reads the environment variables that steer it
// ('wolong help environment' lists them with every other variable wolong
// reads). Main reads the environment once (newProcess); a model load
// then bounds the heap, reserves huge pages for it and pauses the
// collector while importing, and Main restores the memory limit when the
// command ends, for callers that run several commands in one process.

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"

	"github.com/wolong-dev/wolong/internal/hugeheap"
	"github.com/wolong-dev/wolong/pipeline"
)

// process holds the environment's runtime switches, read once.
type process struct {
	// goMemLimit: GOMEMLIMIT is set, and --max-memory leaves the soft
	// memory limit to it.
	goMemLimit bool
	// thpOff: GODEBUG has disablethp=1 (the Go runtime's switch for
	// transparent huge pages), and no huge-page reservation is made.
	thpOff bool
	// noPreTouch: WOLONG_PRETOUCH=0, the reservation is not pre-faulted.
	noPreTouch bool
	// limited is the soft memory limit limitHeap set (0: none set).
	limited int64

	reserveOnce sync.Once
}

// newProcess reads the switches from getenv (os.Getenv in Main).
func newProcess(getenv func(string) string) *process {
	return &process{
		goMemLimit: getenv("GOMEMLIMIT") != "",
		thpOff:     godebugSet(getenv("GODEBUG"), "disablethp"),
		noPreTouch: getenv("WOLONG_PRETOUCH") == "0",
	}
}

// defaultProcess is the settings of a ModelOptions built without an Env
// from Main (tests).
var defaultProcess = sync.OnceValue(func() *process { return newProcess(os.Getenv) })

// or returns p, or the environment's settings when p is nil.
func (p *process) or() *process {
	if p == nil {
		return defaultProcess()
	}
	return p
}

// godebugSet reports whether GODEBUG's value godebug sets key=1 (the last
// setting of the key wins, as in the Go runtime).
func godebugSet(godebug, key string) bool {
	on := false
	for _, kv := range strings.Split(godebug, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == key {
			on = v == "1"
		}
	}
	return on
}

// limitHeap sets the Go runtime's soft memory limit to maxMem, unless the
// environment sets GOMEMLIMIT: the collector then runs before garbage
// takes the heap past the bound (without it the heap grows to about twice
// what is live before a collection, so an evaluation within --max-memory
// could peak at twice it). It is a soft limit: what is really live
// (inputs and outputs a command holds besides the evaluator's live set,
// constants) may still pass it, and then the collector works harder
// (at most half the CPU) instead of failing. Main restores the previous
// limit when the command ends.
func (p *process) limitHeap(maxMem int64) {
	p = p.or()
	if p.goMemLimit {
		return
	}
	debug.SetMemoryLimit(maxMem)
	p.limited = maxMem
}

// heapNearLimit is the share of the soft memory limit that the live heap
// may reach before heapWarning speaks.
const heapNearLimit = 0.9

// heapState is what heapWarning reads of the runtime: the heap the last
// collection found live, the memory the runtime holds from the OS and
// has not returned (bytes: what the soft limit bounds), and whether the
// collector's CPU limiter ever engaged (the collector wanting more than
// half the CPU).
type heapState struct {
	live, held uint64
	limiter    bool
}

// heapWarning returns a warning when the heap pressed against the soft
// memory limit limitHeap set (--max-memory): the memory the runtime holds
// or the live heap within heapNearLimit of the limit, or the collector's
// CPU limiter engaged; else "". The collector then runs again as soon as
// the heap grows a little (docs/speed.md, the 1M-node runs).
func (p *process) heapWarning(read func() heapState) string {
	if p == nil || p.limited <= 0 {
		return ""
	}
	h := read()
	near := heapNearLimit * float64(p.limited)
	if !h.limiter && float64(h.live) < near && float64(h.held) < near {
		return ""
	}
	return fmt.Sprintf("the heap reached %.1f GiB, near --max-memory (%.1f GiB), which is also the garbage collector's soft limit: it collected more often to stay under it and the command was slower; a larger --max-memory may run faster",
		float64(max(h.held, h.live))/(1<<30), float64(p.limited)/(1<<30))
}

// readHeap reads heapState from runtime/metrics.
func readHeap() heapState {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/limiter/last-enabled:gc-cycle"},
		{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	u := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	h := heapState{live: u(0), limiter: u(1) > 0}
	if total, released := u(2), u(3); total > released {
		h.held = total - released
	}
	return h
}

// heapPerFileByte is about the most heap a model's pipeline takes per
// byte of its .onnx file (a generated graph without weights; weights in
// the file only lower the ratio).
const heapPerFileByte = 64

// beforeLoad prepares the process for loading the model at path under
// --max-memory maxMem: the soft memory limit, and, on the first load,
// the huge-page reservation (hugeheap.Reserve) sized from the file and
// kept under the limit: a heap that outgrew the reservation faulted its
// rest in 4 KiB pages (1M-node control: 0.4M faults, 15% of the run, when
// it was half the limit). It is address space, not memory, until the heap
// grows into it. docs/speed.md states what the reservation is measured
// to save and where.
func (p *process) beforeLoad(path string, maxMem int64) {
	p = p.or()
	p.limitHeap(maxMem)
	p.reserveOnce.Do(func() {
		st, err := os.Stat(path)
		if err != nil || p.thpOff {
			return
		}
		hugeheap.Reserve(min(heapPerFileByte*st.Size(), debug.SetMemoryLimit(-1)), hugeheap.Options{NoPreTouch: p.noPreTouch})
	})
}

// importPaused runs load with the garbage collector paused: the import
// builds what stays live, so a collection during it frees next to
// nothing and only marks the model built so far (the Go compiler raises
// its starting heap goal for the same reason, base.AdjustStartingHeap).
// The soft memory limit (--max-memory) still holds while it is paused.
// The caller's setting is back when it returns.
func (p *process) importPaused(load func() (*pipeline.Loaded, error)) (*pipeline.Loaded, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	return load()
}

// restoreMemoryLimit returns a function that puts back the soft memory
// limit as it is now (Main defers it: a command's --max-memory does not
// outlive it in a process that runs several).
func restoreMemoryLimit() func() {
	limit := debug.SetMemoryLimit(-1)
	return func() { debug.SetMemoryLimit(limit) }
}
