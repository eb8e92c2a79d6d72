package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// lazyPackages build their op tables on first use (registrations.go's
// registerAll), not at start-up: `wolong --help` imports them all and
// should not pay for tables it never reads (issue 25).
var lazyPackages = []string{"eval", "ir", "simulate/cost"}

var initFunc = regexp.MustCompile(`(?m)^func init\(\)`)

// TestNoInitRegistrations fails on a func init in a lazy package: its
// registration belongs in a function registerAll calls.
func TestNoInitRegistrations(t *testing.T) {
	for _, dir := range lazyPackages {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if filepath.Ext(f) != ".go" || len(f) > 8 && f[len(f)-8:] == "_test.go" {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if initFunc.Match(b) {
				t.Errorf("%s has a func init: register from a function registerAll (%s/registrations.go) calls", f, dir)
			}
		}
	}
}
