package cmd

// This file adds to the evaluator's errors the flag a user changes: eval
// names no flag (issue 18), the command does.

import (
	"errors"
	"fmt"

	"github.com/wolong-dev/wolong/eval"
)

// evalHint returns err with the flag that sets what it ran into: the
// memory limit (--max-memory), the time limit (--timeout), a dim of an
// input with no value (--dim, or --input for an unnamed dim).
func evalHint(err error) error {
	var de *eval.DeadlineError
	var ue *eval.UnsetDimError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		if ue.Dim.IsSymbolic() {
			return hinted{err, fmt.Sprintf("input %q has dim %s: give it a value with --dim %s=N", ue.Input, ue.Dim, ue.Dim), ""}
		}
		return hinted{err, fmt.Sprintf("input %q has an unnamed dim: give its shape with --input %s=%s", ue.Input, ue.Input, ue.ShapeHint()), ""}
	case errors.Is(err, eval.ErrMemoryLimit):
		return hinted{err, "", "--max-memory"}
	case errors.As(err, &de):
		return hinted{err, "", "--timeout"}
	}
	return err
}

// hinted is an error with a flag named after it ("... (--max-memory)"),
// or told in a message of the command's own.
type hinted struct {
	err  error
	msg  string // replaces err's message when set
	flag string
}

func (h hinted) Error() string {
	msg := h.msg
	if msg == "" {
		msg = h.err.Error()
	}
	if h.flag != "" {
		msg += " (" + h.flag + ")"
	}
	return msg
}

func (h hinted) Unwrap() error { return h.err }
