//go:build !linux

package main

// hugeSlots is Linux's only (transparent huge pages).
func hugeSlots(n int) []uint64 { return nil }
