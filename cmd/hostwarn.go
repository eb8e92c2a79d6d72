package cmd

import "github.com/wolong-dev/wolong/simulate/hw"

// withHostWarning adds to warnings the warning that h, a CPU hardware
// file, was fitted on another machine than this one (or on none said),
// and what h lacks (a GPU preset without a single-GPU measurement).
func withHostWarning(warnings []string, h *hw.Hardware) []string {
	return withHostWarningOn(warnings, h, hostCPU)
}

// withHostWarningOn is withHostWarning for the machine host describes.
func withHostWarningOn(warnings []string, h *hw.Hardware, host func() hw.CPUInfo) []string {
	if h != nil && h.Kind == "cpu" { // HostMismatch says nothing of a GPU: spare reading the host
		if w := h.HostMismatch(host()); w != "" {
			warnings = append(warnings, w)
		}
	}
	for _, l := range h.Lacks {
		warnings = append(warnings, "hardware "+h.Name+" lacks "+l)
	}
	return warnings
}
