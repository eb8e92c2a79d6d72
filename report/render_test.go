package report

import "testing"

func TestSI(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{
		{0, "0 "}, {999, "999 "}, {1000, "1.00 k"}, {1234567, "1.23 M"},
		{-2.5e9, "-2.50 G"}, {4e12, "4.00 T"}, {1.5e15, "1.50 P"}, {3e18, "3000.00 P"},
	} {
		if got := SI(c.n); got != c.want {
			t.Errorf("SI(%g) = %q, want %q", c.n, got, c.want)
		}
	}
}
