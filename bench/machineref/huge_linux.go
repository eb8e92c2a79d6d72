//go:build linux

package main

import (
	"syscall"
	"unsafe"
)

// hugeSlots maps n 8-byte slots advised MADV_HUGEPAGE (2 MiB pages where
// the kernel's THP mode allows them, as internal/hugeheap asks for the
// command's heap); nil when the mapping fails.
func hugeSlots(n int) []uint64 {
	b, err := syscall.Mmap(-1, 0, n*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	if syscall.Madvise(b, 14 /* MADV_HUGEPAGE */) != nil {
		syscall.Munmap(b)
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
}
