//go:build linux

// Command pagefault measures what this machine charges for the first
// touch of a fresh page of anonymous memory: it maps 256 MiB, writes one
// byte per 4 KiB page, unmaps, five times, and prints the median cost per
// page. Every page of heap a wolong command grows into costs one such
// fault (bench/speed.sh counts them), so the figure says how much of a
// command's wall time is the kernel's rather than wolong's.
//
//	go run ./bench/pagefault
package main

import (
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"
)

const size = 256 << 20

func touch() (time.Duration, error) {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, err
	}
	defer syscall.Munmap(b)
	page := os.Getpagesize()
	start := time.Now()
	for i := 0; i < len(b); i += page {
		b[i] = 1
	}
	return time.Since(start), nil
}

func main() {
	var runs []time.Duration
	for range 5 {
		d, err := touch()
		if err != nil {
			fmt.Fprintln(os.Stderr, "pagefault:", err)
			os.Exit(1)
		}
		runs = append(runs, d)
	}
	slices.Sort(runs)
	pages := size / os.Getpagesize()
	med := runs[len(runs)/2]
	fmt.Printf("first touch of %d MiB in %d B pages: median %v of 5 runs, %.2f µs per page, %.1f ms per 100 MiB\n",
		size>>20, os.Getpagesize(), med.Round(time.Millisecond), float64(med.Microseconds())/float64(pages), float64(med.Milliseconds())*100/256)
}
