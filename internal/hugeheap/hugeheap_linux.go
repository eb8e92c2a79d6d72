package hugeheap

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"unsafe"

	"golang.org/x/sys/unix"
)

// thpModeFile holds the kernel's THP mode, the chosen one in brackets:
// "always [madvise] never".
var thpModeFile = "/sys/kernel/mm/transparent_hugepage/enabled"

func reserve(n int64, o Options) int64 {
	if mode, _ := os.ReadFile(thpModeFile); !bytes.Contains(mode, []byte("[madvise]")) {
		return 0
	}
	if ram := ramBytes() / 4; ram > 0 && n > ram {
		n = ram
	}
	n &^= hugePage - 1
	for ; n >= MinBytes; n /= 2 {
		if probe(n) {
			break
		}
	}
	if n < MinBytes {
		return 0
	}
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p+hugePage-1)&^(hugePage-1) - p
	hi := (p+uintptr(n))&^(hugePage-1) - p
	advised := int64(0)
	if hi > lo && unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE) == nil {
		advised = int64(hi - lo)
	}
	runtime.KeepAlive(b)
	b = nil
	// Free the slice and release it to the OS: as free-but-unreleased
	// memory it would count against the soft memory limit (--max-memory)
	// until the scavenger returned it piecewise. Releasing untouched
	// pages is a few cheap madvise calls; the advice stays on the range.
	debug.FreeOSMemory()
	if advised > 0 && runtime.GOMAXPROCS(0) > 1 && !o.NoPreTouch {
		go preTouch(&follower{lo: p + lo, hi: p + hi, done: p + lo, used: heapTaken(), start: startBytes})
	}
	return advised
}

// heapTaken returns a function that says how many bytes the heap has
// taken back from the OS since it was called: the growth of the heap
// into the released reservation, which it fills from its low end.
func heapTaken() func() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	r0 := s[0].Value.Uint64()
	return func() uint64 {
		metrics.Read(s)
		return r0 - min(r0, s[0].Value.Uint64())
	}
}

// populate pre-faults [addr, addr+n) for writing (MADV_POPULATE_WRITE,
// Linux 5.14): the kernel allocates and zeroes the pages without
// changing what memory holds, so it is safe on pages the runtime may be
// handing out at the same moment.
func populate(addr, n uintptr) error {
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_POPULATE_WRITE); e != 0 {
		return e
	}
	return nil
}

// ramBytes returns the machine's physical memory (0 when unknown); a
// variable so that tests can cap reservations without allocating a
// quarter of the machine.
var ramBytes = func() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// probe says whether the kernel maps n bytes of private anonymous
// memory now (it may not under vm.overcommit_memory=2 or ulimit -v);
// the runtime's own mmap failing would be fatal.
func probe(n int64) bool {
	m, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return false
	}
	return unix.Munmap(m) == nil
}
