package eval

// This file bounds the float64 working copies kernels make of their
// inputs (Tensor.Float64s) by the process's memory limit.

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// bigCopy is the size from which a working copy is checked: smaller ones
// (parameters, scalars, most activations) are made without a look.
const bigCopy = 16 << 20

// memoryPanic carries a refused working copy out of a kernel; call
// recovers it into the kernel's error.
type memoryPanic struct{ err error }

// f64 is Float64s for kernels. A copy of more than bigCopy bytes is
// refused when the Go heap in use plus the copy would exceed the
// runtime's memory limit (debug.SetMemoryLimit; wolong sets it to
// --max-memory), after one collection to discount garbage. Without a
// limit set nothing is checked. It panics with memoryPanic, so it must
// only run inside Evaluator.call.
func (t *Tensor) f64() []float64 {
	if t.cls() != clsD {
		if b := int64(t.Len()) * 8; b > bigCopy {
			if err := checkHeap(b, t); err != nil {
				panic(memoryPanic{err})
			}
		}
	}
	return t.Float64s()
}

// checkHeap fails when b more bytes would take the heap past the limit.
func checkHeap(b int64, t *Tensor) error {
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 || heapInUse()+b <= limit {
		return nil
	}
	runtime.GC()
	used := heapInUse()
	if used+b <= limit {
		return nil
	}
	return fmt.Errorf("a float64 working copy of %s needs %d bytes with %d bytes of heap in use, %w of %d bytes", t, b, used, ErrMemoryLimit, limit)
}

// heapInUse returns the bytes of heap objects, live or not yet swept.
func heapInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}
