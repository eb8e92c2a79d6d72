//go:build !linux

package hugeheap

func reserve(int64, Options) int64 { return 0 }

func populate(addr, n uintptr) error { return nil }
