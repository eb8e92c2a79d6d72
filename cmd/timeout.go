package cmd

// This file implements --timeout, the time limit of the commands that
// evaluate a model (run and verify).

import (
	"time"

	"github.com/spf13/cobra"
)

// addTimeoutFlag registers --timeout on c.
func addTimeoutFlag(c *cobra.Command, f *ModelFlags) {
	c.Flags().DurationVar(&f.Timeout, "timeout", 0, "stop, with an error, once the command has run this long (`duration`: 30s, 5m; 0: no limit); checked between nodes, Loop/Scan iterations and output files")
}

// evalDeadline returns when evaluation must stop (zero: no limit). The
// clock starts at the first model the command loads, so every model of
// the command shares one limit.
func (f *ModelFlags) evalDeadline() (time.Time, error) {
	if f.Timeout < 0 {
		return time.Time{}, Usagef("--timeout %s: want a duration >= 0", f.Timeout)
	}
	if f.Timeout > 0 && f.deadline.IsZero() {
		f.deadline = time.Now().Add(f.Timeout)
	}
	return f.deadline, nil
}
