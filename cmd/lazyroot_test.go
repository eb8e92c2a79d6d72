package cmd

import (
	"io"
	"strings"
	"testing"
)

// TestCommandNames: each entry of commands is named as the command it
// builds, so that newRoot's one-command tree holds the command run.
func TestCommandNames(t *testing.T) {
	env := &Env{Out: io.Discard, Err: io.Discard}
	for _, c := range commands {
		if got := c.mk(env).Name(); got != c.name {
			t.Errorf("commands entry %q builds %q", c.name, got)
		}
	}
}

// TestCommandRun: which command the start-up builds alone, and when it
// builds the whole tree instead (help, completion, flags first, unknown
// words).
func TestCommandRun(t *testing.T) {
	for _, tc := range []struct {
		args string
		want string
	}{
		{"profile m.onnx", "profile"},
		{"--wide optimize m.onnx -O2", "optimize"},
		{"hw show h100", "hw"},
		{"", ""},
		{"--help", ""},
		{"help profile", ""},
		{"__complete profile --f", ""},
		{"completion bash", ""},
		{"prfile m.onnx", ""},
		{"--cpuprofile x.prof profile m.onnx", ""},
		{"-- profile", ""},
	} {
		if got := commandRun(strings.Fields(tc.args)); got != tc.want {
			t.Errorf("commandRun(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
	// The whole tree and the one-command tree give the same help.
	for _, c := range commands {
		var full, one strings.Builder
		for _, w := range []*strings.Builder{&full, &one} {
			env := &Env{Out: w, Err: io.Discard}
			only := ""
			if w == &one {
				only = c.name
			}
			root := newRoot(env, only)
			root.SetOut(w)
			root.SetArgs([]string{c.name, "--help"})
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
		}
		if full.String() != one.String() {
			t.Errorf("%s --help differs when the tree holds it alone", c.name)
		}
	}
}
