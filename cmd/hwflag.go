package cmd

// This file implements the flags that name hardware (--hw, calibrate's
// --base): one catalogue (simulate/hw) behind every one of them, listed in
// their help from the catalogue itself. The list is written into the flag
// usage when help is printed, not when the command tree is built, so that
// a command that reads no preset does not parse the embedded catalogue.

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// presetsMark and networksMark stand in a flag's usage for the
// catalogue's preset names and the network presets' (--net).
const (
	presetsMark  = "{presets}"
	networksMark = "{networks}"
)

// hwUsage is --hw's usage.
const hwUsage = "hardware: a preset (" + presetsMark + "; 'wolong hw list') or a hardware file `path.json`"

// addHWFlag adds a hardware flag called name with default def to c.
func addHWFlag(c *cobra.Command, fs *pflag.FlagSet, p *string, name, def, usage string) {
	fs.StringVar(p, name, def, usage)
	_ = c.RegisterFlagCompletionFunc(name, completeHW)
}

// completeHW completes a hardware flag with the preset names.
func completeHW(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return hw.Names(), cobra.ShellCompDirectiveDefault
}

// fillPresets writes the preset names into the usage of every flag of c
// that holds presetsMark or networksMark (help calls it before printing).
func fillPresets(c *cobra.Command) {
	fill := func(f *pflag.Flag) {
		if strings.Contains(f.Usage, presetsMark) {
			f.Usage = strings.ReplaceAll(f.Usage, presetsMark, strings.Join(hw.Names(), ", "))
		}
		if strings.Contains(f.Usage, networksMark) {
			f.Usage = strings.ReplaceAll(f.Usage, networksMark, strings.Join(cluster.NetworkNames(), "|"))
		}
	}
	c.Flags().VisitAll(fill)
	c.InheritedFlags().VisitAll(fill)
}

// hostCPU describes this machine: a CPU preset fitted on other machines
// resolves to its variant fitted on this one (hw.ResolveOn), and the
// host warning compares a CPU file with it. The package's tests pin it.
var hostCPU = hw.HostCPU

// resolveHW reads a hardware flag: a preset (the variant fitted on this
// machine, if the catalogue has one) or a hardware file (a usage error
// otherwise).
func resolveHW(flag, name string) (*hw.Hardware, error) {
	return resolveHWOn(flag, name, hostCPU)
}

// resolveHWOn is resolveHW for the machine host describes (validate's:
// the one its measurements were taken on).
func resolveHWOn(flag, name string, host func() hw.CPUInfo) (*hw.Hardware, error) {
	h, err := hw.ResolveOn(name, host)
	if err != nil {
		return nil, Usagef("%s: %v", flag, err)
	}
	return h, nil
}
