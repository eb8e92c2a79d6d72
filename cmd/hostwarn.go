package cmd

import "github.com/wolong-dev/wolong/simulate/hw"

// withHostWarning adds to warnings the warning that h, a CPU hardware
// file, was fitted on another machine than this one (or on none said),
// and what h lacks (a GPU preset without a single-GPU measurement).
func withHostWarning(warnings []string, h *hw.Hardware) []string {
	if h != nil && h.Kind == "cpu" { // HostMismatch says nothing of a GPU: spare reading the host
		if w := h.HostMismatch(hw.HostCPU()); w != "" {
			warnings = append(warnings, w)
		}
	}
	for _, l := range h.Lacks {
		warnings = append(warnings, "hardware "+h.Name+" lacks "+l)
	}
	return warnings
}
