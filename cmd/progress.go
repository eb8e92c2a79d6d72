package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/wolong-dev/wolong/ir"
)

// progressInterval is the least time between two updates of a frequent
// progress line (node evaluation): at most ten a second.
const progressInterval = 100 * time.Millisecond

// progress shows what a long command is doing on one rewritten stderr
// line, only when stderr is a terminal; otherwise (pipes, CI, tests) it
// prints nothing. A nil *progress is a valid, silent one.
type progress struct {
	w   io.Writer
	on  bool
	now func() time.Time // clock of the throttled updates (nil: time.Now)

	last  time.Time // when a throttled update last printed
	shown bool      // a throttled update has printed since Done
}

// active reports whether p prints anything.
func (p *progress) active() bool { return p != nil && p.on }

// Printf replaces the progress line.
func (p *progress) Printf(format string, args ...any) {
	if !p.active() {
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
	if !p.active() {
		return
	}
	p.shown = false
	fmt.Fprint(p.w, "\r\x1b[K")
}

// due reports whether a throttled update may print now (the first one
// after Done always may), and if so records the time.
func (p *progress) due() bool {
	now := time.Now
	if p.now != nil {
		now = p.now
	}
	t := now()
	if p.shown && t.Sub(p.last) < progressInterval {
		return false
	}
	p.last, p.shown = t, true
	return true
}

// passHook returns the optimizer's pass-start callback
// ("pass 5/18: fuse (12,345 nodes)"), nil when p is silent so the
// optimizer pays nothing. prefix goes before the line.
func (p *progress) passHook(prefix string) func(i, n int, pass string, m *ir.Model) {
	if !p.active() {
		return nil
	}
	return func(i, n int, pass string, m *ir.Model) {
		nodes := 0
		if m != nil && m.Graph != nil {
			nodes = len(m.Graph.Nodes)
		}
		p.Printf("%spass %d/%d: %s (%s nodes)", prefix, i, n, pass, groupDigits(nodes))
	}
}

// nodeHook returns the evaluator's per-node callback ("evaluating node
// 1,234/56,789: Conv"), updating the line at most ten times a second;
// nil when p is silent so the evaluator pays nothing. prefix goes before
// the line.
func (p *progress) nodeHook(prefix string) func(i, n int, node *ir.Node) {
	if !p.active() {
		return nil
	}
	return func(i, n int, node *ir.Node) {
		if !p.due() {
			return
		}
		op := "?"
		if node != nil {
			op = node.QualifiedOp()
		}
		p.Printf("%sevaluating node %s/%s: %s", prefix, groupDigits(i), groupDigits(n), op)
	}
}

// groupDigits writes n with commas between groups of three digits.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
