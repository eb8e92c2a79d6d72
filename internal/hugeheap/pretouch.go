package hugeheap

import "time"

// Pre-touching (the JVM's -XX:+AlwaysPreTouch, done lazily): the first
// write to a fresh page makes the kernel allocate and zero it, more so in
// a VM whose host backs guest memory lazily (bench/pagefault measures
// it), all on the one thread that allocates. A goroutine that stays
// a few MiB ahead of the heap's growth through the reservation moves
// that work to an idle core. It never populates more than aheadBytes
// beyond what the heap has taken (the RSS cost), stops when the
// reservation is populated, and gives up after idleLimit without
// growth. It starts once the heap has taken startBytes: below that the
// faults are few, and the lead, with the slack of reading the heap's
// growth from the runtime's released count, would add to such a run's
// RSS more than it saves. Options.NoPreTouch (WOLONG_PRETOUCH=0) turns it
// off.

const (
	aheadBytes = 8 << 20  // populated beyond the heap's frontier
	chunkBytes = hugePage // one madvise call
	idlePoll   = time.Millisecond
	idleLimit  = 2 * time.Second // no growth for this long: stop
	startBytes = 256 << 20       // heap taken before pre-touching starts
)

// follower populates the reservation [lo, hi) ahead of the heap.
type follower struct {
	lo, hi, done uintptr       // done: populated up to here
	used         func() uint64 // bytes of the reservation the heap has taken
	start        uint64        // used before the first chunk (startBytes)
	last         uint64        // used at the last step
	grew         bool          // used changed at the last step
}

// step populates the next chunk the heap's growth calls for and reports
// whether there was one.
func (f *follower) step() (bool, error) {
	used := f.used()
	f.grew, f.last = used != f.last, used
	if used < f.start {
		return false, nil
	}
	want := min(f.lo+uintptr(min(used, uint64(f.hi-f.lo)))+aheadBytes, f.hi)
	if want <= f.done {
		return false, nil
	}
	n := min(want-f.done, chunkBytes)
	if err := populate(f.done, n); err != nil {
		return false, err
	}
	f.done += n
	return true, nil
}

// preTouch runs f until the reservation is populated, an madvise fails
// (a kernel before 5.14) or the heap stops growing.
func preTouch(f *follower) {
	idle := time.Duration(0)
	for f.done < f.hi && idle < idleLimit {
		more, err := f.step()
		if err != nil {
			return
		}
		if more || f.grew {
			idle = 0
		}
		if more {
			continue
		}
		time.Sleep(idlePoll)
		idle += idlePoll
	}
}
