package eval

// This file implements Options.Deadline.

import (
	"fmt"
	"time"

	"github.com/wolong-dev/wolong/ir"
)

// DeadlineError reports a run stopped because Options.Deadline passed.
type DeadlineError struct {
	Node    *ir.Node      // the node that was about to run
	Elapsed time.Duration // how long the run had taken
}

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("stopped after %s, over the time limit, before node %s (%s)", e.Elapsed.Round(time.Millisecond), ir.NodeLabel(e.Node), e.Node.QualifiedOp())
}

// checkDeadline fails when the run's deadline has passed, before n runs.
func (e *Evaluator) checkDeadline(n *ir.Node) error {
	if e.opt.Deadline.IsZero() {
		return nil
	}
	if now := time.Now(); now.After(e.opt.Deadline) {
		return &DeadlineError{Node: n, Elapsed: now.Sub(e.start)}
	}
	return nil
}
