// Package fieldcheck collects what is wrong with the fields of a record
// read from a user's file (hardware, network, transformer dimensions), so
// Validate methods report every bad field in one error instead of the
// first. It only checks ranges; what a field means stays with its record.
package fieldcheck

import (
	"fmt"
	"math"
	"strings"
)

// Check gathers one phrase per bad field. The zero value is ready to use.
type Check struct {
	Bad []string
}

// Addf records a problem a range check does not express.
func (c *Check) Addf(format string, args ...any) {
	c.Bad = append(c.Bad, fmt.Sprintf(format, args...))
}

// Positive requires a finite v > 0 (NaN fails).
func (c *Check) Positive(name string, v float64) {
	if !(v > 0 && v <= math.MaxFloat64) {
		c.Bad = append(c.Bad, name+" must be > 0")
	}
}

// NonNeg requires a finite v >= 0 (NaN fails).
func (c *Check) NonNeg(name string, v float64) {
	if !(v >= 0 && v <= math.MaxFloat64) {
		c.Bad = append(c.Bad, name+" must be >= 0")
	}
}

// Fraction requires v in (0, 1] (NaN fails).
func (c *Check) Fraction(name string, v float64) {
	if !(v > 0 && v <= 1) {
		c.Bad = append(c.Bad, name+" must be in (0, 1]")
	}
}

// IntIn requires lo <= v <= hi.
func (c *Check) IntIn(name string, v, lo, hi int) {
	if v < lo || v > hi {
		c.Addf("%s %d not in %d..%d", name, v, lo, hi)
	}
}

// Err is nil when nothing was bad, else an error "PREFIX: p1; p2; ...".
func (c *Check) Err(prefix string) error {
	if len(c.Bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s", prefix, strings.Join(c.Bad, "; "))
}
