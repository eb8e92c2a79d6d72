package cmd

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func newHwCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "hw",
		Short: "List and show the hardware and network presets the cost model uses",
		Long: `hw lists the built-in hardware presets (GPUs and this kind of CPU) and the
network presets of 'profile --cluster' (--net), and shows one in full: peak
FLOP/s per dtype, memory, overheads, the per-op-class efficiency factors, or a
network's bandwidth, latency, per-message CPU, RDMA and GPUDirect, and the
datasheets and measurements they come from. 'hw show NAME --format json'
prints a file that --hw path.json accepts (for a GPU or CPU).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	var format string
	var networks bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the hardware presets and the network presets",
		Long: `list prints the GPU and CPU presets (--hw), then the network presets
(--net, with profile --cluster). With --format json (or csv) it prints the
hardware presets as an array (rows), or with --networks the network presets.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := report.ParseFormat(format, report.CSV)
			if err != nil {
				return Usagef("--format: %v", err)
			}
			nets, err := networkPresets()
			if err != nil {
				return err
			}
			if networks {
				switch f {
				case report.JSON:
					return report.WriteJSON(env.Out, nets)
				case report.CSV:
					return report.WriteNetworkCSV(env.Out, nets)
				}
				return report.WriteNetworkList(env.Out, nets)
			}
			hws, err := hardwarePresets()
			if err != nil {
				return err
			}
			switch f {
			case report.JSON:
				return report.WriteJSON(env.Out, hws)
			case report.CSV:
				return report.WriteHardwareCSV(env.Out, hws)
			}
			if err := report.WriteHardwareList(env.Out, hws); err != nil {
				return err
			}
			if _, err := io.WriteString(env.Out, "\nNetworks (--net, with profile --cluster):\n"); err != nil {
				return err
			}
			return report.WriteNetworkList(env.Out, nets)
		},
	}
	list.Flags().StringVar(&format, "format", "table", "output format: table, json or csv")
	list.Flags().BoolVar(&networks, "networks", false, "list only the network presets")
	var showFormat string
	show := &cobra.Command{
		Use:   "show NAME|FILE.json",
		Short: "Show one preset (GPU, CPU, network) or hardware file in full, with its sources",
		Args:  usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			names := append(append(hw.Names(), cluster.GPUNames()...), cluster.NetworkNames()...)
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			f, err := report.ParseFormat(showFormat)
			if err != nil {
				return Usagef("--format: %v", err)
			}
			h, err := hw.Resolve(args[0])
			if err != nil {
				if n, nerr := cluster.NetworkPreset(args[0]); nerr == nil {
					if f == report.JSON {
						return report.WriteJSON(env.Out, n)
					}
					return report.WriteNetwork(env.Out, n)
				}
				if g, gerr := cluster.GPUPreset(args[0]); gerr == nil {
					h, err = g, nil
				} else if strings.Contains(err.Error(), "no preset") {
					names := append(hw.Names(), cluster.GPUNames()...)
					err = Usagef("no preset %q (hardware: %s; networks: %s)", args[0], strings.Join(names, ", "), strings.Join(cluster.NetworkNames(), ", "))
				}
			}
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

// hardwarePresets lists simulate/hw's presets, then the GPUs the cluster
// model adds (p100).
func hardwarePresets() ([]*hw.Hardware, error) {
	out := hw.Presets()
	for _, name := range cluster.GPUNames() {
		h, err := cluster.GPUPreset(name)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// networkPresets lists the network presets in catalogue order.
func networkPresets() ([]*cluster.Network, error) {
	var out []*cluster.Network
	for _, name := range cluster.NetworkNames() {
		n, err := cluster.NetworkPreset(name)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}
