//go:build linux

package hugeheap

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hugeAdvised sums the sizes of this process's mappings that carry the
// kernel's "hg" flag (MADV_HUGEPAGE), from /proc/self/smaps.
func hugeAdvised(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var sum, size int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if kb, ok := strings.CutPrefix(line, "Size:"); ok {
			size = 0
			for _, c := range strings.TrimSuffix(strings.TrimSpace(kb), " kB") {
				size = size*10 + int64(c-'0')
			}
			size <<= 10
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && strings.Contains(" "+flags+" ", " hg ") {
			sum += size
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}

func requireMadviseMode(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("huge pages are advised on Linux only")
	}
	if raceEnabled {
		t.Skip("Reserve does nothing under the race detector")
	}
	mode, err := os.ReadFile(thpModeFile)
	if err != nil || !strings.Contains(string(mode), "[madvise]") {
		t.Skipf("the kernel's THP mode is not madvise here (%q, %v): Reserve does nothing by design", mode, err)
	}
}

// TestReserve runs the reservations in order: the cases that do nothing,
// one that advises, the second call of the process (nothing), and a
// request larger than any machine (capped, not fatal).
func TestReserve(t *testing.T) {
	requireMadviseMode(t)
	if got := Reserve(MinBytes-1, Options{}); got != 0 {
		t.Errorf("Reserve(MinBytes-1) = %d, want 0", got)
	}
	for _, mode := range []string{"[always] madvise never", "always madvise [never]", ""} {
		f := filepath.Join(t.TempDir(), "enabled")
		if err := os.WriteFile(f, []byte(mode+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		old := thpModeFile
		thpModeFile = f
		got := Reserve(128<<20, Options{})
		thpModeFile = old
		if got != 0 {
			t.Errorf("THP mode %q: Reserve = %d, want 0", mode, got)
		}
	}

	before := hugeAdvised(t)
	got := Reserve(128<<20, Options{})
	if got < 120<<20 || got > 128<<20 {
		t.Fatalf("Reserve(128 MiB) advised %d bytes, want 120-128 MiB (the slice rounded in to 2 MiB pages)", got)
	}
	if after := hugeAdvised(t); after-before < got {
		t.Errorf("mappings advised MADV_HUGEPAGE grew by %d bytes, want >= %d", after-before, got)
	}
	// The reservation is garbage now, and released: the heap does not
	// hold it.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 64<<20 {
		t.Errorf("heap in use after Reserve: %d bytes; the reserved slice should have been freed", ms.HeapInuse)
	}
	if ms.HeapIdle-ms.HeapReleased > 64<<20 {
		t.Errorf("idle but unreleased heap after Reserve: %d bytes; it should have been returned to the OS", ms.HeapIdle-ms.HeapReleased)
	}
	if got := Reserve(128<<20, Options{}); got != 0 {
		t.Errorf("second Reserve of the process = %d, want 0", got)
	}

	// More than the machine has: cut to a quarter of RAM (a machine of
	// 1 GiB here, so the test allocates no more) and to what mmap grants
	// (reserve, below the once-per-process guard).
	defer func(f func() int64) { ramBytes = f }(ramBytes)
	ramBytes = func() int64 { return 1 << 30 }
	if got := reserve(1<<50, Options{}); got <= 0 || got > 256<<20 {
		t.Errorf("reserve(1 PiB) on a 1 GiB machine = %d, want a positive reservation of at most 256 MiB", got)
	}
}
