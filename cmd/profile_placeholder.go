package cmd

import "github.com/spf13/cobra"

// newProfileCmd is replaced by cmd/profile.go when the cost-model issue lands.
func newProfileCmd(env *Env) *cobra.Command {
	return notBuilt("profile MODEL", "Per-operator cost on a chosen GPU or cluster", "the cost model issue (simulate/ and profile)")
}
