package fieldcheck

import (
	"math"
	"testing"
)

// TestCheck runs each range check on values inside, on and past its
// bounds, and checks what Err reports.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(*Check)
		want string // "" = valid
	}{
		{"positive", func(c *Check) { c.Positive("a", 1) }, ""},
		{"positive zero", func(c *Check) { c.Positive("a", 0) }, "x: a must be > 0"},
		{"positive inf", func(c *Check) { c.Positive("a", math.Inf(1)) }, "x: a must be > 0"},
		{"positive nan", func(c *Check) { c.Positive("a", math.NaN()) }, "x: a must be > 0"},
		{"nonneg zero", func(c *Check) { c.NonNeg("b", 0) }, ""},
		{"nonneg negative", func(c *Check) { c.NonNeg("b", -1) }, "x: b must be >= 0"},
		{"fraction one", func(c *Check) { c.Fraction("f", 1) }, ""},
		{"fraction over", func(c *Check) { c.Fraction("f", 1.5) }, "x: f must be in (0, 1]"},
		{"int bounds", func(c *Check) { c.IntIn("n", 1, 1, 4); c.IntIn("n", 4, 1, 4) }, ""},
		{"int past", func(c *Check) { c.IntIn("n", 5, 1, 4) }, "x: n 5 not in 1..4"},
		{"several", func(c *Check) { c.NonNeg("b", -1); c.Addf("k %q", "v") }, `x: b must be >= 0; k "v"`},
	} {
		var ch Check
		c.run(&ch)
		err := ch.Err("x")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
