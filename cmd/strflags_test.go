package cmd

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestStringsFlagsAsPflag: the repeatable flags parse, print in help and
// report their type as pflag's StringArrayVar and StringSliceVar do.
func TestStringsFlagsAsPflag(t *testing.T) {
	var a, s, pa, ps []string
	ours, theirs := pflag.NewFlagSet("ours", pflag.ContinueOnError), pflag.NewFlagSet("theirs", pflag.ContinueOnError)
	stringArrayVar(ours, &a, "dim", "a `name=value` (repeatable)")
	stringSliceVar(ours, &s, "passes", "passes, comma-separated")
	theirs.StringArrayVar(&pa, "dim", nil, "a `name=value` (repeatable)")
	theirs.StringSliceVar(&ps, "passes", nil, "passes, comma-separated")
	if ours.FlagUsages() != theirs.FlagUsages() {
		t.Errorf("help differs:\n%s\nwant\n%s", ours.FlagUsages(), theirs.FlagUsages())
	}
	args := []string{"--dim", "a=1,b", "--passes", `fuse,"c,se"`, "--dim", "x=2", "--passes", "gelu", "--passes", ""}
	if err := ours.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := theirs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, pa) || !slices.Equal(s, ps) {
		t.Errorf("parsed %q %q, pflag %q %q", a, s, pa, ps)
	}
	for _, n := range []string{"dim", "passes"} {
		if o, p := ours.Lookup(n), theirs.Lookup(n); o.Value.String() != p.Value.String() || o.Value.Type() != p.Value.Type() {
			t.Errorf("--%s: %s %s, pflag %s %s", n, o.Value.Type(), o.Value, p.Value.Type(), p.Value)
		}
	}
	if err := ours.Parse([]string{"--passes", `"x`}); err == nil {
		t.Error("a bad CSV list is accepted")
	}
}
