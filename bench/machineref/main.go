// Command machineref times three fixed workloads that do not depend on
// wolong's code, so that figures taken on different days (or VMs) can be
// told apart by the machine's state rather than by the code: the same VM
// ran ~1.5x slower one evening than the afternoon before (docs/speed.md,
// sixth round; docs/calibration-protocol.md, fresh held-out runs).
//
//   - cpu: a dependent integer loop in registers (ns per iteration);
//   - cache: reads of a 1 MiB array in a fixed random order (ns per read,
//     resident in L2 on the machines measured so far);
//   - memory: a pointer chase through 256 MiB in a random cycle (ns per
//     read: the latency of memory beyond the caches and the TLB's reach
//     in 4 KiB pages, which is what a pass walking a large IR pays per
//     node it reaches out of order), and the same in memory advised for
//     2 MiB pages (as wolong's heap is: internal/hugeheap), whose
//     difference is the TLB's share.
//
// Each is the median of 5 runs. bench/speed.sh prints the line in its
// header; bench/pagefault gives the first touch of fresh memory.
//
//	go run ./bench/machineref
package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

func main() {
	cpu := median(func() float64 {
		const n = 200_000_000
		x := uint64(1)
		start := time.Now()
		for i := 0; i < n; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		sink = x
		return float64(time.Since(start).Nanoseconds()) / n
	})
	cache := median(chase(1<<20, 20_000_000))
	mem := median(chase(256<<20, 2_000_000))
	huge := "-"
	if slots := hugeSlots(256 << 17); slots != nil {
		huge = fmt.Sprintf("%.1f", median(chaseIn(slots, 2_000_000)))
	}
	fmt.Printf("machine reference: cpu %.3f ns/iter, cache (1 MiB) %.2f ns/read, memory (256 MiB) %.1f ns/read, in huge pages %s ns/read (median of 5; bench/machineref)\n", cpu, cache, mem, huge)
}

var sink uint64

// chase returns a run of a pointer chase through bytes of memory (one
// random cycle over its 8-byte slots, in the Go heap's ordinary 4 KiB
// pages): the mean time of a read over reads dependent reads.
func chase(bytes, reads int) func() float64 {
	return chaseIn(make([]uint64, bytes/8), reads)
}

// chaseIn is chase over the slots of next, which it fills with one
// random cycle (Sattolo's shuffle, in place: no second array).
func chaseIn(next []uint64, reads int) func() float64 {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range next {
		next[i] = uint64(i)
	}
	for i := len(next) - 1; i > 0; i-- {
		j := r.IntN(i)
		next[i], next[j] = next[j], next[i]
	}
	return func() float64 {
		p := uint64(0)
		start := time.Now()
		for range reads {
			p = next[p]
		}
		sink = p
		return float64(time.Since(start).Nanoseconds()) / float64(reads)
	}
}

func median(run func() float64) float64 {
	var v []float64
	for range 5 {
		v = append(v, run())
	}
	slices.Sort(v)
	return v[len(v)/2]
}
