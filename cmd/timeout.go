package cmd

// This file implements --timeout, the time limit of the commands that
// evaluate a model (run and verify), and the flags they share;
// ModelOptions.load starts its clock at the first model the command loads,
// so every model of the command shares one limit.

import "github.com/spf13/cobra"

// addTimeoutFlag registers --timeout on c.
func addTimeoutFlag(c *cobra.Command, f *modelFlags) {
	c.Flags().DurationVar(&f.timeout, "timeout", 0, "stop, with an error, once the command has run this long (`duration`: 30s, 5m; 0: no limit); checked between nodes, Loop/Scan iterations and output files")
}

// addEvalFlags registers the flags of the commands that evaluate a model
// (run and verify): the model flags, --timeout, --inputs (inputsHelp says
// what the folder holds) and --seed.
func addEvalFlags(c *cobra.Command, f *modelFlags, inputs *string, seed *uint32, inputsHelp string) {
	addModelFlags(c, f)
	addTimeoutFlag(c, f)
	c.Flags().StringVar(inputs, "inputs", "", inputsHelp)
	c.Flags().Uint32Var(seed, "seed", 1, "seed of the random inputs (without --inputs)")
}

// evalOptions types the flags addEvalFlags and addFillFlag registered
// (usage errors name the flag).
func evalOptions(env *Env, f *modelFlags, fill []string) (ModelOptions, []Fill, error) {
	mo, err := f.toOptions(env)
	if err != nil {
		return mo, nil, err
	}
	fills, err := parseFills(fill)
	return mo, fills, err
}
