package llm

import "testing"

func TestHumanCount(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{
		{999, "999"}, {7.2e6, "7.2M"}, {405e9, "405B"}, {1.008e12, "1.01T"}, {8.03e9, "8.03B"},
	} {
		if got := humanCount(c.n); got != c.want {
			t.Errorf("humanCount(%g) = %q, want %q", c.n, got, c.want)
		}
	}
}
