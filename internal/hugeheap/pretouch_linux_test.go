package hugeheap

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident counts the resident pages of m (mincore).
func resident(t *testing.T, m []byte) int {
	t.Helper()
	vec := make([]byte, (len(m)+unix.Getpagesize()-1)/unix.Getpagesize())
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestFollower drives a follower over a region of its own: it populates
// only what the heap's growth calls for plus aheadBytes, a chunk per
// step, never past the end, and leaves the memory's contents alone.
func TestFollower(t *testing.T) {
	const size = 32 << 20
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Skip("no anonymous mmap:", err)
	}
	defer unix.Munmap(m)
	page := unix.Getpagesize()
	lo := uintptr(unsafe.Pointer(&m[0]))
	var taken uint64
	f := &follower{lo: lo, hi: lo + size, done: lo, used: func() uint64 { return taken }}
	if err := populate(lo, uintptr(page)); err != nil {
		t.Skipf("MADV_POPULATE_WRITE unsupported here (Linux < 5.14?): %v", err)
	}
	m[0] = 42 // populated memory keeps what it holds
	steps := 0
	f.start = 4 << 20
	taken = 4<<20 - 1
	if more, err := f.step(); more || err != nil || f.done != lo {
		t.Fatalf("before start: step = %v, %v, populated %d bytes; want nothing", more, err, f.done-lo)
	}
	taken = 0
	f.start = 0
	for {
		more, err := f.step()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
		steps++
	}
	if f.done != lo+aheadBytes || steps != aheadBytes/chunkBytes {
		t.Fatalf("with nothing taken: populated %d bytes in %d steps, want %d in %d", f.done-lo, steps, aheadBytes, aheadBytes/chunkBytes)
	}
	if got := resident(t, m); got < aheadBytes/page || got > aheadBytes/page+hugePage/page {
		t.Errorf("resident pages %d, want about %d (aheadBytes)", got, aheadBytes/page)
	}
	if m[0] != 42 {
		t.Errorf("populating changed memory: m[0] = %d", m[0])
	}
	taken = 10 << 20
	for more := true; more; {
		if more, err = f.step(); err != nil {
			t.Fatal(err)
		}
	}
	if want := lo + 10<<20 + aheadBytes; f.done != want {
		t.Errorf("with 10 MiB taken: populated up to %d MiB, want %d", (f.done-lo)>>20, (want-lo)>>20)
	}
	taken = 1 << 40 // more than the region: stop at its end
	for more := true; more; {
		if more, err = f.step(); err != nil {
			t.Fatal(err)
		}
	}
	if f.done != lo+size {
		t.Errorf("populated up to %d MiB, want the region's end (%d MiB)", (f.done-lo)>>20, size>>20)
	}
	if got := resident(t, m); got != size/page {
		t.Errorf("resident pages %d, want all %d", got, size/page)
	}
}
