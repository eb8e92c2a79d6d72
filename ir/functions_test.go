package ir

import (
	"fmt"
	"testing"
)

// TestFunctionIndex: Function finds what a scan finds (the first of a
// key) past the scan threshold, and sees appends and truncations.
func TestFunctionIndex(t *testing.T) {
	m := &Model{}
	for i := range 20 {
		m.Functions = append(m.Functions, &Function{Domain: "d", Name: fmt.Sprintf("f%d", i%15)})
	}
	for i := range 15 {
		if f := m.Function("d", fmt.Sprintf("f%d", i)); f != m.Functions[i] {
			t.Errorf("f%d: got %p, want the first, %p", i, f, m.Functions[i])
		}
	}
	if m.Function("", "f1") != nil || m.Function("d", "nope") != nil {
		t.Error("a missing key found")
	}
	m.Functions = append(m.Functions, &Function{Domain: "d", Name: "late"})
	if m.Function("d", "late") == nil {
		t.Error("an appended function not found")
	}
	m.Functions = m.Functions[:10]
	if m.Function("d", "late") != nil || m.Function("d", "f12") != nil {
		t.Error("a truncated function found")
	}
	c := *m
	c.Functions = append([]*Function{{Domain: "d", Name: "first"}}, m.Functions...)
	if c.Function("d", "first") == nil || m.Function("d", "first") != nil {
		t.Error("a copy's functions leak into the index of the original, or the reverse")
	}
}
