package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// HwListOptions are the inputs of `wolong hw list`, typed.
type HwListOptions struct {
	Format   report.Format
	Networks bool // --networks: only the network presets
}

// HwShowOptions are the inputs of `wolong hw show`, typed.
type HwShowOptions struct {
	Name   string // a preset (GPU, CPU, network) or a hardware file
	Format report.Format
}

// NewCmdHw builds `wolong hw` and its subcommands.
func NewCmdHw(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "hw",
		Short: "List and show the hardware and network presets the cost model uses",
		Long: `hw lists the built-in hardware presets (GPUs and CPUs: every name --hw accepts,
in profile, optimize, explain and with --cluster) and the network presets of
'profile --cluster' (--net), and shows one in full: peak
FLOP/s per dtype, memory, overheads, the per-op-class efficiency factors, or a
network's bandwidth, latency, per-message CPU, RDMA and GPUDirect, and the
datasheets and measurements they come from. 'hw show NAME --format json'
prints a file that --hw path.json accepts (for a GPU or CPU).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(NewCmdHwList(env, nil), NewCmdHwShow(env, nil))
	return c
}

// NewCmdHwList builds `wolong hw list`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdHwList(env *Env, runF func(*HwListOptions) error) *cobra.Command {
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
			f, err := parseFormat(format, report.CSV)
			if err != nil {
				return err
			}
			opts := &HwListOptions{Format: f, Networks: networks}
			return runOr(runF, opts, func() error { return hwListRun(env, opts) })
		},
	}
	list.Flags().StringVar(&format, "format", "table", "output format: table, json or csv")
	list.Flags().BoolVar(&networks, "networks", false, "list only the network presets")
	return list
}

func hwListRun(env *Env, opts *HwListOptions) error {
	nets, err := networkPresets()
	if err != nil {
		return err
	}
	if opts.Networks {
		switch opts.Format {
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
	switch opts.Format {
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
	if err := report.WriteNetworkList(env.Out, nets); err != nil {
		return err
	}
	if _, err := io.WriteString(env.Out, "\nRuntimes (--runtime, on profile, optimize and explain; wolong runtime list):\n"); err != nil {
		return err
	}
	return report.WriteRuntimeList(env.Out, hw.Runtimes())
}

// NewCmdHwShow builds `wolong hw show`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdHwShow(env *Env, runF func(*HwShowOptions) error) *cobra.Command {
	var format string
	show := &cobra.Command{
		Use:   "show NAME|FILE.json",
		Short: "Show one preset (GPU, CPU, network) or hardware file in full, with its sources",
		Args:  usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			names := append(hw.Names(), cluster.NetworkNames()...)
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			f, err := parseFormat(format)
			if err != nil {
				return err
			}
			opts := &HwShowOptions{Name: args[0], Format: f}
			return runOr(runF, opts, func() error { return hwShowRun(env, opts) })
		},
	}
	show.Flags().StringVar(&format, "format", "table", "output format: table or json (the --hw file schema)")
	return show
}

func hwShowRun(env *Env, opts *HwShowOptions) error {
	h, err := hw.Resolve(opts.Name)
	if err != nil {
		if n, nerr := cluster.NetworkPreset(opts.Name); nerr == nil {
			if opts.Format == report.JSON {
				return report.WriteJSON(env.Out, n)
			}
			return report.WriteNetwork(env.Out, n)
		}
		if strings.Contains(err.Error(), "no preset") {
			err = Usagef("no preset %q (hardware: %s; networks: %s)", opts.Name, strings.Join(hw.Names(), ", "), strings.Join(cluster.NetworkNames(), ", "))
		}
	}
	if err != nil {
		return err
	}
	if opts.Format == report.JSON {
		return h.WriteJSON(env.Out)
	}
	if err := report.WriteHardware(env.Out, h); err != nil {
		return err
	}
	if vs := hw.Variants(h.Name); len(vs) > 0 {
		if _, err := fmt.Fprintf(env.Out, "\nVariants: %s (--hw %s predicts with the one fitted on this machine, if any)\n", strings.Join(vs, ", "), h.Name); err != nil {
			return err
		}
	}
	if n := hw.NodePreset(h.Name); n != nil {
		return report.WriteNode(env.Out, n)
	}
	return nil
}

// hardwarePresets lists the catalogue's presets: every name --hw accepts
// in every command.
func hardwarePresets() ([]*hw.Hardware, error) {
	if _, err := hw.Preset("h100"); err != nil { // the embedded catalogue's error, if broken
		return nil, err
	}
	return hw.Presets(), nil
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
