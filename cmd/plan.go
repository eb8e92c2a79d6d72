package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/report"
)

// PlanShowOptions are the inputs of `wolong plan show`.
type PlanShowOptions struct {
	Format string
	Top    int
}

func newPlanCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "plan",
		Short: "Read plans written by wolong optimize -o",
	}
	opts := &PlanShowOptions{}
	show := &cobra.Command{
		Use:   "show PLAN.json",
		Short: "Print a plan: kernels, passes, placement and assumptions",
		Long: `show reads a plan that wolong optimize -o wrote (checking it strictly: unknown
fields, trailing data and impossible times are errors) and prints its slowest
kernels, the passes that changed the graph, the cluster placement when there
is one, and the assumptions of the prediction. --format json re-emits it.`,
		Example: `  wolong optimize model.onnx -o plan.json && wolong plan show plan.json --top 10`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(c *cobra.Command, args []string) error { return runPlanShow(env, opts, args[0]) },
	}
	show.Flags().StringVar(&opts.Format, "format", "table", "output format: table or json")
	show.Flags().IntVar(&opts.Top, "top", 20, "slowest kernels to list (0: all)")
	c.AddCommand(show)
	return c
}

func runPlanShow(env *Env, opts *PlanShowOptions, path string) error {
	format, err := report.ParseFormat(opts.Format)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	if opts.Top < 0 {
		return Usagef("--top: %d is negative", opts.Top)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := report.ReadPlan(f)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if format == report.JSON {
		return report.WriteJSON(env.Out, p)
	}
	return p.WriteText(env.Out, opts.Top)
}
