//go:build !linux

package hugeheap

func reserve(n int64) int64 { return 0 }

func populate(addr, n uintptr) error { return nil }
