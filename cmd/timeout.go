package cmd

// This file implements --timeout, the time limit of the commands that
// evaluate a model (run and verify); ModelOptions.load starts its clock at
// the first model the command loads, so every model of the command shares
// one limit.

import "github.com/spf13/cobra"

// addTimeoutFlag registers --timeout on c.
func addTimeoutFlag(c *cobra.Command, f *modelFlags) {
	c.Flags().DurationVar(&f.timeout, "timeout", 0, "stop, with an error, once the command has run this long (`duration`: 30s, 5m; 0: no limit); checked between nodes, Loop/Scan iterations and output files")
}
