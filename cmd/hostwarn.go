package cmd

import "github.com/wolong-dev/wolong/simulate/hw"

// withHostWarning adds to warnings the warning that h, a CPU hardware
// file, was fitted on another machine than this one (or on none said).
func withHostWarning(warnings []string, h *hw.Hardware) []string {
	if w := h.HostMismatch(hw.HostCPU()); w != "" {
		return append(warnings, w)
	}
	return warnings
}
