package cmd

import (
	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func newHwCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "hw",
		Short: "List and show the hardware presets the cost model uses",
		Long: `hw lists the built-in hardware presets (GPUs and this kind of CPU) and
shows one in full: peak FLOP/s per dtype, memory, overheads, the per-op-class
efficiency factors, and the datasheets and measurements they come from.
'hw show NAME --format json' prints a file that --hw path.json accepts.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	var format string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the hardware presets",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := report.ParseFormat(format)
			if err != nil {
				return Usagef("--format: %v", err)
			}
			if f == report.JSON {
				return report.WriteJSON(env.Out, hw.Presets())
			}
			return report.WriteHardwareList(env.Out, hw.Presets())
		},
	}
	list.Flags().StringVar(&format, "format", "table", "output format: table or json")
	var showFormat string
	show := &cobra.Command{
		Use:   "show NAME|FILE.json",
		Short: "Show one preset (or hardware file) in full, with its sources",
		Args:  usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return hw.Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			f, err := report.ParseFormat(showFormat)
			if err != nil {
				return Usagef("--format: %v", err)
			}
			h, err := hw.Resolve(args[0])
			if err != nil {
				return err
			}
			if f == report.JSON {
				return h.WriteJSON(env.Out)
			}
			return report.WriteHardware(env.Out, h)
		},
	}
	show.Flags().StringVar(&showFormat, "format", "table", "output format: table or json (the --hw file schema)")
	c.AddCommand(list, show)
	return c
}
