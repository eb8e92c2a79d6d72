package cmd

import (
	"fmt"
	"io"
	"strings"
)

// progress shows what a long command is doing on one rewritten stderr
// line, only when stderr is a terminal; otherwise (pipes, CI, tests) it
// prints nothing. A nil *progress is a valid, silent one.
type progress struct {
	w  io.Writer
	on bool
}

// Printf replaces the progress line.
func (p *progress) Printf(format string, args ...any) {
	if p == nil || !p.on {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if len(msg) > 100 {
		msg = msg[:97] + "..."
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", strings.ReplaceAll(msg, "\n", " "))
}

// Done clears the progress line.
func (p *progress) Done() {
	if p == nil || !p.on {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
}
