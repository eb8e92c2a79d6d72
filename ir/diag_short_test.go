package ir

import (
	"strings"
	"testing"
)

// TestErrorListsShortened: a list argument of a million values (a hostile
// perm) is printed as its first values and a count, not formatted whole.
func TestErrorListsShortened(t *testing.T) {
	perm := make([]int64, 1<<20)
	for i := range perm {
		perm[i] = int64(i)
	}
	for _, c := range []struct {
		arg  any
		want string
	}{
		{perm, "[0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 ... (1048576 values)]"},
		{[]int64{2, 0, 1}, "[2 0 1]"},
		{[]string{"a", "b"}, "[a b]"},
		{make([]float32, 17), "[0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 ... (17 values)]"},
		{42, "42"},
	} {
		err := errorf(CodeAttr, "perm %v has entries", c.arg)
		if got := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "perm "), " has entries"); got != c.want {
			t.Errorf("%T of %d: %q, want %q", c.arg, lenOf(c.arg), got, c.want)
		}
	}
}

func lenOf(a any) int {
	switch v := a.(type) {
	case []int64:
		return len(v)
	case []float32:
		return len(v)
	case []string:
		return len(v)
	}
	return 1
}
