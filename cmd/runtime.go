package cmd

// This file wires the runtime catalogue (simulate/hw runtimes.json): the
// --runtime flag of profile, optimize and explain (which runtime runs the
// model: its host costs, and on profile its load-time fusions) and
// `wolong runtime list`.

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/hw"
	"github.com/wolong-dev/wolong/simulate/llm"
)

// addRuntimeFlag registers --runtime on c, with completion. On profile
// the same flag names the serving runtime of --llm --serve (trtllm, vllm):
// one flag, read by what the command predicts.
func addRuntimeFlag(c *cobra.Command, name *string) {
	serveNote := ""
	if c.Name() == "profile" {
		serveNote = "; with --llm --serve, the serving runtime " + strings.Join(llm.ServeRuntimeNames(), "|") + " (default trtllm): its host time and scheduler defaults"
	}
	c.Flags().StringVar(name, "runtime", "", "which runtime runs the model: `NAME` of a runtime preset (eager, ort-cuda, cuda-graph, tensorrt; ort-cpu, ort-cpu-opt: wolong runtime list); sets the host costs per kernel, node and run, and on profile the fusions it performs at load (default: eager on GPUs, ort-cpu on CPUs)"+serveNote)
	_ = c.RegisterFlagCompletionFunc("runtime", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		if serveNote != "" {
			return append(hw.RuntimeNames(), llm.ServeRuntimeNames()...), cobra.ShellCompDirectiveNoFileComp
		}
		return hw.RuntimeNames(), cobra.ShellCompDirectiveNoFileComp
	})
}

// withRuntime returns h with the --runtime preset name's host costs and
// the preset ("" keeps h, its kind's default runtime, and returns nil).
// An unknown name, or one for another kind of hardware, is a usage error.
func withRuntime(h *hw.Hardware, name string) (*hw.Hardware, *hw.Runtime, error) {
	if name == "" {
		return h, nil, nil
	}
	r, err := hw.LookupRuntime(name)
	if err != nil {
		return nil, nil, Usagef("--runtime: %v", err)
	}
	c, err := h.WithRuntime(r)
	if err != nil {
		return nil, nil, Usagef("--runtime: %v", err)
	}
	return c, r, nil
}

// RuntimeListOptions are the inputs of `wolong runtime list`.
type RuntimeListOptions struct {
	Format report.Format
}

// NewCmdRuntime builds `wolong runtime` and `wolong runtime list`.
func NewCmdRuntime(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "runtime",
		Short: "List the runtime presets (--runtime): which runtime runs the model",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(c *cobra.Command, args []string) error { return c.Help() },
	}
	var format string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the runtime presets with their host costs, load-time fusions and sources",
		Long: `list prints the runtimes --runtime takes on profile, optimize and explain:
the hardware kind each runs on, its host cost per kernel launched, per node
dispatched and per run, the fusions it performs when it loads the model (a
wolong -O level) and what it is. --format json adds the sources and
assumptions of each. The serving runtimes that profile --llm --serve takes
on the same flag (trtllm, vllm: scheduler defaults and host time per
iteration) are described in docs/serving.md.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := parseFormat(format)
			if err != nil {
				return err
			}
			if f == report.JSON {
				return report.WriteJSON(env.Out, hw.Runtimes())
			}
			return report.WriteRuntimeList(env.Out, hw.Runtimes())
		},
	}
	list.Flags().StringVar(&format, "format", "table", "output format: table or json")
	c.AddCommand(list)
	return c
}
