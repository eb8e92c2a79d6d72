package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/report"
)

// PlanShowOptions are the inputs of `wolong plan show`, typed.
type PlanShowOptions struct {
	Path   string
	Format report.Format
	Top    int // slowest kernels listed (0: all)
}

// NewCmdPlan builds `wolong plan` and its subcommand.
func NewCmdPlan(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "plan",
		Short: "Read plans written by wolong optimize -o",
	}
	c.AddCommand(NewCmdPlanShow(env, nil))
	return c
}

// NewCmdPlanShow builds `wolong plan show`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdPlanShow(env *Env, runF func(*PlanShowOptions) error) *cobra.Command {
	var format string
	var top int
	show := &cobra.Command{
		Use:   "show PLAN.json",
		Short: "Print a plan: kernels, passes, placement and assumptions",
		Long: `show reads a plan that wolong optimize -o wrote, in any mode (checking it
strictly: unknown fields, trailing data and impossible times are errors). A
model's plan prints its slowest kernels, the passes that changed the graph,
the cluster placement when there is one, and the assumptions of the
prediction; an LLM plan (optimize --llm) prints its layout as optimize did.
--format json re-emits it.`,
		Example: `  wolong optimize model.onnx -o plan.json && wolong plan show plan.json --top 10`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(c *cobra.Command, args []string) error {
			f, err := parseFormat(format)
			if err != nil {
				return err
			}
			if top < 0 {
				return Usagef("--top: %d is negative", top)
			}
			opts := &PlanShowOptions{Path: args[0], Format: f, Top: top}
			return runOr(runF, opts, func() error { return planShowRun(env, opts) })
		},
	}
	show.Flags().StringVar(&format, "format", "table", "output format: table or json")
	show.Flags().IntVar(&top, "top", 20, "slowest kernels to list (0: all)")
	return show
}

func planShowRun(env *Env, opts *PlanShowOptions) error {
	path := opts.Path
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := report.ReadAnyPlan(f)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, p)
	}
	switch p := p.(type) {
	case *report.LLMPlan:
		return p.WriteText(env.Out)
	case *report.Plan:
		return p.WriteText(env.Out, opts.Top)
	}
	return fmt.Errorf("%s: plan of unknown kind", path)
}
