package cmd

// This file makes --max-memory a bound on the process as well as on the
// evaluator's live tensors.

import (
	"os"
	"runtime/debug"
)

// limitHeap sets the Go runtime's soft memory limit to maxMem, unless the
// environment sets GOMEMLIMIT: the collector then runs before garbage
// takes the heap past the bound (without it the heap grows to about twice
// what is live before a collection, so an evaluation within --max-memory
// could peak at twice it). It is a soft limit: what is really live
// (inputs and outputs a command holds besides the evaluator's live set,
// constants) may still pass it, and then the collector works harder
// (at most half the CPU) instead of failing. Main restores the previous
// limit when the command ends.
func limitHeap(maxMem int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(maxMem)
}
