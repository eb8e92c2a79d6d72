// Package hugeheap backs the Go heap of a short, allocation-heavy run
// with transparent huge pages where Linux leaves them to be asked for.
//
// Why: on Linux the Go runtime (since 1.21.1) leaves its heap to the
// kernel's transparent-huge-page policy. Where that policy is "madvise"
// (Debian's, Ubuntu's and most distributions' default) every 4 KiB page
// of the heap is a page fault on first touch, a cost that depends on the
// machine (go run ./bench/pagefault measures it; bench/speed.sh counts a
// command's faults; docs/speed.md gives the figures measured so far).
// Backed by 2 MiB pages the same heap takes 512 times fewer faults and
// fewer TLB misses.
//
// How: the runtime maps heap on demand with plain mmap, so a madvise can
// only reach memory already mapped. Reserve therefore allocates a large
// byte slice up front (fresh memory is not touched: the runtime knows it
// is zero), advises it MADV_HUGEPAGE, drops it and lets a collection free
// it and return it to the OS as released. The heap's later allocations
// fill that range from its low end (the page allocator is address
// ordered), and the kernel backs each 2 MiB of it with one huge page on
// first touch. Memory beyond the reservation gets ordinary pages. Where
// the process has a second core and the heap passes 256 MB, a goroutine
// pre-faults the reservation a few MiB ahead of the heap's growth
// (pretouch.go), so that the kernel's zeroing of fresh pages runs beside
// the allocating thread.
//
// Costs: a huge page is 2 MiB of RSS for its first byte, so a heap that
// touches its range sparsely would grow; the Go heap fills densely
// (bench/speed.sh reports max RSS; GODEBUG=disablethp=1 bench/speed.sh
// gives it without the reservation). With the kernel's defrag
// policy "madvise", a fault in an advised range may compact memory to
// find a huge page (a stall on a fragmented machine). The package reads no
// environment: the command decides whether to call Reserve (wolong's
// root skips it under GODEBUG=disablethp=1, the Go runtime's own switch)
// and passes Options (WOLONG_PRETOUCH=0 turns the pre-faulting off).
package hugeheap

import "sync/atomic"

// Options steer Reserve. The zero value pre-faults.
type Options struct {
	// NoPreTouch leaves the reservation to fault in page by page on the
	// allocating thread (no pre-faulting goroutine).
	NoPreTouch bool
}

// Reserve prepares up to n bytes of heap address space as described in
// the package comment and returns how many bytes it advised (0 when it
// did nothing). It does nothing unless the kernel's THP mode is
// "madvise" ("always" backs the heap with huge pages already; "never"
// refuses them), when n is under
// MinBytes, or under the race detector (race.go). n is capped at a
// quarter of physical memory and at what the kernel agrees to map now
// (probed with an mmap that is unmapped again), so a reservation never
// makes the runtime fail to allocate. Call it
// early, while the heap is small: the collection it runs is then cheap.
// Only the first reservation of a process is made (later calls return
// 0): a second one would be carved out of the first's released pages,
// which the runtime zeroes, touching every page.
func Reserve(n int64, o Options) int64 {
	if n < MinBytes || raceEnabled || reserved.Load() {
		return 0
	}
	got := reserve(n, o)
	if got > 0 {
		reserved.Store(true)
	}
	return got
}

var reserved atomic.Bool

// MinBytes is the smallest reservation worth the collection Reserve
// runs: a heap under it takes few enough faults.
const MinBytes = 64 << 20

// hugePage is the x86-64 and arm64 (4 KiB base pages) PMD size.
const hugePage = 2 << 20
